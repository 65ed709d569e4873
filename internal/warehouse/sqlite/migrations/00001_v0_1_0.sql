-- +goose Up
-- The schema of evalcol v0.1.0. A new table, column or index is a new file
-- with the next number (00002_...); a file that has run is never edited.
-- See internal/warehouse/README.md for how each table is used.

-- Resource attribute sets, stored once and shared by their spans.
CREATE TABLE resources (
	id         INTEGER PRIMARY KEY,
	hash       INTEGER NOT NULL,
	attributes TEXT    NOT NULL
);
CREATE INDEX resources_hash ON resources (hash);

-- seq is the insertion sequence number, assigned by the writer (keyset
-- pagination and snapshots rely on it only growing).
-- Each prompt and completion text is stored once, in span_attributes: for
-- a span whose content was derived from its attributes (as the exporter
-- writes them), prompts and completions hold '' and are derived again at
-- read (internal/genai), and input / output hold '' while input_key /
-- output_key name the span attribute that holds the text verbatim; the
-- text stays in input / output only when no attribute holds it (e.g. a
-- text taken out of gen_ai.input.messages JSON), for filters. verdicts is
-- the verdict index of the span's evaluation results
-- (warehouse.VerdictIndex), which verdict filters search.
CREATE TABLE spans (
	seq                 INTEGER PRIMARY KEY,
	environment         TEXT    NOT NULL,
	timestamp           INTEGER NOT NULL,
	duration            INTEGER NOT NULL,
	total_tokens        INTEGER NOT NULL,
	trace_id            TEXT    NOT NULL,
	span_id             TEXT    NOT NULL,
	parent_span_id      TEXT    NOT NULL,
	trace_state         TEXT    NOT NULL,
	span_name           TEXT    NOT NULL,
	span_kind           TEXT    NOT NULL,
	service_name        TEXT    NOT NULL,
	scope_name          TEXT    NOT NULL,
	scope_version       TEXT    NOT NULL,
	status_code         TEXT    NOT NULL,
	status_message      TEXT    NOT NULL,
	workflow_name       TEXT    NOT NULL,
	entity_name         TEXT    NOT NULL,
	agent_name          TEXT    NOT NULL,
	request_model       TEXT    NOT NULL,
	response_model      TEXT    NOT NULL,
	vendor              TEXT    NOT NULL,
	resource_id         INTEGER NOT NULL,
	span_attributes     TEXT    NOT NULL,
	prompts             TEXT    NOT NULL,
	completions         TEXT    NOT NULL,
	input               TEXT    NOT NULL,
	output              TEXT    NOT NULL,
	evaluations         TEXT    NOT NULL,
	verdicts            TEXT    NOT NULL DEFAULT '',
	input_key           TEXT    NOT NULL DEFAULT '',
	output_key          TEXT    NOT NULL DEFAULT ''
);
-- Time-range scans in (timestamp, seq) order, the keyset of the default
-- sort; span_name rides along so that name filters are evaluated on the
-- index before the row is read.
CREATE INDEX spans_env_time ON spans (environment, timestamp, seq, span_name);
-- One index per sort key other than time (see spanplan.go), so that a
-- page sorted by it reads the top of the index, not every span of the
-- range. Each puts a write's entries at a few places only (the end of
-- each value's or bucket's entries, sequence numbers growing): numeric
-- keys and the trace id are indexed by bucket, their exact order sorted at
-- read time within the few buckets a page needs. Numbers go in 16 linear
-- buckets per factor of 16 (negative ones in bucket -1), trace ids in 16
-- by their first hex digit; within a bucket, entries go by hour of start
-- time, so a read of a range seeks its hours of each bucket. The buckets
-- are CASE expressions, not function calls (an index on a function makes
-- every multi-row INSERT keep a statement journal), and must stay the
-- same text as numberBucket and traceBucket in spanplan.go.
CREATE INDEX spans_env_workflow ON spans (environment, workflow_name, seq, timestamp);
CREATE INDEX spans_env_entity ON spans (environment, entity_name, seq, timestamp);
CREATE INDEX spans_env_model ON spans (environment, response_model, seq, timestamp);
CREATE INDEX spans_env_trace ON spans (environment, (CASE WHEN trace_id < '1' THEN 0 WHEN trace_id < '2' THEN 1 WHEN trace_id < '3' THEN 2 WHEN trace_id < '4' THEN 3 WHEN trace_id < '5' THEN 4 WHEN trace_id < '6' THEN 5 WHEN trace_id < '7' THEN 6 WHEN trace_id < '8' THEN 7 WHEN trace_id < '9' THEN 8 WHEN trace_id < 'a' THEN 9 WHEN trace_id < 'b' THEN 10 WHEN trace_id < 'c' THEN 11 WHEN trace_id < 'd' THEN 12 WHEN trace_id < 'e' THEN 13 WHEN trace_id < 'f' THEN 14 ELSE 15 END), timestamp / 3600000, seq, trace_id, timestamp);
-- Pages sorted by span name: each hour's spans in (span_name, seq) order,
-- merged at read time (mergeNames in spanplan.go); hour first, so a
-- commit dirties only the current hour's part of the index.
CREATE INDEX spans_env_hour_name ON spans (environment, timestamp / 3600000, span_name, seq, timestamp);
CREATE INDEX spans_env_duration ON spans (environment, (CASE WHEN duration < 0 THEN -1 WHEN duration < 256 THEN 0 + duration / 16 WHEN duration < 4096 THEN 16 + duration / 256 WHEN duration < 65536 THEN 32 + duration / 4096 WHEN duration < 1048576 THEN 48 + duration / 65536 WHEN duration < 16777216 THEN 64 + duration / 1048576 WHEN duration < 268435456 THEN 80 + duration / 16777216 ELSE 96 + duration / 268435456 END), timestamp / 3600000, seq, duration, timestamp);
CREATE INDEX spans_env_tokens ON spans (environment, (CASE WHEN total_tokens < 0 THEN -1 WHEN total_tokens < 256 THEN 0 + total_tokens / 16 WHEN total_tokens < 4096 THEN 16 + total_tokens / 256 WHEN total_tokens < 65536 THEN 32 + total_tokens / 4096 WHEN total_tokens < 1048576 THEN 48 + total_tokens / 65536 WHEN total_tokens < 16777216 THEN 64 + total_tokens / 1048576 WHEN total_tokens < 268435456 THEN 80 + total_tokens / 16777216 ELSE 96 + total_tokens / 268435456 END), timestamp / 3600000, seq, total_tokens, timestamp);

CREATE TABLE metric_points (
	seq             INTEGER PRIMARY KEY,
	environment     TEXT    NOT NULL,
	organization_id TEXT    NOT NULL,
	metric_name     TEXT    NOT NULL,
	source          TEXT    NOT NULL,
	event_time      INTEGER NOT NULL,
	bool_value      INTEGER,
	numeric_value   REAL,
	enum_value      TEXT,
	trace_id        TEXT    NOT NULL,
	span_id         TEXT    NOT NULL,
	labels          TEXT    NOT NULL,
	attributes      TEXT    NOT NULL
);
CREATE INDEX metric_points_env_time ON metric_points (environment, event_time);
CREATE INDEX metric_points_env_name_time ON metric_points (environment, metric_name, event_time);
-- Pages sorted by numeric value: each hour of the range in value order,
-- merged (pointplan.go); a commit's points land in the pages of their hour.
CREATE INDEX metric_points_env_hour_value ON metric_points (environment, event_time / 3600000, numeric_value, seq);

-- 64-bit dedup keys of the stored spans and points (see dedupKey), ordered
-- by time (ts: the span's start or the point's event time, Unix ms), so a
-- write's keys land near the end of the table: a retried write skips what
-- is already stored. content is a hash of each span's content
-- (spanContentHash), so that a resent span that differs from the stored
-- one (a conflict, reported to the sender) is told from an identical
-- resend by reading one row.
CREATE TABLE span_keys_by_time (ts INTEGER NOT NULL, key INTEGER NOT NULL, content INTEGER, PRIMARY KEY (ts, key)) WITHOUT ROWID;
CREATE TABLE point_keys_by_time (ts INTEGER NOT NULL, key INTEGER NOT NULL, PRIMARY KEY (ts, key)) WITHOUT ROWID;

-- Auto monitor setups as JSON documents; updates are compare-and-set on
-- version. external_id is unique within a project when set.
CREATE TABLE monitor_setups (
	seq          INTEGER PRIMARY KEY,
	id           TEXT    NOT NULL UNIQUE,
	environment  TEXT    NOT NULL,
	project_id   TEXT    NOT NULL,
	external_id  TEXT    NOT NULL,
	entity_type  TEXT    NOT NULL,
	entity_value TEXT    NOT NULL,
	status       TEXT    NOT NULL,
	version      INTEGER NOT NULL,
	document     TEXT    NOT NULL
);
CREATE INDEX monitor_setups_env ON monitor_setups (environment, seq);
CREATE UNIQUE INDEX monitor_setups_external_id ON monitor_setups (environment, project_id, external_id) WHERE external_id != '';

-- Organizations made at run time (POST /v2/organizations), as JSON
-- documents; updates are compare-and-set on version.
CREATE TABLE organizations (
	seq      INTEGER PRIMARY KEY,
	id       TEXT    NOT NULL UNIQUE,
	version  INTEGER NOT NULL,
	document TEXT    NOT NULL
);
-- Runtime API keys: only the SHA-256 digest of each secret.
CREATE TABLE api_keys (
	seq         INTEGER PRIMARY KEY,
	id          TEXT    NOT NULL UNIQUE,
	digest      TEXT    NOT NULL UNIQUE,
	org_id      TEXT    NOT NULL,
	env_slug    TEXT    NOT NULL,
	environment TEXT    NOT NULL,
	project_id  TEXT    NOT NULL,
	created_at  INTEGER NOT NULL,
	revoked_at  INTEGER
);
CREATE INDEX api_keys_org ON api_keys (org_id, seq);

-- The collectors' monitoring status counters: one row per environment and
-- collector, replaced on every report (times in Unix ms, 0 for never).
CREATE TABLE pipeline_status (
	environment           TEXT    NOT NULL,
	collector_id          TEXT    NOT NULL,
	reported_at           INTEGER NOT NULL,
	latest_stored         INTEGER NOT NULL,
	last_evaluated_stored INTEGER NOT NULL,
	pending               INTEGER NOT NULL,
	oldest_pending        INTEGER NOT NULL,
	lost                  INTEGER NOT NULL,
	last_lost             INTEGER NOT NULL,
	last_eval_ok          INTEGER NOT NULL,
	last_eval_failed      INTEGER NOT NULL,
	last_eval_error       TEXT    NOT NULL,
	last_write_ok         INTEGER NOT NULL,
	last_write_failed     INTEGER NOT NULL,
	last_write_error      TEXT    NOT NULL,
	PRIMARY KEY (environment, collector_id)
) WITHOUT ROWID;

-- One row per run of the retention job and table ('spans',
-- 'metric_points'): the cutoff it computed (Unix ms: rows older than that
-- are out of the retention), the sequence number it reserved (one above
-- every row then stored; writers continue above the highest mark, so
-- numbers are never reused even when the newest rows are deleted) and when
-- it ran (Unix ms). A page of a pagination whose snapshot is S hides the
-- rows older than the cutoff of the newest mark with seq <= S, the same on
-- every page; the job deletes rows only once they are older than the
-- cutoff of a mark at least the grace period old. See README.md,
-- "Retention".
CREATE TABLE retention_marks (
	tbl    TEXT    NOT NULL,
	seq    INTEGER NOT NULL,
	cutoff INTEGER NOT NULL,
	at     INTEGER NOT NULL,
	PRIMARY KEY (tbl, seq)
) WITHOUT ROWID;

-- Small values shared by the collectors of the warehouse (the console's
-- session secret): written once, read on start.
CREATE TABLE settings (
	key     TEXT    PRIMARY KEY,
	value   BLOB    NOT NULL,
	created INTEGER NOT NULL DEFAULT (unixepoch())
);

-- Spans per environment and minute of start time (Unix ms / 60 000,
-- rounded down), kept in the same transaction as the spans by every write
-- and retention delete: total_results and the choice of an access path
-- sum minutes instead of counting spans (counts.go).
CREATE TABLE span_counts (
	environment TEXT    NOT NULL,
	minute      INTEGER NOT NULL,
	n           INTEGER NOT NULL,
	PRIMARY KEY (environment, minute)
) WITHOUT ROWID;

-- Equality index of span attributes and keys, resource attributes, the
-- trace id and the columns queries filter on, as posting lists in runs, a
-- log-structured merge: each write adds a run (level 0) of rows keyed
-- (run, environment, 63-bit hash of key and value, base seq), with n, the
-- list's length, min_ts / max_ts, its spans' earliest and latest start
-- (Unix ms), and a JSON array of seq offsets. Attribute keys are listed
-- under the hash of "\x01" + key and the empty value (exists filters),
-- resource attributes under "\x02" + key and value. A run's number is
-- above every other, so its rows go to the end of the table; a background
-- merge copies 16 runs of a level into one of the next (up to level 2).
-- See attrindex.go and merge.go.
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

-- point_counts counts the metric points of each hour (floor of event_time
-- / 3 600 000): the rows with key '' and value '' count them by metric
-- name and source; a row whose key is a label key, or "\x01" + an
-- attribute key (metric_name ''), counts by source the points whose
-- labels or attributes hold that key with that value. A key with more
-- than 1 024 values in one hour (an id, free text) is listed in
-- point_uncounted_keys: from then on its rows are neither written nor
-- read, and filters on it read the points (pointcounts.go).
CREATE TABLE point_counts (
	environment TEXT    NOT NULL,
	hour        INTEGER NOT NULL,
	key         TEXT    NOT NULL,
	value       TEXT    NOT NULL,
	metric_name TEXT    NOT NULL,
	source      TEXT    NOT NULL,
	n           INTEGER NOT NULL,
	PRIMARY KEY (environment, hour, key, value, metric_name, source)
) WITHOUT ROWID;
CREATE TABLE point_uncounted_keys (
	environment TEXT NOT NULL,
	key         TEXT NOT NULL,
	PRIMARY KEY (environment, key)
) WITHOUT ROWID;

-- The distinct values of each span attribute key, hour by hour (a value
-- recorded with the first span that carries it in an hour), so that a
-- filter other than equality on an attribute is first resolved against
-- the values of its key in the range's hours (values.go). key_hash is
-- valueKeyHash of the environment and key. value has no declared type, so
-- that "2900" stays the text the span sent.
CREATE TABLE span_values (
	hour INTEGER NOT NULL,
	key_hash INTEGER NOT NULL,
	seq INTEGER NOT NULL,
	value NOT NULL,
	PRIMARY KEY (hour, key_hash, seq)
) WITHOUT ROWID;
-- The keys that carried, in an hour, a value the postings do not list
-- (longer than maxIndexedValue, or not valid UTF-8): their filters read
-- the spans of such hours.
CREATE TABLE span_value_gaps (
	hour INTEGER NOT NULL,
	key_hash INTEGER NOT NULL,
	PRIMARY KEY (hour, key_hash)
) WITHOUT ROWID;

-- Postings of metric point labels, in the shape of the span postings:
-- a label equality or in-list, with other filters, reads the points its
-- lists name instead of every point of the range (pointplan.go).
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

-- Console sessions, shared by every collector of the warehouse: a logout
-- or a revoked key ends a session everywhere. Only the SHA-256 of the
-- session token is stored. Rows are deleted once expired (PurgeSessions).
CREATE TABLE console_sessions (
	token_hash  TEXT    PRIMARY KEY,
	environment TEXT    NOT NULL,
	org_id      TEXT    NOT NULL,
	project_id  TEXT    NOT NULL,
	key_digest  TEXT    NOT NULL,
	key_id      TEXT    NOT NULL,
	created_at  INTEGER NOT NULL,
	expires_at  INTEGER NOT NULL
) WITHOUT ROWID;
CREATE INDEX console_sessions_expiry ON console_sessions (expires_at);

-- Small JSON documents that features keep per tenant (annotation tasks,
-- datasets, ...): see warehouse.Document. seq orders them by creation; a
-- slug is unique among the documents of a kind and scope that have one.
CREATE TABLE documents (
	seq        INTEGER PRIMARY KEY,
	kind       TEXT    NOT NULL,
	scope      TEXT    NOT NULL,
	id         TEXT    NOT NULL,
	slug       TEXT    NOT NULL,
	version    INTEGER NOT NULL,
	body       TEXT    NOT NULL,
	created_at INTEGER NOT NULL,
	updated_at INTEGER NOT NULL
);
CREATE UNIQUE INDEX documents_id ON documents (kind, scope, id);
CREATE UNIQUE INDEX documents_slug ON documents (kind, scope, slug) WHERE slug != '';
-- Pages of a kind and scope in creation order (a dataset's rows).
CREATE INDEX documents_order ON documents (kind, scope, seq);

-- Full-text search in prompts and completions (SpanQuery.Text, the `q`
-- parameter): a contentless FTS5 index (the text stays in the span; the
-- index holds only words and their positions) with the unicode61
-- tokenizer (case-insensitive, diacritics kept, as warehouse.SearchPattern
-- reads them). rowid = spans.seq. The writer adds each span's
-- warehouse.SearchText in its transaction; the retention deletes with the
-- span (contentless_delete).
CREATE VIRTUAL TABLE span_text USING fts5(text, content='', contentless_delete=1, tokenize='unicode61 remove_diacritics 0');

-- Evaluation counts (warehouse.EvaluationCounter, evalcounts.go): one row
-- per environment, width (minute or hour), row start, evaluator, verdict,
-- workflow, monitor and score bin with the number of results and the sum
-- of their scores; monitor_last_evaluations the latest end time of a span
-- each monitor evaluated. Both change in the transaction of every span
-- write, evaluation append and retention delete.
CREATE TABLE evaluation_counts (
	environment TEXT NOT NULL, width INTEGER NOT NULL, bucket INTEGER NOT NULL,
	evaluator TEXT NOT NULL, verdict TEXT NOT NULL, workflow TEXT NOT NULL,
	monitor_id TEXT NOT NULL, bin INTEGER NOT NULL,
	n INTEGER NOT NULL, total REAL NOT NULL,
	PRIMARY KEY (environment, width, bucket, evaluator, verdict, workflow, monitor_id, bin)
) WITHOUT ROWID;
CREATE TABLE monitor_last_evaluations (
	environment TEXT NOT NULL, monitor_id TEXT NOT NULL, last_ms INTEGER NOT NULL,
	PRIMARY KEY (environment, monitor_id)
) WITHOUT ROWID;

-- Span stats (warehouse.SpanStatter, spanstats.go): one row per
-- environment, width (minute, hour or six hours), row start, workflow,
-- model and latency bin with the number of spans, of error spans, and
-- their input and output tokens; changed with every span write and
-- retention delete.
CREATE TABLE span_stats (
	environment TEXT NOT NULL, width INTEGER NOT NULL, bucket INTEGER NOT NULL,
	workflow TEXT NOT NULL, model TEXT NOT NULL, bin INTEGER NOT NULL,
	n INTEGER NOT NULL, errors INTEGER NOT NULL, input_tokens INTEGER NOT NULL, output_tokens INTEGER NOT NULL,
	PRIMARY KEY (environment, width, bucket, workflow, model, bin)
) WITHOUT ROWID;
