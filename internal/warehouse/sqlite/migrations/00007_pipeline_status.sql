-- +goose Up
-- The collectors' monitoring status counters: one row per environment and
-- collector, replaced on every report (times in Unix ms, 0 for never).
CREATE TABLE pipeline_status (
	environment           TEXT    NOT NULL,
	collector_id          TEXT    NOT NULL,
	reported_at           INTEGER NOT NULL,
	latest_stored         INTEGER NOT NULL,
	last_evaluated_stored INTEGER NOT NULL,
	pending               INTEGER NOT NULL,
	oldest_pending        INTEGER NOT NULL,
	lost                  INTEGER NOT NULL,
	last_lost             INTEGER NOT NULL,
	last_eval_ok          INTEGER NOT NULL,
	last_eval_failed      INTEGER NOT NULL,
	last_eval_error       TEXT    NOT NULL,
	last_write_ok         INTEGER NOT NULL,
	last_write_failed     INTEGER NOT NULL,
	last_write_error      TEXT    NOT NULL,
	PRIMARY KEY (environment, collector_id)
) WITHOUT ROWID;
