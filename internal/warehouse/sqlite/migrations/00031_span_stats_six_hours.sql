-- +goose Up
-- span_stats also keeps six-hour rows (width 21 600 000): the console's
-- 7-day view (6-hour buckets) reads 28 rows per workflow, model and
-- latency bin instead of 168 hour rows, as they are, without a GROUP BY
-- (sqlite/spanstats.go). They are the sums of the hour rows of their six
-- hours, filled here unless the store has six-hour rows already (a store
-- whose migration 00029 ran with this code's writer, which keeps them).
INSERT INTO span_stats (environment, width, bucket, workflow, model, bin, n, errors, input_tokens, output_tokens)
	SELECT environment, 21600000, bucket - ((bucket % 21600000) + 21600000) % 21600000, workflow, model, bin,
		sum(n), sum(errors), sum(input_tokens), sum(output_tokens)
	FROM span_stats
	WHERE width = 3600000 AND NOT EXISTS (SELECT 1 FROM span_stats WHERE width = 21600000)
	GROUP BY 1, 3, 4, 5, 6
	HAVING sum(n) != 0;
