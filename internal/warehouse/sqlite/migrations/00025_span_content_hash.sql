-- +goose Up
-- A hash of each stored span's content (spanContentHash: everything but
-- its identity, time and evaluations) beside its dedup key, so that a
-- resent span that is a duplicate by key but differs in content (a
-- conflict, reported to the sender) is told from an identical resend (an
-- SDK retry, normal) by reading one row, and only for duplicates. Keys
-- written before have none (NULL): a duplicate of them is not checked.
ALTER TABLE span_keys_by_time ADD COLUMN content INTEGER;
