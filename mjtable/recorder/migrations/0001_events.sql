-- 0001: the recorder's first schema (events by table and event id, table status, complete game records).
-- IF NOT EXISTS: a database written before migrations existed already has these tables and is adopted as is.
-- Portable SQL: the same file runs on SQLite and PostgreSQL.
CREATE TABLE IF NOT EXISTS events (
    table_id TEXT NOT NULL,
    event_id TEXT NOT NULL,
    game_id TEXT,
    seq BIGINT,
    type TEXT NOT NULL,
    ts_s DOUBLE PRECISION,
    payload TEXT NOT NULL,
    received_s DOUBLE PRECISION,
    PRIMARY KEY (table_id, event_id)
);
CREATE INDEX IF NOT EXISTS events_game ON events (game_id, seq);
CREATE TABLE IF NOT EXISTS table_status (
    table_id TEXT PRIMARY KEY,
    status TEXT NOT NULL,
    ts_s DOUBLE PRECISION
);
CREATE TABLE IF NOT EXISTS game_records (
    table_id TEXT NOT NULL,
    game_id TEXT NOT NULL,
    rules TEXT,
    payload TEXT NOT NULL,
    received_s DOUBLE PRECISION,
    PRIMARY KEY (table_id, game_id)
);
