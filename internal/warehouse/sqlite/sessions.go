package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/evalcol/evalcol/internal/warehouse"
)

var _ warehouse.SessionStore = (*Store)(nil)

// CreateSession stores a new console session.
func (s *Store) CreateSession(ctx context.Context, sess warehouse.Session) error {
	if err := s.checkOpen("create session"); err != nil {
		return err
	}
	if _, err := s.writer.ExecContext(ctx, `INSERT INTO console_sessions
		(token_hash, environment, org_id, project_id, key_digest, key_id, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
		sess.TokenHash, sess.Environment, sess.OrganizationID, sess.ProjectID, sess.KeyDigest, sess.KeyID,
		sess.CreatedAt.UnixMilli(), sess.ExpiresAt.UnixMilli()); err != nil {
		return fmt.Errorf("create session: %w", mapErr(err))
	}
	return nil
}

// GetSession returns a live session by its token hash: one primary-key
// lookup, and one probe of the api_keys digest index for a revoked key.
func (s *Store) GetSession(ctx context.Context, tokenHash string, now time.Time) (warehouse.Session, error) {
	if err := s.checkOpen("get session"); err != nil {
		return warehouse.Session{}, err
	}
	var (
		sess             warehouse.Session
		created, expires int64
	)
	err := s.reader.QueryRowContext(ctx, `SELECT token_hash, environment, org_id, project_id, key_digest, key_id, created_at, expires_at
		FROM console_sessions s WHERE token_hash = ? AND expires_at > ?
		AND NOT EXISTS (SELECT 1 FROM api_keys k WHERE k.digest = s.key_digest AND k.revoked_at IS NOT NULL)`,
		tokenHash, now.UnixMilli()).Scan(&sess.TokenHash, &sess.Environment, &sess.OrganizationID, &sess.ProjectID,
		&sess.KeyDigest, &sess.KeyID, &created, &expires)
	if errors.Is(err, sql.ErrNoRows) {
		return warehouse.Session{}, fmt.Errorf("session: %w", warehouse.ErrNotFound)
	}
	if err != nil {
		return warehouse.Session{}, fmt.Errorf("get session: %w", mapErr(err))
	}
	sess.CreatedAt, sess.ExpiresAt = time.UnixMilli(created).UTC(), time.UnixMilli(expires).UTC()
	return sess, nil
}

// EndSession deletes a session.
func (s *Store) EndSession(ctx context.Context, tokenHash string, _ time.Time) error {
	if err := s.checkOpen("end session"); err != nil {
		return err
	}
	if _, err := s.writer.ExecContext(ctx, `DELETE FROM console_sessions WHERE token_hash = ?`, tokenHash); err != nil {
		return fmt.Errorf("end session: %w", mapErr(err))
	}
	return nil
}

// PurgeSessions deletes the sessions expired before before.
func (s *Store) PurgeSessions(ctx context.Context, before time.Time) (int64, error) {
	if err := s.checkOpen("purge sessions"); err != nil {
		return 0, err
	}
	res, err := s.writer.ExecContext(ctx, `DELETE FROM console_sessions WHERE expires_at < ?`, before.UnixMilli())
	if err != nil {
		return 0, fmt.Errorf("purge sessions: %w", mapErr(err))
	}
	n, _ := res.RowsAffected()
	return n, nil
}
