-- +goose Up
-- The distinct values of each span attribute key, hour by hour, so that a
-- filter other than equality on an attribute (starts_with, contains, a
-- numeric or typed comparison) is first resolved against the values of
-- its key in the range's hours, then counted and walked through the
-- postings of the values that match (values.go) instead of reading every
-- span of the range. A value is recorded with the first span that carries
-- it in an hour (seq: that span's sequence number), so a shared value is one
-- row per hour however many spans carry it (the writer remembers what it
-- recorded; after a restart it may record a value twice, which readers
-- take as one). Hour first, then key, then seq: a commit's rows go to the
-- end of each key's part of the current hour (a page or two per key, where
-- rows in value order would dirty a page per new value), and retention
-- deletes a prefix of the table.
--
-- A key is its environment and name, hashed (valueKeyHash): 8 bytes in
-- every row, compared as one integer while a resolution steps through
-- them. Two keys that share a hash (about 2^-63 per pair) would only add
-- values to a resolution, each looked up under the filter's own key in
-- the postings, where it finds no span it should not count.
--
-- value has no declared type, so that "2900" stays the text the span sent
-- (a column of numeric affinity would store it as an integer).
CREATE TABLE span_values (
	hour INTEGER NOT NULL,
	key_hash INTEGER NOT NULL,
	seq INTEGER NOT NULL,
	value NOT NULL,
	PRIMARY KEY (hour, key_hash, seq)
) WITHOUT ROWID;
-- The keys that carried, in an hour, a value the postings do not list
-- (longer than maxIndexedValue, or not valid UTF-8): their filters read
-- the spans of such hours.
CREATE TABLE span_value_gaps (
	hour INTEGER NOT NULL,
	key_hash INTEGER NOT NULL,
	PRIMARY KEY (hour, key_hash)
) WITHOUT ROWID;
-- The runs written before this version recorded no values: first_seq is
-- the first sequence number written with them, as in key_postings_from.
CREATE TABLE span_values_from (first_seq INTEGER NOT NULL);
INSERT INTO span_values_from SELECT max(coalesce((SELECT max(seq) FROM spans), 0),
	coalesce((SELECT max(seq) FROM retention_marks WHERE tbl = 'spans'), 0)) + 1;
