-- Migration 6: the learning loop's teacher games come in through sealed
-- shards (run format 2, kind T), merged exactly once like self-play
-- games. teacher_games keeps each game's plies: the teacher's search of
-- every ply (score, depth, root moves with their scores; encoding in
-- teacher.go), empty for the games stored before. The ledger says which
-- sources were teacher shards (kind 'teacher'; '' for statistics), so
-- that a sealed export, which carries statistics only, lists only those.
-- teacher_plans holds each generation's quota of games, cut into blocks,
-- and the recipe every member of the loop plays it with; teacher_claims
-- which member (a random id, one per loop run) claimed each block. See
-- claims.go.
ALTER TABLE teacher_games ADD COLUMN plies BLOB NOT NULL DEFAULT x'';
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
    member  INTEGER NOT NULL,
    claimed TEXT    NOT NULL,
    PRIMARY KEY (gen, block)
) WITHOUT ROWID;
