-- 0002: which recorder stored each event (several recorders share one subscription; the first insert of an
-- event id wins), and an index for the standings, which read only hand results and game ends.
ALTER TABLE events ADD COLUMN stored_by TEXT;
CREATE INDEX IF NOT EXISTS events_type ON events (type, table_id);
