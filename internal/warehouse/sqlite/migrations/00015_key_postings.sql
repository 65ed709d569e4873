-- +goose Up
-- Postings of attribute keys: from this version on, each run of
-- span_postings also lists, under the hash of "\x01" + key and the empty
-- value, the spans that carry each span attribute key, so that
-- total_results of an exists / not_exists filter is a sum of list lengths
-- (not_exists: the range's count less it) and a time-sorted page of a
-- rare key walks its lists hour by hour. The runs written before hold no
-- such lists: first_seq is the first sequence number written with them,
-- and a query whose range reaches a run that starts below it (written
-- before, or merged from such runs) reads the spans instead.
CREATE TABLE key_postings_from (first_seq INTEGER NOT NULL);
INSERT INTO key_postings_from SELECT max(coalesce((SELECT max(seq) FROM spans), 0),
	coalesce((SELECT max(seq) FROM retention_marks WHERE tbl = 'spans'), 0)) + 1;
