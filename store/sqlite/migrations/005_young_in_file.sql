-- Migration 5: one file. A young run's bytes move from the folder beside the
-- database (DB.young/) into young_data, cut into chunks keyed by the run's
-- name and the chunk's offset, written in the merge's transaction and deleted
-- in the prune's: a database is its one file. young_runs records each run's
-- source (its id in the ledger) and results, so that a damaged run can be
-- taken out again exactly (DB.Repair). The store's Go code (importYoungDir)
-- then copies the folder's runs into young_data in the same transaction and
-- removes the folder after the commit. See doc.go.
CREATE TABLE young_data (
    run  TEXT    NOT NULL,
    off  INTEGER NOT NULL,
    data BLOB    NOT NULL,
    PRIMARY KEY (run, off)
);

ALTER TABLE young_runs ADD COLUMN source TEXT NOT NULL DEFAULT '';
ALTER TABLE young_runs ADD COLUMN black_wins INTEGER;
ALTER TABLE young_runs ADD COLUMN white_wins INTEGER;
ALTER TABLE young_runs ADD COLUMN draws INTEGER;
