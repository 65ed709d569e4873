-- +goose Up
-- +goose NO TRANSACTION
-- The schema of evalcol v0.1.0. A new table or column is a new file with
-- the next number (00002_...); a file that has run is never edited. Every
-- statement is idempotent (IF NOT EXISTS), so collectors starting at the
-- same time may run it twice without harm.

-- Spans. Timestamps are Int64 Unix ms; seq is the insertion sequence
-- number (see seqClock); ver = maxInt64 - seq makes ReplacingMergeTree keep
-- the first insertion of a row. A span is (environment, trace_id,
-- span_id); a re-sent span has the same timestamp, so the sort key both
-- serves time-range scans and identifies duplicates. Spans are wide
-- (attribute arrays): small granules keep the rows read for a narrow time
-- range few. verdicts is the verdict index of the span's evaluation
-- results (warehouse.VerdictIndex), which verdict filters search;
-- content_hash is spanContentHash (never 0), so that a resent span with
-- other content (a conflicting duplicate) is told from an identical
-- resend.
CREATE TABLE IF NOT EXISTS {{table "spans"}} (
	environment String, timestamp Int64, seq Int64, ver UInt64,
	duration Int64, total_tokens Int64,
	trace_id String, span_id String, parent_span_id String, trace_state String,
	span_name String, span_kind String, service_name String, scope_name String, scope_version String,
	status_code String, status_message String,
	workflow_name String, entity_name String, agent_name String,
	request_model String, response_model String, vendor String,
	resource_keys Array(String), resource_values Array(String),
	attr_keys Array(String), attr_values Array(String),
	prompt_keys Array(String), prompt_values Array(String),
	completion_keys Array(String), completion_values Array(String),
	input String, output String, evaluations String,
	verdicts String, content_hash UInt64
) ENGINE = {{engine "ReplacingMergeTree" "spans" "ver"}} PARTITION BY intDiv(timestamp, 604800000) ORDER BY (environment, timestamp, trace_id, span_id) SETTINGS index_granularity = 1024;
{{distributed "spans" "sipHash64(environment, trace_id)"}}

-- Metric points. identity hashes the labels and attributes (sorted), the
-- rest of a point's identity is in the key.
CREATE TABLE IF NOT EXISTS {{table "metric_points"}} (
	environment String, organization_id String, metric_name String, source String,
	event_time Int64, seq Int64, ver UInt64,
	bool_value Nullable(UInt8), numeric_value Nullable(Float64), enum_value Nullable(String),
	trace_id String, span_id String,
	label_keys Array(String), label_values Array(String),
	attr_keys Array(String), attr_values Array(String),
	identity UInt64
) ENGINE = {{engine "ReplacingMergeTree" "metric_points" "ver"}} PARTITION BY intDiv(event_time, 604800000) ORDER BY (environment, event_time, metric_name, source, trace_id, span_id, identity) SETTINGS index_granularity = 1024;
{{distributed "metric_points" "sipHash64(environment, trace_id)"}}

-- Monitor setups: one row per change, the whole setup as JSON plus the
-- columns it is filtered and made unique by; deleted = 1 rows are
-- tombstones.
CREATE TABLE IF NOT EXISTS {{table "monitor_setups"}} (
	environment String, id String, row_ver Int64, deleted UInt8, created_seq Int64,
	external_id String, project_id String, entity_type String, entity_value String, status String,
	version Int64, body String
) ENGINE = {{engine "ReplacingMergeTree" "monitor_setups" "row_ver"}} ORDER BY (environment, id);
{{distributed "monitor_setups" "sipHash64(environment, id)"}}

-- The trace index: for every (environment, trace_id) of a WriteSpans
-- batch, the time range its spans cover. A trace_id filter first reads the
-- trace's range from here by primary key, then reads spans only within it
-- (spans are sorted by time, not trace). WriteSpans inserts here before the
-- spans, so every stored span's timestamp is covered; rows of re-sent
-- batches are equal and collapse. Lookups read one granule per part: keep
-- granules small. On a cluster it lives on the shard of the trace's spans.
CREATE TABLE IF NOT EXISTS {{table "span_traces"}} (
	environment String, trace_id String, min_ts Int64, max_ts Int64
) ENGINE = {{engine "ReplacingMergeTree" "span_traces" ""}} PARTITION BY intDiv(min_ts, 604800000) ORDER BY (environment, trace_id, min_ts, max_ts) SETTINGS index_granularity = 256;
{{distributed "span_traces" "sipHash64(environment, trace_id)"}}

-- Organizations made at run time: one JSON body per version, read as the
-- latest row_ver of each id.
CREATE TABLE IF NOT EXISTS {{table "organizations"}} (
	id String, row_ver Int64, created_seq Int64, version Int64, body String
) ENGINE = {{engine "ReplacingMergeTree" "organizations" "row_ver"}} ORDER BY id;
{{distributed "organizations" "sipHash64(id)"}}
-- Runtime API keys: only the SHA-256 digest of each secret. A revocation
-- inserts the key again with revoked_at set; readers take max(revoked_at)
-- per key, so revocation is final whatever order rows arrive in.
CREATE TABLE IF NOT EXISTS {{table "api_keys"}} (
	id String, row_ver Int64, digest String, org_id String, env_slug String, environment String,
	project_id String, created_at Int64, revoked_at Int64
) ENGINE = {{engine "ReplacingMergeTree" "api_keys" "row_ver"}} ORDER BY id;
{{distributed "api_keys" "sipHash64(id)"}}

-- The collectors' monitoring status counters: one row per environment and
-- collector per report; readers take the latest of each collector (times
-- in Unix ms, 0 for never).
CREATE TABLE IF NOT EXISTS {{table "pipeline_status"}} (
	environment String, collector_id String, reported_at Int64, latest_stored Int64, last_evaluated_stored Int64,
	pending Int64, oldest_pending Int64, lost Int64, last_lost Int64, last_eval_ok Int64, last_eval_failed Int64,
	last_eval_error String, last_write_ok Int64, last_write_failed Int64, last_write_error String
) ENGINE = {{engine "ReplacingMergeTree" "pipeline_status" "reported_at"}} ORDER BY (environment, collector_id);
{{distributed "pipeline_status" "sipHash64(environment)"}}

-- Small values shared by the collectors of the warehouse (the console's
-- session secret): written once, read on start. Collectors that
-- initialise a key at the same moment may both insert; readers take the
-- earliest value (created, then value) and accept every one.
CREATE TABLE IF NOT EXISTS {{table "settings"}} (
	key String, value String, created Int64
) ENGINE = {{engine "ReplacingMergeTree" "settings" ""}} ORDER BY (key, value);
{{distributed "settings" "sipHash64(key)"}}

-- Console sessions, shared by every collector of the warehouse. Only the
-- SHA-256 of the session token is stored. A logout inserts the session
-- again with ended_at set; readers take max(ended_at) per token, so a
-- logout is final whatever order rows arrive in. Expired rows are deleted
-- by PurgeSessions (ALTER TABLE ... DELETE: 18.16 has no TTL).
CREATE TABLE IF NOT EXISTS {{table "console_sessions"}} (
	token_hash String, row_ver Int64, environment String, org_id String, project_id String,
	key_digest String, key_id String, created_at Int64, expires_at Int64, ended_at Int64
) ENGINE = {{engine "ReplacingMergeTree" "console_sessions" "row_ver"}} ORDER BY token_hash;
{{distributed "console_sessions" "sipHash64(token_hash)"}}

-- Small JSON documents that features keep per tenant (warehouse.Document):
-- one row per change (row_ver, the collectors' sequence clock), deleted = 1
-- rows are tombstones; readers take the latest row of each id.
CREATE TABLE IF NOT EXISTS {{table "documents"}} (
	kind String, scope String, id String, row_ver Int64, deleted UInt8, created_seq Int64,
	slug String, version Int64, body String, created_at Int64, updated_at Int64
) ENGINE = {{engine "ReplacingMergeTree" "documents" "row_ver"}} ORDER BY (kind, scope, id);
{{distributed "documents" "sipHash64(kind, scope, id)"}}

-- Evaluation counts (warehouse.EvaluationCounter, evalcounts.go): a
-- SummingMergeTree keyed like SQLite's table whose n and total the server
-- sums in merges, partitioned by the week of its rows' start like spans;
-- monitor_last_evaluations keeps the highest last_ms per monitor.
CREATE TABLE IF NOT EXISTS {{table "evaluation_counts"}} (
	environment String, width Int64, bucket Int64, evaluator String, verdict String, workflow String,
	monitor_id String, bin Int64, n Int64, total Float64
) ENGINE = {{engine "SummingMergeTree" "evaluation_counts" ""}} PARTITION BY intDiv(bucket, 604800000)
ORDER BY (environment, width, bucket, evaluator, verdict, workflow, monitor_id, bin);
{{distributed "evaluation_counts" "sipHash64(environment)"}}
CREATE TABLE IF NOT EXISTS {{table "monitor_last_evaluations"}} (
	environment String, monitor_id String, last_ms Int64
) ENGINE = {{engine "ReplacingMergeTree" "monitor_last_evaluations" "last_ms"}} ORDER BY (environment, monitor_id);
{{distributed "monitor_last_evaluations" "sipHash64(environment)"}}

-- Span stats (warehouse.SpanStatter, spanstats.go): a SummingMergeTree
-- keyed like SQLite's table (widths minute, hour and six hours).
CREATE TABLE IF NOT EXISTS {{table "span_stats"}} (
	environment String, width Int64, bucket Int64, workflow String, model String, bin Int64,
	n Int64, errors Int64, input_tokens Int64, output_tokens Int64
) ENGINE = {{engine "SummingMergeTree" "span_stats" ""}} PARTITION BY intDiv(bucket, 604800000)
ORDER BY (environment, width, bucket, workflow, model, bin);
{{distributed "span_stats" "sipHash64(environment)"}}
