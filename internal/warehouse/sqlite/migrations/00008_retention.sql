-- +goose Up
-- One row per run of the retention job and table ('spans',
-- 'metric_points'): the cutoff it computed (Unix ms: rows older than that
-- are out of the retention), the sequence number it reserved (one above
-- every row then stored; writers continue above the highest mark, so
-- numbers are never reused even when the newest rows are deleted) and when
-- it ran (Unix ms). A page of a pagination whose snapshot is S hides the
-- rows older than the cutoff of the newest mark with seq <= S, the same on
-- every page; the job deletes rows only once they are older than the
-- cutoff of a mark at least the grace period old. See README.md,
-- "Retention".
CREATE TABLE retention_marks (
	tbl    TEXT    NOT NULL,
	seq    INTEGER NOT NULL,
	cutoff INTEGER NOT NULL,
	at     INTEGER NOT NULL,
	PRIMARY KEY (tbl, seq)
) WITHOUT ROWID;
