-- PostgreSQL schema 1 of the Ocvist store (package store, pg.go). One
-- table of move statistics keyed by (key, mx, my), with the position id
-- (PositionID) for the scan order; no young tier: merges upsert, prune
-- deletes positions below the threshold at once, keeping their
-- blacklisted moves in blacklist. merged_shards is the ledger, written in
-- the merge's own transaction.
CREATE TABLE meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
CREATE TABLE totals (
    id         INTEGER PRIMARY KEY CHECK (id = 1),
    games      BIGINT NOT NULL,
    black_wins BIGINT NOT NULL,
    white_wins BIGINT NOT NULL,
    draws      BIGINT NOT NULL
);
INSERT INTO totals VALUES (1, 0, 0, 0, 0);
CREATE TABLE moves (
    pid         BIGINT   NOT NULL,
    key         TEXT     NOT NULL,
    mx          SMALLINT NOT NULL,
    my          SMALLINT NOT NULL,
    wsum        BIGINT   NOT NULL,
    games       BIGINT   NOT NULL,
    blacklisted BOOLEAN  NOT NULL DEFAULT FALSE,
    PRIMARY KEY (key, mx, my)
);
CREATE INDEX moves_pid ON moves (pid, key);
CREATE TABLE blacklist (
    pid BIGINT   NOT NULL,
    key TEXT     NOT NULL,
    mx  SMALLINT NOT NULL,
    my  SMALLINT NOT NULL,
    PRIMARY KEY (key, mx, my)
);
CREATE TABLE merged_shards (
    shard_id  TEXT PRIMARY KEY,
    path      TEXT   NOT NULL,
    games     BIGINT NOT NULL,
    seal      TEXT   NOT NULL,
    via       TEXT   NOT NULL DEFAULT '',
    merged_at TEXT   NOT NULL
);
CREATE TABLE generations (
    gen         INTEGER PRIMARY KEY,
    games       BIGINT           NOT NULL,
    rows        BIGINT           NOT NULL,
    fit_seconds DOUBLE PRECISION NOT NULL,
    auc         DOUBLE PRECISION NOT NULL,
    score       DOUBLE PRECISION NOT NULL,
    score_low   DOUBLE PRECISION NOT NULL,
    score_high  DOUBLE PRECISION NOT NULL,
    model       TEXT   NOT NULL,
    seed        BIGINT NOT NULL,
    created     TEXT   NOT NULL,
    details     TEXT   NOT NULL DEFAULT ''
);
CREATE TABLE teacher_games (
    gen     INTEGER  NOT NULL,
    game    INTEGER  NOT NULL,
    book    SMALLINT NOT NULL,
    winner  SMALLINT NOT NULL,
    moves   BYTEA    NOT NULL,
    teacher BYTEA    NOT NULL,
    PRIMARY KEY (gen, game)
);
