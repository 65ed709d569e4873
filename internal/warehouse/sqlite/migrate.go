package sqlite

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io/fs"

	"go.uber.org/zap"

	"github.com/evalcol/evalcol/internal/warehouse/migrate"
)

// migrationFiles holds the schema, one goose .sql file per version
// (migrations/NNNNN_name.sql), from 00001_v0_1_0.sql, the schema of
// v0.1.0. A new table, column or index is a new file with the next
// number; a file that has run is never edited, and TestUpgradeFromV010
// applies every later file to a store written by v0.1.0.
//
//go:embed migrations/*.sql
var migrationFiles embed.FS

// migrations is migrationFiles' migrations directory.
var migrations = mustSub(migrationFiles, "migrations")

func mustSub(fsys fs.FS, dir string) fs.FS {
	sub, err := fs.Sub(fsys, dir)
	if err != nil {
		panic(err) // the directory is embedded: cannot happen
	}
	return sub
}

// versionTable is SQLite's schema_migrations.
var versionTable = migrate.Table{
	Create: []string{`CREATE TABLE IF NOT EXISTS schema_migrations (
		version    INTEGER PRIMARY KEY,
		name       TEXT    NOT NULL,
		applied_at INTEGER NOT NULL DEFAULT (unixepoch())
	)`},
	Exists:   `SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'`,
	Insert:   `INSERT INTO schema_migrations (version, name) VALUES (?, ?)`,
	Delete:   `DELETE FROM schema_migrations WHERE version = ?`,
	Versions: `SELECT version FROM schema_migrations`,
}

// applyMigrations applies the migrations of fsys (the store passes
// migrations, tests their own) that db has not recorded, each in its own
// BEGIN IMMEDIATE transaction together with its schema_migrations row, and
// returns the versions it applied.
func applyMigrations(ctx context.Context, db *sql.DB, fsys fs.FS) ([]int64, error) {
	applied, err := migrate.Up(ctx, db, fsys, versionTable)
	if err != nil {
		return applied, fmt.Errorf("migrate: %w", err)
	}
	return applied, nil
}

// schemaVersion returns the highest applied migration.
func schemaVersion(ctx context.Context, db *sql.DB) (int, error) {
	var v sql.NullInt64
	err := db.QueryRowContext(ctx, `SELECT max(version) FROM schema_migrations`).Scan(&v)
	return int(v.Int64), err
}

// Stores of the pre-release builds (0.1.0-dev) recorded the migrations
// 00001_spans .. 00031_span_stats_six_hours, which v0.1.0 squashed into
// 00001_v0_1_0.sql. At 31 their schema is v0.1.0's plus the tables below,
// which kept or marked data written before some migration.
const (
	preReleaseFirst   = "00001_spans" // schema_migrations' name of their version 1
	preReleaseVersion = 31
	v010Name          = "00001_v0_1_0"
)

// preReleaseTables are the tables only pre-release stores have: dedup keys
// and an attribute index from before migrations 00012 and 00014, and the
// marks of what was written before migrations 00012, 00014, 00015, 00020,
// 00022 and 00023.
var preReleaseTables = []string{"span_attr_index", "span_keys", "point_keys", "legacy_keys", "legacy_attr_index",
	"key_postings_from", "span_values_from", "resource_postings_from", "point_postings_from"}

// preReleaseData are queries that return 1 when a pre-release store still
// holds data written before one of its migrations, which v0.1.0 does not
// read: the old dedup keys and attribute index, spans (or runs of them)
// numbered below a postings mark, metric points within the times of
// point_postings_from, span keys without the content hash of 00025.
var preReleaseData = []string{
	`SELECT EXISTS (SELECT 1 FROM span_attr_index)`,
	`SELECT EXISTS (SELECT 1 FROM span_keys)`,
	`SELECT EXISTS (SELECT 1 FROM point_keys)`,
	postingsFromCheck("key_postings_from"),
	postingsFromCheck("span_values_from"),
	postingsFromCheck("resource_postings_from"),
	`SELECT EXISTS (SELECT 1 FROM point_postings_from AS f, metric_points AS p WHERE p.event_time BETWEEN f.min_ts AND f.max_ts)`,
	`SELECT EXISTS (SELECT 1 FROM span_keys_by_time WHERE content IS NULL)`,
}

// postingsFromCheck finds spans, or runs of them, numbered below the first
// sequence number of a postings mark (written before its migration).
func postingsFromCheck(mark string) string {
	return `SELECT EXISTS (SELECT 1 FROM ` + mark + ` AS f WHERE EXISTS (SELECT 1 FROM spans WHERE seq < f.first_seq)
		OR EXISTS (SELECT 1 FROM posting_runs WHERE first_seq < f.first_seq))`
}

// ErrPreRelease is the error of Open on a store that a pre-release build
// created and v0.1.0 cannot adopt.
var ErrPreRelease = errors.New("created by a pre-release build of evalcol")

// adoptPreRelease turns a store of the pre-release builds into a v0.1.0
// one, or refuses it. A store at their last version (31) that holds no
// data written before one of its migrations (preReleaseData) has v0.1.0's
// schema plus preReleaseTables: in one transaction those are dropped and
// schema_migrations becomes the one row of version 1. Any other
// pre-release store (an older version, or such data) fails with
// ErrPreRelease. A new store, or one created by v0.1.0 or later, is left
// as it is.
func adoptPreRelease(ctx context.Context, db *sql.DB, path string, log *zap.Logger) error {
	var n int
	if err := db.QueryRowContext(ctx, versionTable.Exists).Scan(&n); err != nil {
		return fmt.Errorf("look for schema_migrations: %w", err)
	}
	if n == 0 {
		return nil // a new file
	}
	var first sql.NullString
	var latest sql.NullInt64
	if err := db.QueryRowContext(ctx, `SELECT (SELECT name FROM schema_migrations WHERE version = 1),
		(SELECT max(version) FROM schema_migrations)`).Scan(&first, &latest); err != nil {
		return fmt.Errorf("read schema_migrations: %w", err)
	}
	if first.String != preReleaseFirst {
		return nil
	}
	refuse := func(why string) error {
		return fmt.Errorf("%w (schema %d%s); v0.1.0 starts a new schema: move the file away to start an empty warehouse",
			ErrPreRelease, latest.Int64, why)
	}
	if latest.Int64 != preReleaseVersion {
		return refuse("")
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("adopt pre-release schema: %w", err)
	}
	defer tx.Rollback()
	for _, q := range preReleaseData {
		var holds bool
		if err := tx.QueryRowContext(ctx, q).Scan(&holds); err != nil {
			return fmt.Errorf("adopt pre-release schema: %w", err)
		}
		if holds {
			return refuse(", with data written before its later migrations")
		}
	}
	for _, t := range preReleaseTables {
		if _, err := tx.ExecContext(ctx, `DROP TABLE `+t); err != nil {
			return fmt.Errorf("adopt pre-release schema: drop %s: %w", t, err)
		}
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM schema_migrations`); err != nil {
		return fmt.Errorf("adopt pre-release schema: %w", err)
	}
	if _, err := tx.ExecContext(ctx, versionTable.Insert, 1, v010Name); err != nil {
		return fmt.Errorf("adopt pre-release schema: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("adopt pre-release schema: %w", err)
	}
	log.Info("sqlite warehouse: adopted the store of a pre-release build as schema version 1 (v0.1.0)",
		zap.String("path", path), zap.Int64("pre_release_schema", latest.Int64))
	return nil
}
