-- +goose Up
-- +goose NO TRANSACTION
-- Console sessions, shared by every collector of the warehouse. Only the
-- SHA-256 of the session token is stored. A logout inserts the session
-- again with ended_at set; readers take max(ended_at) per token, so a
-- logout is final whatever order rows arrive in. Expired rows are deleted
-- by PurgeSessions (ALTER TABLE ... DELETE: 18.16 has no TTL).
CREATE TABLE IF NOT EXISTS {{table "console_sessions"}} (
	token_hash String, row_ver Int64, environment String, org_id String, project_id String,
	key_digest String, key_id String, created_at Int64, expires_at Int64, ended_at Int64
) ENGINE = {{engine "ReplacingMergeTree" "console_sessions" "row_ver"}} ORDER BY token_hash;
{{distributed "console_sessions" "sipHash64(token_hash)"}}
