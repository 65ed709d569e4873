-- +goose Up
-- Postings of resource attributes: from this version on, each run of
-- span_postings also lists, under the hash of "\x02" + key and the value
-- (both as the stored JSON spells them), the spans whose resource holds
-- that attribute value, so that an equality or in-list on a resource
-- attribute counts and walks its spans as one on a span attribute does.
-- The runs written before hold no such lists: first_seq is the first
-- sequence number written with them, as in key_postings_from.
CREATE TABLE resource_postings_from (first_seq INTEGER NOT NULL);
INSERT INTO resource_postings_from SELECT max(coalesce((SELECT max(seq) FROM spans), 0),
	coalesce((SELECT max(seq) FROM retention_marks WHERE tbl = 'spans'), 0)) + 1;
