package sqlite

import (
	"context"
	"database/sql"
	"fmt"
)

// migration is one versioned schema step. Versions only grow; a step that
// has run (recorded in schema_migrations) never runs again, so Open may run
// the list on every start. New tables (monitor setups, ...) are new steps
// appended at the end.
type migration struct {
	version int
	name    string
	stmts   []string
}

var migrations = []migration{
	{1, "spans", []string{
		// Resource attribute sets, stored once and shared by their spans.
		`CREATE TABLE resources (
			id         INTEGER PRIMARY KEY,
			hash       INTEGER NOT NULL,
			attributes TEXT    NOT NULL
		)`,
		`CREATE INDEX resources_hash ON resources (hash)`,
		`CREATE TABLE spans (
			seq                 INTEGER PRIMARY KEY,
			environment         TEXT    NOT NULL,
			timestamp           INTEGER NOT NULL,
			duration            INTEGER NOT NULL,
			total_tokens        INTEGER NOT NULL,
			trace_id            TEXT    NOT NULL,
			span_id             TEXT    NOT NULL,
			parent_span_id      TEXT    NOT NULL,
			trace_state         TEXT    NOT NULL,
			span_name           TEXT    NOT NULL,
			span_kind           TEXT    NOT NULL,
			service_name        TEXT    NOT NULL,
			scope_name          TEXT    NOT NULL,
			scope_version       TEXT    NOT NULL,
			status_code         TEXT    NOT NULL,
			status_message      TEXT    NOT NULL,
			workflow_name       TEXT    NOT NULL,
			entity_name         TEXT    NOT NULL,
			agent_name          TEXT    NOT NULL,
			request_model       TEXT    NOT NULL,
			response_model      TEXT    NOT NULL,
			vendor              TEXT    NOT NULL,
			resource_id         INTEGER NOT NULL,
			span_attributes     TEXT    NOT NULL,
			prompts             TEXT    NOT NULL,
			completions         TEXT    NOT NULL,
			input               TEXT    NOT NULL,
			output              TEXT    NOT NULL,
			evaluations         TEXT    NOT NULL
		)`,
		// Time-range scans in (timestamp, seq) order, the keyset of the
		// default sort; span_name rides along so that name filters are
		// evaluated on the index before the row is read.
		`CREATE INDEX spans_env_time ON spans (environment, timestamp, seq, span_name)`,
		// Equality index of span attributes and trace ids, as posting
		// lists: per write, per hour of span time and per 31-bit hash of
		// (environment, key, value), the spans' sequence numbers as base +
		// a JSON array of offsets. Hour first keeps inserts local (the
		// current hours stay in the page cache, where a trace_id index
		// would insert at random); queries seek each hour of their range.
		// Hash collisions are harmless: queries re-check the condition.
		`CREATE TABLE span_attr_index (
			hour    INTEGER NOT NULL,
			hash    INTEGER NOT NULL,
			base    INTEGER NOT NULL,
			offsets TEXT    NOT NULL,
			PRIMARY KEY (hour, hash, base)
		) WITHOUT ROWID`,
	}},
	{2, "metric_points", []string{
		`CREATE TABLE metric_points (
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
		)`,
		`CREATE INDEX metric_points_env_time ON metric_points (environment, event_time)`,
		`CREATE INDEX metric_points_env_name_time ON metric_points (environment, metric_name, event_time)`,
	}},
	{3, "idempotent writes", []string{
		// 64-bit keys of the stored spans and points (see dedupKey): a
		// retried write skips what is already stored. An INTEGER PRIMARY
		// KEY table is the cheapest unique index SQLite has.
		`CREATE TABLE span_keys (key INTEGER PRIMARY KEY)`,
		`CREATE TABLE point_keys (key INTEGER PRIMARY KEY)`,
	}},
	{4, "monitor_setups", []string{
		`CREATE TABLE monitor_setups (
			seq          INTEGER PRIMARY KEY,
			id           TEXT    NOT NULL UNIQUE,
			environment  TEXT    NOT NULL,
			project_id   TEXT    NOT NULL,
			external_id  TEXT    NOT NULL,
			entity_type  TEXT    NOT NULL,
			entity_value TEXT    NOT NULL,
			status       TEXT    NOT NULL,
			version      INTEGER NOT NULL,
			document     TEXT    NOT NULL,
			UNIQUE (environment, project_id, external_id)
		)`,
		`CREATE INDEX monitor_setups_env ON monitor_setups (environment, seq)`,
	}},
}

// migrate applies the migrations not yet recorded, each in its own
// transaction.
func migrate(ctx context.Context, db *sql.DB) error {
	if _, err := db.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
		version    INTEGER PRIMARY KEY,
		name       TEXT    NOT NULL,
		applied_at INTEGER NOT NULL DEFAULT (unixepoch())
	)`); err != nil {
		return fmt.Errorf("create schema_migrations: %w", err)
	}
	for _, m := range migrations {
		if err := applyMigration(ctx, db, m); err != nil {
			return fmt.Errorf("migration %d (%s): %w", m.version, m.name, err)
		}
	}
	return nil
}

func applyMigration(ctx context.Context, db *sql.DB, m migration) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback() //nolint:errcheck // no-op after Commit
	var n int
	if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM schema_migrations WHERE version = ?`, m.version).Scan(&n); err != nil {
		return err
	}
	if n > 0 {
		return nil
	}
	for _, stmt := range m.stmts {
		if _, err := tx.ExecContext(ctx, stmt); err != nil {
			return err
		}
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO schema_migrations (version, name) VALUES (?, ?)`, m.version, m.name); err != nil {
		return err
	}
	return tx.Commit()
}

// schemaVersion returns the highest applied migration.
func schemaVersion(ctx context.Context, db *sql.DB) (int, error) {
	var v sql.NullInt64
	err := db.QueryRowContext(ctx, `SELECT max(version) FROM schema_migrations`).Scan(&v)
	return int(v.Int64), err
}
