-- +goose Up
-- +goose NO TRANSACTION
-- Small JSON documents that features keep per tenant (warehouse.Document):
-- one row per change (row_ver, the collectors' sequence clock), deleted = 1
-- rows are tombstones; readers take the latest row of each id.
CREATE TABLE IF NOT EXISTS {{table "documents"}} (
	kind String, scope String, id String, row_ver Int64, deleted UInt8, created_seq Int64,
	slug String, version Int64, body String, created_at Int64, updated_at Int64
) ENGINE = {{engine "ReplacingMergeTree" "documents" "row_ver"}} ORDER BY (kind, scope, id);
{{distributed "documents" "sipHash64(kind, scope, id)"}}
