-- +goose Up
-- +goose NO TRANSACTION
-- Trace stats (clickhouse/tracestats.go): for every trace of a WriteSpans
-- batch, the start, end, spans, error spans, tokens and cost of the spans
-- it stored. A trace's rows are summed by the readers (GROUP BY trace),
-- reading the rows of the range by their start (the sort key; a trace's
-- rows are taken to lie within the trace window, an hour, of its start);
-- partitioned by the week of their start like spans, so retention drops
-- (or expires) the same weeks. Filled from the stored spans, cost 0 (the
-- price table is the collector's configuration): spans written from now
-- on are priced.
CREATE TABLE IF NOT EXISTS {{table "trace_stats"}} (
	environment String, trace_id String, start_ms Int64, end_ms Int64,
	spans Int64, errors Int64, tokens Int64, cost_usd Float64
) ENGINE = {{engine "MergeTree" "trace_stats" ""}} PARTITION BY intDiv(start_ms, 604800000) ORDER BY (environment, start_ms, trace_id);
{{distributed "trace_stats" "sipHash64(environment, trace_id)"}}
INSERT INTO {{table "trace_stats"}} (environment, trace_id, start_ms, end_ms, spans, errors, tokens, cost_usd)
	SELECT environment, trace_id, min(timestamp), max(timestamp + duration), count(),
		countIf(status_code = 'STATUS_CODE_ERROR'), sum(total_tokens), 0
	FROM {{table "spans"}} FINAL GROUP BY environment, trace_id;
