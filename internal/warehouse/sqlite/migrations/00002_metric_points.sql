-- +goose Up
CREATE TABLE metric_points (
	seq             INTEGER PRIMARY KEY,
	environment     TEXT    NOT NULL,
	organization_id TEXT    NOT NULL,
	metric_name     TEXT    NOT NULL,
	source          TEXT    NOT NULL,
	event_time      INTEGER NOT NULL,
	bool_value      INTEGER,
	numeric_value   REAL,
	enum_value      TEXT,
	trace_id        TEXT    NOT NULL,
	span_id         TEXT    NOT NULL,
	labels          TEXT    NOT NULL,
	attributes      TEXT    NOT NULL
);
CREATE INDEX metric_points_env_time ON metric_points (environment, event_time);
CREATE INDEX metric_points_env_name_time ON metric_points (environment, metric_name, event_time);
