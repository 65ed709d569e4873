-- +goose Up
-- Small values shared by the collectors of the warehouse (the console's
-- session secret): written once, read on start.
CREATE TABLE settings (
	key     TEXT    PRIMARY KEY,
	value   BLOB    NOT NULL,
	created INTEGER NOT NULL DEFAULT (unixepoch())
);
