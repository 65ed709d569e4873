-- +goose Up
-- +goose NO TRANSACTION
-- The collectors' monitoring status counters: one row per environment and
-- collector per report; readers take the latest of each collector (times
-- in Unix ms, 0 for never).
CREATE TABLE IF NOT EXISTS {{table "pipeline_status"}} (
	environment String, collector_id String, reported_at Int64, latest_stored Int64, last_evaluated_stored Int64,
	pending Int64, oldest_pending Int64, lost Int64, last_lost Int64, last_eval_ok Int64, last_eval_failed Int64,
	last_eval_error String, last_write_ok Int64, last_write_failed Int64, last_write_error String
) ENGINE = {{engine "ReplacingMergeTree" "pipeline_status" "reported_at"}} ORDER BY (environment, collector_id);
{{distributed "pipeline_status" "sipHash64(environment)"}}
