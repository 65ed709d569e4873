-- +goose Up
-- 64-bit keys of the stored spans and points (see dedupKey): a retried
-- write skips what is already stored. An INTEGER PRIMARY KEY table is the
-- cheapest unique index SQLite has.
CREATE TABLE span_keys (key INTEGER PRIMARY KEY);
CREATE TABLE point_keys (key INTEGER PRIMARY KEY);
