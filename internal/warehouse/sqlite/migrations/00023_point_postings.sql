-- +goose Up
-- Postings of metric point labels, in the shape of the span postings
-- (00014_span_postings.sql): each write of points adds a run of rows keyed
-- (run, environment, 63-bit hash of label key and value, base seq), with
-- n, the list's length, min_ts / max_ts, its points' earliest and latest
-- event time, and a JSON array of seq offsets; the background merge copies
-- runs into bigger ones. A label equality or in-list, with other filters,
-- then reads the points its lists name instead of every point of the
-- range (pointplan.go).
CREATE TABLE point_posting_runs (
	run       INTEGER PRIMARY KEY,
	level     INTEGER NOT NULL,
	first_seq INTEGER NOT NULL,
	last_seq  INTEGER NOT NULL,
	min_ts    INTEGER NOT NULL,
	max_ts    INTEGER NOT NULL
);
CREATE INDEX point_posting_runs_level ON point_posting_runs (level, run);
CREATE TABLE point_postings (
	run         INTEGER NOT NULL,
	environment TEXT    NOT NULL,
	hash        INTEGER NOT NULL,
	base        INTEGER NOT NULL,
	n           INTEGER NOT NULL,
	min_ts      INTEGER NOT NULL,
	max_ts      INTEGER NOT NULL,
	offsets     TEXT    NOT NULL,
	PRIMARY KEY (run, environment, hash, base)
) WITHOUT ROWID;
-- The points stored before this version are in no list: min_ts and max_ts
-- are the earliest and latest event time among them (NULL: there were
-- none), and a query whose range reaches between them reads as before.
CREATE TABLE point_postings_from (min_ts INTEGER, max_ts INTEGER);
INSERT INTO point_postings_from SELECT min(event_time), max(event_time) FROM metric_points;
