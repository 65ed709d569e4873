-- +goose Up
-- Resource attribute sets, stored once and shared by their spans.
CREATE TABLE resources (
	id         INTEGER PRIMARY KEY,
	hash       INTEGER NOT NULL,
	attributes TEXT    NOT NULL
);
CREATE INDEX resources_hash ON resources (hash);

-- seq is the insertion sequence number, assigned by the writer (keyset
-- pagination and snapshots rely on it only growing).
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
	evaluations         TEXT    NOT NULL
);

-- Time-range scans in (timestamp, seq) order, the keyset of the default
-- sort; span_name rides along so that name filters are evaluated on the
-- index before the row is read.
CREATE INDEX spans_env_time ON spans (environment, timestamp, seq, span_name);

-- Equality index of span attributes and trace ids, as posting lists: per
-- write, per hour of span time and per 31-bit hash of (environment, key,
-- value), the spans' sequence numbers as base + a JSON array of offsets.
-- Hour first keeps inserts local (the current hours stay in the page cache,
-- where a trace_id index would insert at random); queries seek each hour of
-- their range. Hash collisions are harmless: queries re-check the condition.
CREATE TABLE span_attr_index (
	hour    INTEGER NOT NULL,
	hash    INTEGER NOT NULL,
	base    INTEGER NOT NULL,
	offsets TEXT    NOT NULL,
	PRIMARY KEY (hour, hash, base)
) WITHOUT ROWID;
