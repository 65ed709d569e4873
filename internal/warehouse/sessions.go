package warehouse

import (
	"context"
	"time"
)

// Session is a console session kept in the warehouse, so that every
// collector of the warehouse knows it and a logout or a revoked key ends
// it everywhere. The session token itself is never stored: TokenHash is
// the hex SHA-256 of it.
type Session struct {
	TokenHash      string
	Environment    string
	OrganizationID string
	ProjectID      string
	// KeyDigest is the hex SHA-256 of the API key that opened the
	// session, as APIKey.Digest: revoking that runtime key ends it.
	KeyDigest string
	// KeyID is the key's evaluator-limits fingerprint (the playground's
	// runs are charged to it).
	KeyID     string
	CreatedAt time.Time
	ExpiresAt time.Time
}

// SessionStore keeps console sessions, shared by every collector of a
// warehouse.
type SessionStore interface {
	// CreateSession stores a new session.
	CreateSession(ctx context.Context, s Session) error
	// GetSession returns the live session whose token has that hash:
	// ErrNotFound when there is none, when it was ended (EndSession),
	// when it expired by now, or when the runtime API key that opened it
	// (KeyDigest) is revoked. It is one indexed lookup.
	GetSession(ctx context.Context, tokenHash string, now time.Time) (Session, error)
	// EndSession ends a session (a logout); ending an unknown or ended
	// session is no error.
	EndSession(ctx context.Context, tokenHash string, at time.Time) error
	// PurgeSessions deletes the sessions that expired before before and
	// returns how many it deleted (on ClickHouse, where deletion is
	// asynchronous, -1 when it cannot tell).
	PurgeSessions(ctx context.Context, before time.Time) (int64, error)
}
