-- Migration 3: the store at scale. The moves table holds only promoted
-- positions (those that reached the prune threshold), ordered by position id
-- (PositionID of the key, computed by ocvist_pid) so that merges and scans
-- walk it in the same order as run files. Young positions live in run
-- files listed in young_runs; blacklisted moves of pruned positions stay in
-- blacklist; the ledger records each source's seal. See doc.go.
CREATE TABLE moves3 (
    pid         INTEGER NOT NULL,
    key         TEXT    NOT NULL,
    mx          INTEGER NOT NULL,
    my          INTEGER NOT NULL,
    wsum        INTEGER NOT NULL,
    games       INTEGER NOT NULL,
    blacklisted INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (pid, key, mx, my)
) WITHOUT ROWID;
INSERT INTO moves3 (pid, key, mx, my, wsum, games, blacklisted)
    SELECT ocvist_pid(key), key, mx, my, wsum, games, blacklisted FROM moves;
DROP VIEW positions;
DROP TABLE moves;
ALTER TABLE moves3 RENAME TO moves;

CREATE TABLE young_runs (
    name      TEXT    PRIMARY KEY,
    born      INTEGER NOT NULL,
    games     INTEGER NOT NULL,
    positions INTEGER NOT NULL,
    rows      INTEGER NOT NULL,
    bytes     INTEGER NOT NULL
) WITHOUT ROWID;

CREATE TABLE blacklist (
    pid INTEGER NOT NULL,
    mx  INTEGER NOT NULL,
    my  INTEGER NOT NULL,
    PRIMARY KEY (pid, mx, my)
) WITHOUT ROWID;

ALTER TABLE merged_shards ADD COLUMN seal TEXT NOT NULL DEFAULT '';
