-- +goose Up
-- A setup may have no external id (""): only non-empty ones are unique.
-- SQLite cannot drop a table constraint, so the table is rebuilt without
-- it and a partial unique index takes its place.
CREATE TABLE monitor_setups_v5 (
	seq          INTEGER PRIMARY KEY,
	id           TEXT    NOT NULL UNIQUE,
	environment  TEXT    NOT NULL,
	project_id   TEXT    NOT NULL,
	external_id  TEXT    NOT NULL,
	entity_type  TEXT    NOT NULL,
	entity_value TEXT    NOT NULL,
	status       TEXT    NOT NULL,
	version      INTEGER NOT NULL,
	document     TEXT    NOT NULL
);
INSERT INTO monitor_setups_v5 (seq, id, environment, project_id, external_id, entity_type, entity_value, status, version, document)
	SELECT seq, id, environment, project_id, external_id, entity_type, entity_value, status, version, document FROM monitor_setups;
DROP TABLE monitor_setups;
ALTER TABLE monitor_setups_v5 RENAME TO monitor_setups;
CREATE INDEX monitor_setups_env ON monitor_setups (environment, seq);
CREATE UNIQUE INDEX monitor_setups_external_id ON monitor_setups (environment, project_id, external_id) WHERE external_id != '';
