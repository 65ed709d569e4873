-- +goose Up
-- +goose NO TRANSACTION
-- Spans. Timestamps are Int64 Unix ms; seq is the insertion sequence
-- number (see seqClock); ver = maxInt64 - seq makes ReplacingMergeTree keep
-- the first insertion of a row. A span is (environment, trace_id,
-- span_id); a re-sent span has the same timestamp, so the sort key both
-- serves time-range scans and identifies duplicates. Spans are wide
-- (attribute arrays): small granules keep the rows read for a narrow time
-- range few.
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
	input String, output String, evaluations String
) ENGINE = {{engine "ReplacingMergeTree" "spans" "ver"}} PARTITION BY intDiv(timestamp, 604800000) ORDER BY (environment, timestamp, trace_id, span_id) SETTINGS index_granularity = 1024;
{{distributed "spans" "sipHash64(environment, trace_id)"}}
