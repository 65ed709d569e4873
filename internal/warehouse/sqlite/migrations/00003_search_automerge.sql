-- +goose Up
-- The full-text index (span_text) merges its segments 16 at a time
-- instead of FTS5's default 4: each word's entries are rewritten about
-- half as often as the index grows, which took the index's share of the
-- writer's CPU from ~80 to ~60 µs per span of 2 KB text (docs/benchmarks-log.md,
-- "The writer's CPU per stored span"); a search reads at most 15
-- segments a level instead of 3 (the search shapes' p50 unchanged).
INSERT INTO span_text(span_text, rank) VALUES ('automerge', 16);
-- +goose Down
INSERT INTO span_text(span_text, rank) VALUES ('automerge', 4);
