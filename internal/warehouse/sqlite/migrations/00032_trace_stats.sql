-- +goose Up
-- trace_stats: one row per trace (sqlite/tracestats.go), kept by every
-- span write and retention delete: the traces list sorts by latency,
-- tokens or cost and counts a range's traces from it. Filled here from the
-- stored spans; their cost is 0 (the price table is the collector's
-- configuration, not the store's): spans written from now on are priced.
CREATE TABLE trace_stats (
	environment TEXT    NOT NULL,
	trace_id    TEXT    NOT NULL,
	start_ms    INTEGER NOT NULL,
	end_ms      INTEGER NOT NULL,
	spans       INTEGER NOT NULL,
	errors      INTEGER NOT NULL,
	tokens      INTEGER NOT NULL,
	cost_usd    REAL    NOT NULL,
	PRIMARY KEY (environment, trace_id)
) WITHOUT ROWID;
CREATE INDEX trace_stats_by_start ON trace_stats (environment, start_ms);
INSERT INTO trace_stats (environment, trace_id, start_ms, end_ms, spans, errors, tokens, cost_usd)
	SELECT environment, trace_id, min(timestamp), max(timestamp + duration), count(*),
		sum(status_code = 'STATUS_CODE_ERROR'), sum(total_tokens), 0
	FROM spans GROUP BY environment, trace_id;

-- +goose Down
DROP TABLE trace_stats;
