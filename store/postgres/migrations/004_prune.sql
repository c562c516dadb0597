-- PostgreSQL schema 4 of the Ocvist store (package store, pgprune.go).
-- Measured on schema 3: a prune planned "is this position in moves?" as a
-- sequential scan of moves per expired row (the statistics of a young
-- database said moves was empty), and found a run's rows by scanning all
-- of young; one final prune ran over ten minutes. Prune now expires runs
-- in batches of bounded rows, each its own transaction: it needs each
-- run's row count (young_runs.rows, counted here for the runs already
-- merged) and its rows by run. Runs are appended in order, so the index
-- on young (run) grows at its right edge: a merge's COPY stays cheap
-- (BenchmarkPGMerge).
ALTER TABLE young_runs ADD COLUMN rows BIGINT NOT NULL DEFAULT 0;
CREATE INDEX young_by_run ON young (run);
UPDATE young_runs r SET rows = (SELECT count(*) FROM young y WHERE y.run = r.run);
UPDATE meta SET value = '4' WHERE key = 'schema_version';
