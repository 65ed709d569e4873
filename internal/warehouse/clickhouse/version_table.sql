-- schema_migrations: the versions of migrations/ applied to this database
-- (see package migrate). A plain MergeTree: collectors starting together
-- may record a version twice; readers take DISTINCT versions.
CREATE TABLE IF NOT EXISTS {{table "schema_migrations"}} (
	version UInt32, name String, applied_at DateTime DEFAULT now()
) ENGINE = {{engine "MergeTree" "schema_migrations" ""}} ORDER BY (version);
{{distributed "schema_migrations" "version"}}
