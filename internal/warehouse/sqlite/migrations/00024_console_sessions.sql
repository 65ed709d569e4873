-- +goose Up
-- Console sessions, shared by every collector of the warehouse: a logout
-- or a revoked key ends a session everywhere. Only the SHA-256 of the
-- session token is stored. Rows are deleted once expired (PurgeSessions).
CREATE TABLE console_sessions (
	token_hash  TEXT    PRIMARY KEY,
	environment TEXT    NOT NULL,
	org_id      TEXT    NOT NULL,
	project_id  TEXT    NOT NULL,
	key_digest  TEXT    NOT NULL,
	key_id      TEXT    NOT NULL,
	created_at  INTEGER NOT NULL,
	expires_at  INTEGER NOT NULL
) WITHOUT ROWID;
CREATE INDEX console_sessions_expiry ON console_sessions (expires_at);
