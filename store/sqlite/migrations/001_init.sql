-- Migration 1: the initial Ocvist statistics schema. See doc.go for the contract of each table.
CREATE TABLE meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
) WITHOUT ROWID;

CREATE TABLE moves (
    key         TEXT    NOT NULL,
    mx          INTEGER NOT NULL,
    my          INTEGER NOT NULL,
    wsum        INTEGER NOT NULL,
    games       INTEGER NOT NULL,
    blacklisted INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (key, mx, my)
) WITHOUT ROWID;

CREATE TABLE positions (
    key   TEXT PRIMARY KEY,
    games INTEGER NOT NULL
) WITHOUT ROWID;

CREATE TABLE totals (
    id         INTEGER PRIMARY KEY CHECK (id = 1),
    games      INTEGER NOT NULL,
    black_wins INTEGER NOT NULL,
    white_wins INTEGER NOT NULL,
    draws      INTEGER NOT NULL
);
INSERT INTO totals (id, games, black_wins, white_wins, draws) VALUES (1, 0, 0, 0, 0);

CREATE TABLE merged_shards (
    shard_id  TEXT PRIMARY KEY,
    path      TEXT    NOT NULL,
    games     INTEGER NOT NULL,
    merged_at TEXT    NOT NULL,
    via       TEXT    NOT NULL DEFAULT ''
) WITHOUT ROWID;

CREATE TABLE generations (
    gen         INTEGER PRIMARY KEY,
    games       INTEGER NOT NULL,
    rows        INTEGER NOT NULL,
    fit_seconds REAL    NOT NULL,
    auc         REAL    NOT NULL,
    score       REAL    NOT NULL,
    score_low   REAL    NOT NULL,
    score_high  REAL    NOT NULL,
    model       TEXT    NOT NULL,
    seed        INTEGER NOT NULL,
    created     TEXT    NOT NULL
);
