-- +goose Up
-- Dedup keys ordered by time: (time, key) in a WITHOUT ROWID table, time
-- the span's start or the point's event time (Unix ms). A write's keys
-- land near the end of the table, so its commit dirties a few pages of
-- it, where random 64-bit keys spread every write over the whole table
-- and the WAL wrote nearly every page of it for each commit.
CREATE TABLE span_keys_by_time (ts INTEGER NOT NULL, key INTEGER NOT NULL, PRIMARY KEY (ts, key)) WITHOUT ROWID;
CREATE TABLE point_keys_by_time (ts INTEGER NOT NULL, key INTEGER NOT NULL, PRIMARY KEY (ts, key)) WITHOUT ROWID;
-- The keys written before stay in span_keys and point_keys. Only spans and
-- points no later than what was stored then can be among them: writes
-- check the old tables for those (max_ts NULL: nothing to check).
CREATE TABLE legacy_keys (tbl TEXT PRIMARY KEY, max_ts INTEGER);
INSERT INTO legacy_keys SELECT 'span_keys', max(timestamp) FROM spans WHERE EXISTS (SELECT 1 FROM span_keys);
INSERT INTO legacy_keys SELECT 'point_keys', max(event_time) FROM metric_points WHERE EXISTS (SELECT 1 FROM point_keys);
