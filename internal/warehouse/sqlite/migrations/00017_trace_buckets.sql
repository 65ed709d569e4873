-- +goose Up
-- Pages sorted by trace id read one bucket of the trace index at a time
-- (spanplan.go): 16 buckets, one per first hex digit, where there were 4,
-- so a week's page sorts a sixteenth of the week's entries, not a quarter.
-- The expression must stay the same text as traceBucket in spanplan.go.
DROP INDEX spans_env_trace;
CREATE INDEX spans_env_trace ON spans (environment, (CASE WHEN trace_id < '1' THEN 0 WHEN trace_id < '2' THEN 1 WHEN trace_id < '3' THEN 2 WHEN trace_id < '4' THEN 3 WHEN trace_id < '5' THEN 4 WHEN trace_id < '6' THEN 5 WHEN trace_id < '7' THEN 6 WHEN trace_id < '8' THEN 7 WHEN trace_id < '9' THEN 8 WHEN trace_id < 'a' THEN 9 WHEN trace_id < 'b' THEN 10 WHEN trace_id < 'c' THEN 11 WHEN trace_id < 'd' THEN 12 WHEN trace_id < 'e' THEN 13 WHEN trace_id < 'f' THEN 14 ELSE 15 END), timestamp / 3600000, seq, trace_id, timestamp);
