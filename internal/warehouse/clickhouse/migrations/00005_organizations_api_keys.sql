-- +goose Up
-- +goose NO TRANSACTION
-- Organizations made at run time: one JSON body per version, read as the
-- latest row_ver of each id.
CREATE TABLE IF NOT EXISTS {{table "organizations"}} (
	id String, row_ver Int64, created_seq Int64, version Int64, body String
) ENGINE = {{engine "ReplacingMergeTree" "organizations" "row_ver"}} ORDER BY id;
{{distributed "organizations" "sipHash64(id)"}}
-- Runtime API keys: only the SHA-256 digest of each secret. A revocation
-- inserts the key again with revoked_at set; readers take max(revoked_at)
-- per key, so revocation is final whatever order rows arrive in.
CREATE TABLE IF NOT EXISTS {{table "api_keys"}} (
	id String, row_ver Int64, digest String, org_id String, env_slug String, environment String,
	project_id String, created_at Int64, revoked_at Int64
) ENGINE = {{engine "ReplacingMergeTree" "api_keys" "row_ver"}} ORDER BY id;
{{distributed "api_keys" "sipHash64(id)"}}
