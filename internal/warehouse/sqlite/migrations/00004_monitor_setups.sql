-- +goose Up
-- Auto monitor setups as JSON documents; updates are compare-and-set on
-- version.
CREATE TABLE monitor_setups (
	seq          INTEGER PRIMARY KEY,
	id           TEXT    NOT NULL UNIQUE,
	environment  TEXT    NOT NULL,
	project_id   TEXT    NOT NULL,
	external_id  TEXT    NOT NULL,
	entity_type  TEXT    NOT NULL,
	entity_value TEXT    NOT NULL,
	status       TEXT    NOT NULL,
	version      INTEGER NOT NULL,
	document     TEXT    NOT NULL,
	UNIQUE (environment, project_id, external_id)
);
CREATE INDEX monitor_setups_env ON monitor_setups (environment, seq);
