-- +goose Up
-- The sort indexes of duration and total tokens in 16 linear buckets per
-- factor of 16 (widths 16, 256, 4 096, ... ms or tokens), where migration
-- 00014 had 8: a page sorted by the column reads its top (or bottom)
-- bucket of the range whole and sorts it, and with durations spread up to
-- 30 s the top bucket held 18 % of a week. A commit dirties about one page
-- per bucket it writes to, so twice the buckets cost the writer a few
-- pages more per commit. The expressions must stay the same text as
-- numberBucket in spanplan.go.
DROP INDEX spans_env_duration;
DROP INDEX spans_env_tokens;
CREATE INDEX spans_env_duration ON spans (environment, (CASE WHEN duration < 0 THEN -1 WHEN duration < 256 THEN 0 + duration / 16 WHEN duration < 4096 THEN 16 + duration / 256 WHEN duration < 65536 THEN 32 + duration / 4096 WHEN duration < 1048576 THEN 48 + duration / 65536 WHEN duration < 16777216 THEN 64 + duration / 1048576 WHEN duration < 268435456 THEN 80 + duration / 16777216 ELSE 96 + duration / 268435456 END), timestamp / 3600000, seq, duration, timestamp);
CREATE INDEX spans_env_tokens ON spans (environment, (CASE WHEN total_tokens < 0 THEN -1 WHEN total_tokens < 256 THEN 0 + total_tokens / 16 WHEN total_tokens < 4096 THEN 16 + total_tokens / 256 WHEN total_tokens < 65536 THEN 32 + total_tokens / 4096 WHEN total_tokens < 1048576 THEN 48 + total_tokens / 65536 WHEN total_tokens < 16777216 THEN 64 + total_tokens / 1048576 WHEN total_tokens < 268435456 THEN 80 + total_tokens / 16777216 ELSE 96 + total_tokens / 268435456 END), timestamp / 3600000, seq, total_tokens, timestamp);
