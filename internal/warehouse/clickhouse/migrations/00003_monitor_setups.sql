-- +goose Up
-- +goose NO TRANSACTION
-- Monitor setups: one row per change, the whole setup as JSON plus the
-- columns it is filtered and made unique by; deleted = 1 rows are
-- tombstones.
CREATE TABLE IF NOT EXISTS {{table "monitor_setups"}} (
	environment String, id String, row_ver Int64, deleted UInt8, created_seq Int64,
	external_id String, project_id String, entity_type String, entity_value String, status String,
	version Int64, body String
) ENGINE = {{engine "ReplacingMergeTree" "monitor_setups" "row_ver"}} ORDER BY (environment, id);
{{distributed "monitor_setups" "sipHash64(environment, id)"}}
