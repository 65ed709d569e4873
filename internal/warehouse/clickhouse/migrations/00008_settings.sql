-- +goose Up
-- +goose NO TRANSACTION
-- Small values shared by the collectors of the warehouse (the console's
-- session secret): written once, read on start. Collectors that
-- initialise a key at the same moment may both insert; readers take the
-- earliest value (created, then value) and accept every one.
CREATE TABLE IF NOT EXISTS {{table "settings"}} (
	key String, value String, created Int64
) ENGINE = {{engine "ReplacingMergeTree" "settings" ""}} ORDER BY (key, value);
{{distributed "settings" "sipHash64(key)"}}
