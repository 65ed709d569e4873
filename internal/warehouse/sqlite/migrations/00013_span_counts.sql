-- +goose Up
-- Spans per environment and minute of start time (the Unix ms timestamp
-- divided by 60 000, rounded down), kept in the same transaction as the
-- spans by every write and every retention delete. A query sums the
-- minutes its time range covers whole for total_results and for choosing
-- an access path, instead of counting the spans one by one (see
-- counts.go).
CREATE TABLE span_counts (
	environment TEXT    NOT NULL,
	minute      INTEGER NOT NULL,
	n           INTEGER NOT NULL,
	PRIMARY KEY (environment, minute)
) WITHOUT ROWID;
INSERT INTO span_counts (environment, minute, n)
	SELECT environment, (timestamp - ((timestamp % 60000) + 60000) % 60000) / 60000, count(*)
	FROM spans GROUP BY 1, 2;
