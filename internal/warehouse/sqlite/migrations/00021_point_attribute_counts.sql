-- +goose Up
-- point_counts also counts metric points by attribute: a row whose key is
-- "\x01" + an attribute key (metric_name and source '') counts the points
-- whose attributes hold that key with that value, as the label rows do for
-- labels (00016_point_counts.sql), so that total_results of one equality /
-- in / exists test on an attribute (negated or not) is a sum of rows too.
-- Label keys that start with a byte 0 or 1 are no longer counted (they
-- could pose as an attribute's rows); their filters read the points. An
-- attribute key with more than 1 024 values in one hour (a request id) is
-- listed in point_uncounted_keys under its prefixed key.
DELETE FROM point_counts WHERE key != '' AND unicode(key) <= 1;
INSERT INTO point_counts (environment, hour, key, value, metric_name, source, n)
	SELECT p.environment, (p.event_time - ((p.event_time % 3600000) + 3600000) % 3600000) / 3600000, char(1) || j.key, j.value,
		'', '', count(*)
	FROM metric_points p, json_each(p.attributes) j
	WHERE j.key != '' AND j.type = 'text'
	GROUP BY 1, 2, 3, 4;
INSERT OR IGNORE INTO point_uncounted_keys (environment, key)
	SELECT DISTINCT environment, key FROM (
		SELECT environment, hour, key, count(*) AS hour_values FROM point_counts WHERE unicode(key) = 1
		GROUP BY 1, 2, 3)
	WHERE hour_values > 1024;
DELETE FROM point_counts WHERE unicode(key) = 1 AND EXISTS (
	SELECT 1 FROM point_uncounted_keys u WHERE u.environment = point_counts.environment AND u.key = point_counts.key);
