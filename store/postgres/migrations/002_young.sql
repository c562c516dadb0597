-- PostgreSQL schema 2 of the Ocvist store (package store, pgmerge.go,
-- pgprune.go). Measured on schema 1: every merge upserted every row of a
-- shard into a B-tree keyed by the key text (five bytes a stone) with a
-- second index, so merges slowed as the table grew, though most positions
-- are seen once and pruned. Schema 2 follows the SQLite store: a merge
-- appends the shard's rows to young (no index: a COPY), its run to
-- young_runs with the game count it was born at, and the ledger row, in
-- one transaction; Prune expires runs by age, moving the rows of positions
-- that reached the threshold into moves and dropping the others (keeping
-- their blacklisted moves). Keys are stored in the run files' packed
-- encoding (about a byte a stone, appendKey in run.go), and moves has one
-- index, its primary key, led by the position id (a function of the key).
-- Schema 1's rows are mature: the program copies them into the new moves
-- table with packed keys (pgMigrateKeys) and drops the old tables.
ALTER TABLE moves RENAME TO moves_v1;
ALTER TABLE blacklist RENAME TO blacklist_v1;
ALTER INDEX moves_pkey RENAME TO moves_v1_pkey;
ALTER INDEX blacklist_pkey RENAME TO blacklist_v1_pkey;
CREATE TABLE moves (
    pid         BIGINT   NOT NULL,
    key         BYTEA    NOT NULL,
    mx          SMALLINT NOT NULL,
    my          SMALLINT NOT NULL,
    wsum        BIGINT   NOT NULL,
    games       BIGINT   NOT NULL,
    blacklisted BOOLEAN  NOT NULL,
    PRIMARY KEY (pid, key, mx, my)
);
-- Blacklisted moves of dropped positions, by position id (as in SQLite).
CREATE TABLE blacklist (
    pid BIGINT   NOT NULL,
    mx  SMALLINT NOT NULL,
    my  SMALLINT NOT NULL,
    PRIMARY KEY (pid, mx, my)
);
INSERT INTO blacklist SELECT DISTINCT pid, mx, my FROM blacklist_v1;
DROP TABLE blacklist_v1;
CREATE SEQUENCE young_run;
-- born: the database's game count after the merge that added the run.
CREATE TABLE young_runs (
    run      BIGINT PRIMARY KEY,
    born     BIGINT NOT NULL,
    shard_id TEXT   NOT NULL
);
CREATE TABLE young (
    run   BIGINT   NOT NULL,
    pid   BIGINT   NOT NULL,
    key   BYTEA    NOT NULL,
    mx    SMALLINT NOT NULL,
    my    SMALLINT NOT NULL,
    wsum  BIGINT   NOT NULL,
    games BIGINT   NOT NULL,
    bl    BOOLEAN  NOT NULL
);
UPDATE meta SET value = '2' WHERE key = 'schema_version';
