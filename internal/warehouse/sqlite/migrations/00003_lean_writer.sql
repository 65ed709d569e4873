-- +goose Up
-- The full-text index (span_text) merges its segments 16 at a time
-- instead of FTS5's default 4: each word's entries are rewritten about
-- half as often as the index grows (the index's CPU per span of 2 KB of
-- text ~0.75x); a search reads at most 15 segments a level instead of 3
-- (the search shapes' p50 unchanged). docs/benchmarks-log.md, "The
-- writer's CPU per stored span".
INSERT INTO span_text(span_text, rank) VALUES ('automerge', 16);
-- trace_stats are read and then inserted or updated by the writer
-- (tracestats.go), no longer upserted with RETURNING: the hour a write
-- moved a trace from is known without a column for it.
ALTER TABLE trace_stats DROP COLUMN moved_from;

-- +goose Down
ALTER TABLE trace_stats ADD COLUMN moved_from INTEGER;
INSERT INTO span_text(span_text, rank) VALUES ('automerge', 4);
