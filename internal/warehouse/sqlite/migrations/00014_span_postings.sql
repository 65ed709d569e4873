-- +goose Up
-- Equality index of span attributes, the trace id and the columns queries
-- filter on (workflow, entity, agent, service, span name, models, status),
-- as posting lists: per write, hour of span time, environment and 63-bit
-- hash of (key, value), the spans' sequence numbers as base + a JSON array
-- of offsets, with n, their number, and min_ts / max_ts, their earliest
-- and latest start (Unix ms). Hour first keeps inserts local. The
-- environment in the key keeps every tenant's lists apart, and the wide
-- hash makes a list's length the number of spans holding its value, so
-- total_results of an equality filter is a sum of lengths (the lists that
-- cross an end of the range are read and checked). See attrindex.go.
CREATE TABLE span_postings (
	hour        INTEGER NOT NULL,
	environment TEXT    NOT NULL,
	hash        INTEGER NOT NULL,
	base        INTEGER NOT NULL,
	n           INTEGER NOT NULL,
	min_ts      INTEGER NOT NULL,
	max_ts      INTEGER NOT NULL,
	offsets     TEXT    NOT NULL,
	PRIMARY KEY (hour, environment, hash, base)
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
-- a page needs (see spanplan.go): numbers in 16 linear buckets per factor
-- of 16 (negative ones in bucket -1), trace ids by their first hex digit.
-- The buckets are CASE expressions, not function calls: an index on a
-- function makes every multi-row INSERT keep a statement journal, which
-- cost the writer three times its work.
CREATE INDEX spans_env_duration ON spans (environment, (CASE WHEN duration < 0 THEN -1 WHEN duration < 256 THEN 0 + duration / 16 WHEN duration < 4096 THEN 16 + duration / 256 WHEN duration < 65536 THEN 32 + duration / 4096 WHEN duration < 1048576 THEN 48 + duration / 65536 WHEN duration < 16777216 THEN 64 + duration / 1048576 WHEN duration < 268435456 THEN 80 + duration / 16777216 ELSE 96 + duration / 268435456 END), seq, duration, timestamp);
CREATE INDEX spans_env_tokens ON spans (environment, (CASE WHEN total_tokens < 0 THEN -1 WHEN total_tokens < 256 THEN 0 + total_tokens / 16 WHEN total_tokens < 4096 THEN 16 + total_tokens / 256 WHEN total_tokens < 65536 THEN 32 + total_tokens / 4096 WHEN total_tokens < 1048576 THEN 48 + total_tokens / 65536 WHEN total_tokens < 16777216 THEN 64 + total_tokens / 1048576 WHEN total_tokens < 268435456 THEN 80 + total_tokens / 16777216 ELSE 96 + total_tokens / 268435456 END), seq, total_tokens, timestamp);
CREATE INDEX spans_env_trace ON spans (environment, (CASE WHEN trace_id < '1' THEN 0 WHEN trace_id < '2' THEN 1 WHEN trace_id < '3' THEN 2 WHEN trace_id < '4' THEN 3 WHEN trace_id < '5' THEN 4 WHEN trace_id < '6' THEN 5 WHEN trace_id < '7' THEN 6 WHEN trace_id < '8' THEN 7 WHEN trace_id < '9' THEN 8 WHEN trace_id < 'a' THEN 9 WHEN trace_id < 'b' THEN 10 WHEN trace_id < 'c' THEN 11 WHEN trace_id < 'd' THEN 12 WHEN trace_id < 'e' THEN 13 WHEN trace_id < 'f' THEN 14 ELSE 15 END), seq, trace_id, timestamp);
CREATE INDEX spans_env_workflow ON spans (environment, workflow_name, seq, timestamp);
CREATE INDEX spans_env_entity ON spans (environment, entity_name, seq, timestamp);
CREATE INDEX spans_env_model ON spans (environment, response_model, seq, timestamp);
