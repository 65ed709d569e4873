-- +goose Up
-- Access paths of metric queries.
--
-- point_counts counts the metric points of each hour (floor of event_time
-- / 3 600 000): the rows with key '' and value '' count them by metric
-- name and source, a row with a label key (metric_name and source '')
-- counts those whose labels hold that key with that value (text as stored
-- in the labels JSON). total_results of a metric query with no filter
-- (name and source optional), or with one equality / in / exists test on
-- a label (negated or not) and neither name nor source, is a sum of rows
-- for the hours the range covers whole, the points of the part hours at
-- its ends counted one by one. A label key with more than 1 024 values in
-- one hour (an id, free text) is listed in point_uncounted_keys: from
-- then on its rows are neither written nor read, and filters on it read
-- the points.
CREATE TABLE point_counts (
	environment TEXT    NOT NULL,
	hour        INTEGER NOT NULL,
	key         TEXT    NOT NULL,
	value       TEXT    NOT NULL,
	metric_name TEXT    NOT NULL,
	source      TEXT    NOT NULL,
	n           INTEGER NOT NULL,
	PRIMARY KEY (environment, hour, key, value, metric_name, source)
) WITHOUT ROWID;
CREATE TABLE point_uncounted_keys (
	environment TEXT NOT NULL,
	key         TEXT NOT NULL,
	PRIMARY KEY (environment, key)
) WITHOUT ROWID;

INSERT INTO point_counts (environment, hour, key, value, metric_name, source, n)
	SELECT environment, (event_time - ((event_time % 3600000) + 3600000) % 3600000) / 3600000, '', '', metric_name, source, count(*)
	FROM metric_points GROUP BY 1, 2, 5, 6;
INSERT INTO point_counts (environment, hour, key, value, metric_name, source, n)
	SELECT p.environment, (p.event_time - ((p.event_time % 3600000) + 3600000) % 3600000) / 3600000, j.key, j.value,
		'', '', count(*)
	FROM metric_points p, json_each(p.labels) j
	WHERE j.key != '' AND j.type = 'text'
	GROUP BY 1, 2, 3, 4;
INSERT INTO point_uncounted_keys (environment, key)
	SELECT DISTINCT environment, key FROM (
		SELECT environment, hour, key, count(*) AS hour_values FROM point_counts WHERE key != ''
		GROUP BY 1, 2, 3)
	WHERE hour_values > 1024;
DELETE FROM point_counts WHERE key != '' AND EXISTS (
	SELECT 1 FROM point_uncounted_keys u WHERE u.environment = point_counts.environment AND u.key = point_counts.key);

-- Pages sorted by numeric value: each hour of the range in value order,
-- merged (pointplan.go); a commit's points land in the pages of their hour.
CREATE INDEX metric_points_env_hour_value ON metric_points (environment, event_time / 3600000, numeric_value, seq);
