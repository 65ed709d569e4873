-- +goose Up
-- The verdict index of each span's evaluation results
-- (warehouse.VerdictIndex), which verdict filters search. Spans stored
-- before this version hold '' (no verdicts to filter on).
ALTER TABLE spans ADD COLUMN verdicts TEXT NOT NULL DEFAULT '';
