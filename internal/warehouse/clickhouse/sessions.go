package clickhouse

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/evalcol/evalcol/internal/warehouse"
)

var _ warehouse.SessionStore = (*Store)(nil)

// insertSession writes one version of a session (ended 0 for a live one).
func (s *Store) insertSession(ctx context.Context, sess warehouse.Session, ended int64) error {
	batch, err := s.conn.PrepareBatch(s.writeCtx(ctx), "INSERT INTO "+s.schema.table("console_sessions")+
		" (token_hash, row_ver, environment, org_id, project_id, key_digest, key_id, created_at, expires_at, ended_at)")
	if err != nil {
		return mapErr(err)
	}
	if err := batch.Append(sess.TokenHash, time.Now().UnixNano(), sess.Environment, sess.OrganizationID, sess.ProjectID,
		sess.KeyDigest, sess.KeyID, sess.CreatedAt.UnixMilli(), sess.ExpiresAt.UnixMilli(), ended); err != nil {
		return mapErr(err)
	}
	return mapErr(batch.Send())
}

// CreateSession stores a new console session.
func (s *Store) CreateSession(ctx context.Context, sess warehouse.Session) error {
	if err := s.ready(ctx, "create session"); err != nil {
		return err
	}
	if err := s.insertSession(ctx, sess, 0); err != nil {
		return fmt.Errorf("create session: %w", err)
	}
	return nil
}

// session reads the merged state of a session: its fields and the
// latest ended_at of its rows (0 while live).
func (s *Store) session(ctx context.Context, tokenHash string) (warehouse.Session, int64, error) {
	var (
		sess                    warehouse.Session
		created, expires, ended int64
	)
	err := s.conn.QueryRow(ctx, "SELECT any(token_hash), any(environment), any(org_id), any(project_id), any(key_digest), any(key_id), "+
		"min(created_at), min(expires_at), max(ended_at) FROM "+s.schema.table("console_sessions")+
		" WHERE token_hash = ? GROUP BY token_hash", tokenHash).Scan(&sess.TokenHash, &sess.Environment, &sess.OrganizationID,
		&sess.ProjectID, &sess.KeyDigest, &sess.KeyID, &created, &expires, &ended)
	if err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return sess, 0, fmt.Errorf("session: %w", warehouse.ErrNotFound)
		}
		return sess, 0, mapErr(err)
	}
	sess.CreatedAt, sess.ExpiresAt = time.UnixMilli(created).UTC(), time.UnixMilli(expires).UTC()
	return sess, ended, nil
}

// GetSession returns a live session: one lookup by the table's sort key,
// then one of its key's revocation.
func (s *Store) GetSession(ctx context.Context, tokenHash string, now time.Time) (warehouse.Session, error) {
	if err := s.ready(ctx, "get session"); err != nil {
		return warehouse.Session{}, err
	}
	sess, ended, err := s.session(ctx, tokenHash)
	if err != nil {
		if errors.Is(err, warehouse.ErrNotFound) {
			return warehouse.Session{}, err
		}
		return warehouse.Session{}, fmt.Errorf("get session: %w", err)
	}
	if ended != 0 || !sess.ExpiresAt.After(now) {
		return warehouse.Session{}, fmt.Errorf("session: %w", warehouse.ErrNotFound)
	}
	k, err := s.APIKeyByDigest(ctx, sess.KeyDigest)
	switch {
	case errors.Is(err, warehouse.ErrNotFound): // a YAML key
	case err != nil:
		return warehouse.Session{}, fmt.Errorf("get session: %w", err)
	case k.RevokedAt != nil:
		return warehouse.Session{}, fmt.Errorf("session of a revoked key: %w", warehouse.ErrNotFound)
	}
	return sess, nil
}

// EndSession inserts the session again with ended_at set.
func (s *Store) EndSession(ctx context.Context, tokenHash string, at time.Time) error {
	if err := s.ready(ctx, "end session"); err != nil {
		return err
	}
	sess, ended, err := s.session(ctx, tokenHash)
	if errors.Is(err, warehouse.ErrNotFound) || (err == nil && ended != 0) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("end session: %w", err)
	}
	if err := s.insertSession(ctx, sess, max(at.UnixMilli(), 1)); err != nil {
		return fmt.Errorf("end session: %w", err)
	}
	return nil
}

// PurgeSessions deletes the expired sessions with an ALTER TABLE ...
// DELETE, which the server carries out in the background: it answers -1.
func (s *Store) PurgeSessions(ctx context.Context, before time.Time) (int64, error) {
	if err := s.ready(ctx, "purge sessions"); err != nil {
		return 0, err
	}
	if err := s.conn.Exec(ctx, fmt.Sprintf("ALTER TABLE %s%s DELETE WHERE expires_at < %d",
		s.schema.table(s.localTable("console_sessions")), s.schema.onCluster(), before.UnixMilli())); err != nil {
		return 0, fmt.Errorf("purge sessions: %w", mapErr(err))
	}
	return -1, nil
}
