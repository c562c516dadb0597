-- PostgreSQL schema 5 of the Ocvist store: the learning loop's teacher
-- games come in through sealed shards (run format 2, kind T), merged
-- exactly once like self-play games, by every machine of the loop.
-- teacher_games keeps each game's plies (the teacher's search of every
-- ply; encoding in teacher.go), empty for the games stored before; the
-- ledger says which sources were teacher shards (kind 'teacher'). The
-- loop's members (one per "train loop" process, a random id held as a
-- session advisory lock while it lives) claim blocks of a generation's
-- quota in teacher_claims; teacher_plans holds each generation's quota,
-- block size and the recipe every member plays it with. See claims.go.
ALTER TABLE teacher_games ADD COLUMN plies BYTEA NOT NULL DEFAULT '';
ALTER TABLE merged_shards ADD COLUMN kind TEXT NOT NULL DEFAULT '';
CREATE TABLE teacher_plans (
    gen     INTEGER PRIMARY KEY,
    games   INTEGER NOT NULL,
    block   INTEGER NOT NULL,
    recipe  TEXT    NOT NULL,
    created TEXT    NOT NULL
);
CREATE TABLE teacher_claims (
    gen     INTEGER NOT NULL,
    block   INTEGER NOT NULL,
    member  BIGINT  NOT NULL,
    claimed TEXT    NOT NULL,
    PRIMARY KEY (gen, block)
);
UPDATE meta SET value = '5' WHERE key = 'schema_version';
