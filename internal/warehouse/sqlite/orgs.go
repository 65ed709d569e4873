package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/evalcol/evalcol/internal/warehouse"
)

// Organizations are JSON documents keyed by id; API keys are rows (their
// digest is looked up on every authentication that misses the cache).

// CreateOrganization stores an organization and its keys in one
// transaction.
func (s *Store) CreateOrganization(ctx context.Context, o warehouse.Organization, keys []warehouse.APIKey) error {
	if err := s.checkOpen("create organization"); err != nil {
		return err
	}
	doc, err := warehouse.EncodeOrganization(o)
	if err != nil {
		return fmt.Errorf("create organization: %w", err)
	}
	tx, err := s.writer.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("create organization: %w", mapErr(err))
	}
	defer tx.Rollback() //nolint:errcheck // no-op after Commit
	if _, err := tx.ExecContext(ctx, `INSERT INTO organizations (id, version, document) VALUES (?, ?, ?)`, o.ID, o.Version, doc); err != nil {
		if isUniqueViolation(err) {
			return fmt.Errorf("create organization %q: %w", o.ID, warehouse.ErrConflict)
		}
		return fmt.Errorf("create organization: %w", mapErr(err))
	}
	for _, k := range keys {
		if err := insertKey(ctx, tx, k); err != nil {
			return fmt.Errorf("create organization: %w", err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("create organization: %w", mapErr(err))
	}
	return nil
}

type execer interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

func insertKey(ctx context.Context, db execer, k warehouse.APIKey) error {
	var revoked any
	if k.RevokedAt != nil {
		revoked = k.RevokedAt.UnixMilli()
	}
	_, err := db.ExecContext(ctx, `INSERT INTO api_keys (id, digest, org_id, env_slug, environment, project_id, created_at, revoked_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?)`, k.ID, k.Digest, k.OrgID, k.EnvSlug, k.Environment, k.ProjectID, k.CreatedAt.UnixMilli(), revoked)
	if isUniqueViolation(err) {
		return fmt.Errorf("api key %q: %w", k.ID, warehouse.ErrConflict)
	}
	if err != nil {
		return fmt.Errorf("insert api key: %w", mapErr(err))
	}
	return nil
}

// GetOrganization returns one organization.
func (s *Store) GetOrganization(ctx context.Context, id string) (warehouse.Organization, error) {
	if err := s.checkOpen("get organization"); err != nil {
		return warehouse.Organization{}, err
	}
	var doc string
	var version int64
	err := s.reader.QueryRowContext(ctx, `SELECT version, document FROM organizations WHERE id = ?`, id).Scan(&version, &doc)
	if errors.Is(err, sql.ErrNoRows) {
		return warehouse.Organization{}, fmt.Errorf("organization %q: %w", id, warehouse.ErrNotFound)
	}
	if err != nil {
		return warehouse.Organization{}, fmt.Errorf("get organization: %w", mapErr(err))
	}
	return warehouse.DecodeOrganization(doc, version)
}

// ListOrganizations returns every organization in creation order.
func (s *Store) ListOrganizations(ctx context.Context) ([]warehouse.Organization, error) {
	if err := s.checkOpen("list organizations"); err != nil {
		return nil, err
	}
	rows, err := s.reader.QueryContext(ctx, `SELECT version, document FROM organizations ORDER BY seq`)
	if err != nil {
		return nil, fmt.Errorf("list organizations: %w", mapErr(err))
	}
	defer rows.Close()
	out := []warehouse.Organization{}
	for rows.Next() {
		var doc string
		var version int64
		if err := rows.Scan(&version, &doc); err != nil {
			return nil, fmt.Errorf("list organizations: %w", mapErr(err))
		}
		o, err := warehouse.DecodeOrganization(doc, version)
		if err != nil {
			return nil, err
		}
		out = append(out, o)
	}
	return out, mapErr(rows.Err())
}

// UpdateOrganization replaces an organization whose stored version is
// o.Version-1.
func (s *Store) UpdateOrganization(ctx context.Context, o warehouse.Organization) error {
	if err := s.checkOpen("update organization"); err != nil {
		return err
	}
	doc, err := warehouse.EncodeOrganization(o)
	if err != nil {
		return fmt.Errorf("update organization: %w", err)
	}
	res, err := s.writer.ExecContext(ctx, `UPDATE organizations SET version = ?, document = ? WHERE id = ? AND version = ?`, o.Version, doc, o.ID, o.Version-1)
	if err != nil {
		return fmt.Errorf("update organization: %w", mapErr(err))
	}
	if n, _ := res.RowsAffected(); n == 1 {
		return nil
	}
	if _, err := s.GetOrganization(ctx, o.ID); err != nil {
		return fmt.Errorf("update organization: %w", err)
	}
	return fmt.Errorf("update organization %q: stored version is not %d: %w", o.ID, o.Version-1, warehouse.ErrConflict)
}

// CreateAPIKey stores a new key.
func (s *Store) CreateAPIKey(ctx context.Context, k warehouse.APIKey) error {
	if err := s.checkOpen("create api key"); err != nil {
		return err
	}
	if err := insertKey(ctx, s.writer, k); err != nil {
		return fmt.Errorf("create api key: %w", err)
	}
	return nil
}

// RevokeAPIKey revokes a key of an organization; a revoked key keeps its
// first revocation time.
func (s *Store) RevokeAPIKey(ctx context.Context, orgID, keyID string, at time.Time) error {
	if err := s.checkOpen("revoke api key"); err != nil {
		return err
	}
	res, err := s.writer.ExecContext(ctx, `UPDATE api_keys SET revoked_at = coalesce(revoked_at, ?) WHERE id = ? AND org_id = ?`, at.UnixMilli(), keyID, orgID)
	if err != nil {
		return fmt.Errorf("revoke api key: %w", mapErr(err))
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("api key %q of organization %q: %w", keyID, orgID, warehouse.ErrNotFound)
	}
	return nil
}

const keyColumns = `id, digest, org_id, env_slug, environment, project_id, created_at, revoked_at`

func scanKey(row scanner) (warehouse.APIKey, error) {
	var k warehouse.APIKey
	var created int64
	var revoked sql.NullInt64
	if err := row.Scan(&k.ID, &k.Digest, &k.OrgID, &k.EnvSlug, &k.Environment, &k.ProjectID, &created, &revoked); err != nil {
		return k, err
	}
	k.CreatedAt = time.UnixMilli(created).UTC()
	if revoked.Valid {
		t := time.UnixMilli(revoked.Int64).UTC()
		k.RevokedAt = &t
	}
	return k, nil
}

// APIKeys returns the keys of an organization (every organization's when
// orgID is empty) in creation order.
func (s *Store) APIKeys(ctx context.Context, orgID string) ([]warehouse.APIKey, error) {
	if err := s.checkOpen("list api keys"); err != nil {
		return nil, err
	}
	query, args := `SELECT `+keyColumns+` FROM api_keys ORDER BY seq`, []any(nil)
	if orgID != "" {
		query, args = `SELECT `+keyColumns+` FROM api_keys WHERE org_id = ? ORDER BY seq`, []any{orgID}
	}
	rows, err := s.reader.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("list api keys: %w", mapErr(err))
	}
	defer rows.Close()
	out := []warehouse.APIKey{}
	for rows.Next() {
		k, err := scanKey(rows)
		if err != nil {
			return nil, fmt.Errorf("list api keys: %w", mapErr(err))
		}
		out = append(out, k)
	}
	return out, mapErr(rows.Err())
}

// APIKeyByDigest returns the key with that digest.
func (s *Store) APIKeyByDigest(ctx context.Context, digest string) (warehouse.APIKey, error) {
	if err := s.checkOpen("look up api key"); err != nil {
		return warehouse.APIKey{}, err
	}
	k, err := scanKey(s.reader.QueryRowContext(ctx, `SELECT `+keyColumns+` FROM api_keys WHERE digest = ?`, digest))
	if errors.Is(err, sql.ErrNoRows) {
		return warehouse.APIKey{}, fmt.Errorf("api key: %w", warehouse.ErrNotFound)
	}
	if err != nil {
		return warehouse.APIKey{}, fmt.Errorf("look up api key: %w", mapErr(err))
	}
	return k, nil
}

// APIKeysVersion is "<keys>-<revoked keys>": keys are never deleted and
// revocation is final, so the pair changes with every change.
func (s *Store) APIKeysVersion(ctx context.Context) (string, error) {
	if err := s.checkOpen("api keys version"); err != nil {
		return "", err
	}
	var n, revoked int64
	if err := s.reader.QueryRowContext(ctx, `SELECT count(*), count(revoked_at) FROM api_keys`).Scan(&n, &revoked); err != nil {
		return "", fmt.Errorf("api keys version: %w", mapErr(err))
	}
	return strconv.FormatInt(n, 10) + "-" + strconv.FormatInt(revoked, 10), nil
}
