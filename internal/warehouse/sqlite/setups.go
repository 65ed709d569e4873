package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/evalcol/evalcol/internal/warehouse"
)

// Monitor setups are stored as JSON documents with the columns they are
// looked up, filtered and made unique by.

const defaultSetupLimit = 100

// CreateSetup stores a new setup.
func (s *Store) CreateSetup(ctx context.Context, m warehouse.MonitorSetup) error {
	if err := s.checkOpen("create setup"); err != nil {
		return err
	}
	doc, err := json.Marshal(m)
	if err != nil {
		return fmt.Errorf("create setup: encode: %w", err)
	}
	_, err = s.writer.ExecContext(ctx, `INSERT INTO monitor_setups
		(id, environment, project_id, external_id, entity_type, entity_value, status, version, document)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		m.ID, m.Environment, m.ProjectID, m.ExternalID, m.EntityType, m.EntityValue, m.Status, m.Version, string(doc))
	if isUniqueViolation(err) {
		return fmt.Errorf("create setup: external_id %q: %w", m.ExternalID, warehouse.ErrConflict)
	}
	if err != nil {
		return fmt.Errorf("create setup: %w", mapErr(err))
	}
	return nil
}

// GetSetup returns one of env's setups.
func (s *Store) GetSetup(ctx context.Context, env, id string) (warehouse.MonitorSetup, error) {
	if err := s.checkOpen("get setup"); err != nil {
		return warehouse.MonitorSetup{}, err
	}
	row := s.reader.QueryRowContext(ctx, `SELECT environment, version, document FROM monitor_setups WHERE id = ? AND environment = ?`, id, env)
	m, err := scanSetup(row)
	if errors.Is(err, sql.ErrNoRows) {
		return warehouse.MonitorSetup{}, fmt.Errorf("setup %q: %w", id, warehouse.ErrNotFound)
	}
	if err != nil {
		return warehouse.MonitorSetup{}, fmt.Errorf("get setup: %w", mapErr(err))
	}
	return m, nil
}

// ListSetups returns a page of a environment's setups in creation order.
func (s *Store) ListSetups(ctx context.Context, q warehouse.SetupQuery) (warehouse.SetupPage, error) {
	if err := s.checkOpen("list setups"); err != nil {
		return warehouse.SetupPage{}, err
	}
	limit := q.Limit
	if limit <= 0 {
		limit = defaultSetupLimit
	}
	var after int64
	if q.Cursor != "" {
		n, err := strconv.ParseInt(q.Cursor, 10, 64)
		if err != nil || n < 0 {
			return warehouse.SetupPage{}, &warehouse.QueryError{Field: "cursor", Msg: "malformed cursor"}
		}
		after = n
	}
	where := []string{"environment = ?", "seq > ?"}
	args := []any{q.Environment, after}
	for _, f := range []struct{ col, val string }{
		{"entity_type", q.EntityType}, {"entity_value", q.EntityValue}, {"external_id", q.ExternalID}, {"status", q.Status},
	} {
		if f.val != "" {
			where = append(where, f.col+" = ?")
			args = append(args, f.val)
		}
	}
	args = append(args, limit+1)
	rows, err := s.reader.QueryContext(ctx, `SELECT seq, environment, version, document FROM monitor_setups WHERE `+
		strings.Join(where, " AND ")+` ORDER BY seq LIMIT ?`, args...)
	if err != nil {
		return warehouse.SetupPage{}, fmt.Errorf("list setups: %w", mapErr(err))
	}
	defer rows.Close()
	var page warehouse.SetupPage
	var lastSeq int64
	for rows.Next() {
		var seq int64
		m, err := scanSetup(rows, &seq)
		if err != nil {
			return warehouse.SetupPage{}, fmt.Errorf("list setups: %w", mapErr(err))
		}
		if len(page.Setups) == limit {
			page.NextCursor = strconv.FormatInt(lastSeq, 10)
			break
		}
		page.Setups = append(page.Setups, m)
		page.Cursors = append(page.Cursors, strconv.FormatInt(seq, 10))
		lastSeq = seq
	}
	if err := rows.Err(); err != nil {
		return warehouse.SetupPage{}, fmt.Errorf("list setups: %w", mapErr(err))
	}
	return page, nil
}

// CountSetups returns the number of env's setups.
func (s *Store) CountSetups(ctx context.Context, env string) (int, error) {
	if err := s.checkOpen("count setups"); err != nil {
		return 0, err
	}
	var n int
	if err := s.reader.QueryRowContext(ctx, `SELECT count(*) FROM monitor_setups WHERE environment = ?`, env).Scan(&n); err != nil {
		return 0, fmt.Errorf("count setups: %w", mapErr(err))
	}
	return n, nil
}

// SetupBytes returns the bytes of env's setup documents.
func (s *Store) SetupBytes(ctx context.Context, env string) (int64, error) {
	if err := s.checkOpen("setup bytes"); err != nil {
		return 0, err
	}
	var n int64
	if err := s.reader.QueryRowContext(ctx, `SELECT coalesce(sum(length(CAST(document AS BLOB))), 0) FROM monitor_setups WHERE environment = ?`, env).Scan(&n); err != nil {
		return 0, fmt.Errorf("setup bytes: %w", mapErr(err))
	}
	return n, nil
}

// UpdateSetup replaces a setup whose stored version is m.Version-1.
func (s *Store) UpdateSetup(ctx context.Context, m warehouse.MonitorSetup) error {
	if err := s.checkOpen("update setup"); err != nil {
		return err
	}
	doc, err := json.Marshal(m)
	if err != nil {
		return fmt.Errorf("update setup: encode: %w", err)
	}
	res, err := s.writer.ExecContext(ctx, `UPDATE monitor_setups SET project_id = ?, external_id = ?, entity_type = ?,
		entity_value = ?, status = ?, version = ?, document = ? WHERE id = ? AND environment = ? AND version = ?`,
		m.ProjectID, m.ExternalID, m.EntityType, m.EntityValue, m.Status, m.Version, string(doc), m.ID, m.Environment, m.Version-1)
	if isUniqueViolation(err) {
		return fmt.Errorf("update setup: external_id %q: %w", m.ExternalID, warehouse.ErrConflict)
	}
	if err != nil {
		return fmt.Errorf("update setup: %w", mapErr(err))
	}
	if n, _ := res.RowsAffected(); n == 1 {
		return nil
	}
	var version int64
	err = s.writer.QueryRowContext(ctx, `SELECT version FROM monitor_setups WHERE id = ? AND environment = ?`, m.ID, m.Environment).Scan(&version)
	if errors.Is(err, sql.ErrNoRows) {
		return fmt.Errorf("update setup %q: %w", m.ID, warehouse.ErrNotFound)
	}
	if err != nil {
		return fmt.Errorf("update setup: %w", mapErr(err))
	}
	return fmt.Errorf("update setup %q: stored version %d, expected %d: %w", m.ID, version, m.Version-1, warehouse.ErrConflict)
}

// DeleteSetup removes one of env's setups.
func (s *Store) DeleteSetup(ctx context.Context, env, id string) error {
	if err := s.checkOpen("delete setup"); err != nil {
		return err
	}
	res, err := s.writer.ExecContext(ctx, `DELETE FROM monitor_setups WHERE id = ? AND environment = ?`, id, env)
	if err != nil {
		return fmt.Errorf("delete setup: %w", mapErr(err))
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("setup %q: %w", id, warehouse.ErrNotFound)
	}
	return nil
}

// AllSetups returns every setup of every environment.
func (s *Store) AllSetups(ctx context.Context) ([]warehouse.MonitorSetup, error) {
	if err := s.checkOpen("read setups"); err != nil {
		return nil, err
	}
	rows, err := s.reader.QueryContext(ctx, `SELECT environment, version, document FROM monitor_setups ORDER BY seq`)
	if err != nil {
		return nil, fmt.Errorf("read setups: %w", mapErr(err))
	}
	defer rows.Close()
	var out []warehouse.MonitorSetup
	for rows.Next() {
		m, err := scanSetup(rows)
		if err != nil {
			return nil, fmt.Errorf("read setups: %w", mapErr(err))
		}
		out = append(out, m)
	}
	return out, rows.Err()
}

// SetupsVersion returns the number of setups, the highest sequence and
// the sum of the versions: a create, an update (the version grows) or a
// delete changes it (see warehouse.SetupsVersioner).
func (s *Store) SetupsVersion(ctx context.Context) (string, error) {
	if err := s.checkOpen("setups version"); err != nil {
		return "", err
	}
	var n, maxSeq, versions int64
	if err := s.reader.QueryRowContext(ctx, `SELECT count(*), coalesce(max(seq), 0), coalesce(sum(version), 0) FROM monitor_setups`).
		Scan(&n, &maxSeq, &versions); err != nil {
		return "", fmt.Errorf("setups version: %w", mapErr(err))
	}
	return fmt.Sprintf("%d-%d-%d", n, maxSeq, versions), nil
}

type scanner interface{ Scan(dest ...any) error }

// scanSetup reads (environment, version, document), after the extra
// leading columns in pre.
func scanSetup(row scanner, pre ...any) (warehouse.MonitorSetup, error) {
	var env, doc string
	var version int64
	if err := row.Scan(append(pre, &env, &version, &doc)...); err != nil {
		return warehouse.MonitorSetup{}, err
	}
	var m warehouse.MonitorSetup
	if err := json.Unmarshal([]byte(doc), &m); err != nil {
		return warehouse.MonitorSetup{}, fmt.Errorf("decode setup document: %w", err)
	}
	m.Environment, m.Version = env, version
	return m, nil
}

func isUniqueViolation(err error) bool {
	return err != nil && strings.Contains(err.Error(), "UNIQUE constraint failed")
}
