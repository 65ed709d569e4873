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
	latency_ms  INTEGER NOT NULL, -- end_ms - start_ms, a column so that its index takes a cursor
	spans       INTEGER NOT NULL,
	errors      INTEGER NOT NULL,
	tokens      INTEGER NOT NULL,
	cost_usd    REAL    NOT NULL,
	count_hour  INTEGER NOT NULL, -- the hour trace_counts counts the trace in: its start's
	moved_from  INTEGER,          -- the hour a write moved it from (the upsert returns it)
	PRIMARY KEY (environment, trace_id)
) WITHOUT ROWID;
-- One index per sort key, in the list's order (key, trace id) and holding
-- the start: a sorted page walks its index from the cursor and checks the
-- range on the index entries, reading the rows of the traces it keeps only.
CREATE INDEX trace_stats_by_start ON trace_stats (environment, start_ms);
CREATE INDEX trace_stats_by_latency ON trace_stats (environment, latency_ms, trace_id, start_ms);
CREATE INDEX trace_stats_by_tokens ON trace_stats (environment, tokens, trace_id, start_ms);
CREATE INDEX trace_stats_by_cost ON trace_stats (environment, cost_usd, trace_id, start_ms);
INSERT INTO trace_stats (environment, trace_id, start_ms, end_ms, latency_ms, spans, errors, tokens, cost_usd, count_hour)
	SELECT environment, trace_id, min(timestamp), max(timestamp + duration),
		max(timestamp + duration) - min(timestamp), count(*),
		sum(status_code = 'STATUS_CODE_ERROR'), sum(total_tokens), 0,
		(min(timestamp) - ((min(timestamp) % 3600000) + 3600000) % 3600000) / 3600000
	FROM spans GROUP BY environment, trace_id;

-- trace_counts: the traces of trace_stats by environment and hour of
-- their start, so a range's traces are counted from its whole hours and
-- the trace_stats index at its ends.
CREATE TABLE trace_counts (
	environment TEXT    NOT NULL,
	hour        INTEGER NOT NULL,
	n           INTEGER NOT NULL,
	PRIMARY KEY (environment, hour)
) WITHOUT ROWID;
INSERT INTO trace_counts (environment, hour, n)
	SELECT environment, count_hour, count(*) FROM trace_stats GROUP BY 1, 2;

-- +goose Down
DROP TABLE trace_counts;
DROP TABLE trace_stats;
