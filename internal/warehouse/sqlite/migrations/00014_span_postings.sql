-- +goose Up
-- Equality index of span attributes, the trace id and the columns queries
-- filter on (workflow, entity, agent, service, span name, models, status),
-- as posting lists in runs, a log-structured merge: each write adds a run
-- (level 0) of rows keyed (run, environment, 63-bit hash of key and value,
-- base seq), with n, the list's length, min_ts / max_ts, its spans'
-- earliest and latest start (Unix ms), and a JSON array of seq offsets.
-- A run's number is above every other, so its rows go to the end of the
-- table: a commit writes a few pages of it, where lists keyed by hash first
-- landed each on a page of its own and were the writer's main cost. A
-- background merge copies 16 runs of a level into one of the next (up to
-- level 2), so a query seeks a few dozen runs, not one per write. The
-- environment in the key keeps every tenant's lists apart, and the wide
-- hash makes a list's length the number of spans holding its value, so
-- total_results of an equality filter is a sum of lengths (the lists that
-- cross an end of the range are read and checked). See attrindex.go and
-- merge.go.
CREATE TABLE posting_runs (
	run       INTEGER PRIMARY KEY,
	level     INTEGER NOT NULL,
	first_seq INTEGER NOT NULL,
	last_seq  INTEGER NOT NULL,
	min_ts    INTEGER NOT NULL,
	max_ts    INTEGER NOT NULL
);
CREATE INDEX posting_runs_level ON posting_runs (level, run);
CREATE TABLE span_postings (
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

-- span_attr_index keeps the lists of the spans written before this
-- version (31-bit hashes of environment, key and value; no columns but the
-- trace id); queries that reach its hours read it too, and count by
-- reading the spans. max_hour is its last hour (NULL: empty).
CREATE TABLE legacy_attr_index (max_hour INTEGER);
INSERT INTO legacy_attr_index SELECT max(hour) FROM span_attr_index;

-- One index per sort key other than time and span name (the time index
-- holds the name: a page sorted by it is the top of the range's entries
-- there), so that a page sorted by it reads the top of the index, not
-- every span of the range. Each index
-- puts a write's entries at a few places only (the end of each value's or
-- bucket's entries, sequence numbers growing), as the time index does: an
-- index in exact (duration, seq) order would put every entry of a commit
-- on a page of its own. So the numeric keys and the trace id are indexed
-- by bucket, their exact order sorted at read time within the few buckets
-- a page needs (see spanplan.go): numbers in 8 linear buckets per factor
-- of 16 (negative ones in bucket -1), trace ids in 4 by their first hex
-- digit. A commit dirties about one page per bucket it writes to, so
-- fewer buckets cost the writer less and a read more. Within a bucket,
-- entries go by hour of start time (timestamp / 3600000), so a read of a
-- range seeks its hours of each bucket; a write still lands at one place
-- per bucket, the current hour's end.
-- The buckets are CASE expressions, not function calls: an index on a
-- function makes every multi-row INSERT keep a statement journal, which
-- cost the writer three times its work.
CREATE INDEX spans_env_duration ON spans (environment, (CASE WHEN duration < 0 THEN -1 WHEN duration < 256 THEN 0 + duration / 32 WHEN duration < 4096 THEN 8 + duration / 512 WHEN duration < 65536 THEN 16 + duration / 8192 WHEN duration < 1048576 THEN 24 + duration / 131072 WHEN duration < 16777216 THEN 32 + duration / 2097152 WHEN duration < 268435456 THEN 40 + duration / 33554432 ELSE 48 + duration / 536870912 END), timestamp / 3600000, seq, duration, timestamp);
CREATE INDEX spans_env_tokens ON spans (environment, (CASE WHEN total_tokens < 0 THEN -1 WHEN total_tokens < 256 THEN 0 + total_tokens / 32 WHEN total_tokens < 4096 THEN 8 + total_tokens / 512 WHEN total_tokens < 65536 THEN 16 + total_tokens / 8192 WHEN total_tokens < 1048576 THEN 24 + total_tokens / 131072 WHEN total_tokens < 16777216 THEN 32 + total_tokens / 2097152 WHEN total_tokens < 268435456 THEN 40 + total_tokens / 33554432 ELSE 48 + total_tokens / 536870912 END), timestamp / 3600000, seq, total_tokens, timestamp);
CREATE INDEX spans_env_trace ON spans (environment, (CASE WHEN trace_id < '4' THEN 0 WHEN trace_id < '8' THEN 1 WHEN trace_id < 'c' THEN 2 ELSE 3 END), timestamp / 3600000, seq, trace_id, timestamp);
CREATE INDEX spans_env_workflow ON spans (environment, workflow_name, seq, timestamp);
CREATE INDEX spans_env_entity ON spans (environment, entity_name, seq, timestamp);
CREATE INDEX spans_env_model ON spans (environment, response_model, seq, timestamp);
