-- +goose Up
-- Organizations made at run time (POST /v2/organizations), as JSON
-- documents; updates are compare-and-set on version.
CREATE TABLE organizations (
	seq      INTEGER PRIMARY KEY,
	id       TEXT    NOT NULL UNIQUE,
	version  INTEGER NOT NULL,
	document TEXT    NOT NULL
);
-- Runtime API keys: only the SHA-256 digest of each secret.
CREATE TABLE api_keys (
	seq         INTEGER PRIMARY KEY,
	id          TEXT    NOT NULL UNIQUE,
	digest      TEXT    NOT NULL UNIQUE,
	org_id      TEXT    NOT NULL,
	env_slug    TEXT    NOT NULL,
	environment TEXT    NOT NULL,
	project_id  TEXT    NOT NULL,
	created_at  INTEGER NOT NULL,
	revoked_at  INTEGER
);
CREATE INDEX api_keys_org ON api_keys (org_id, seq);
