-- PostgreSQL schema 3 of the Ocvist store: the model files of each
-- learning-loop generation (policy and value, the .ocf bytes as written),
-- so that every machine feeding the database can fetch the current models
-- ("train model"). sha256 is the hex digest of bytes, checked on reading.
CREATE TABLE models (
    gen     INTEGER NOT NULL,
    role    TEXT    NOT NULL,
    bytes   BYTEA   NOT NULL,
    sha256  TEXT    NOT NULL,
    created TEXT    NOT NULL,
    PRIMARY KEY (gen, role)
);
UPDATE meta SET value = '3' WHERE key = 'schema_version';
