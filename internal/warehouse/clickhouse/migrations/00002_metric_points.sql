-- +goose Up
-- +goose NO TRANSACTION
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
