-- +goose Up
-- +goose NO TRANSACTION
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
