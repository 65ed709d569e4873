package console

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/evalcol/evalcol/internal/tenant"
	"github.com/evalcol/evalcol/internal/warehouse"
)

// Server-side sessions. A session lives in the warehouse
// (warehouse.SessionStore), so that a logout or the revocation of the key
// that opened it ends it on every collector of the warehouse. A request's
// session is checked by
//
//  1. the cookie's signature (no I/O: a made-up cookie costs nothing),
//  2. the session row, by the SHA-256 of the token: one indexed lookup,
//     remembered for at most SessionCheckInterval, and
//  3. the keyring, by the digest of the key that logged in (in memory):
//     a key removed from the YAML or revoked on this collector ends the
//     session at once.
//
// So a logout or revocation on one collector ends the session there at
// once and on every other collector within SessionCheckInterval.

// SessionCheckInterval bounds how long a console trusts what it last read
// of a session in the warehouse: the time a logout or key revocation made
// through another collector takes to end the session here.
const SessionCheckInterval = 2 * time.Second

// Bounds of the in-process session cache and of the purge of expired
// sessions.
const (
	// maxCachedSessions bounds the cache: when full it is emptied (the
	// next requests read the warehouse again).
	maxCachedSessions = 10000
	// purgeEvery is how often logins purge expired sessions; logins are
	// what adds rows, so the table holds at most the sessions of the last
	// session_ttl plus purgeEvery.
	purgeEvery = 10 * time.Minute
)

type cachedSession struct {
	sess session
	ok   bool
	read time.Time
}

// sessionCache remembers the warehouse's answer about each session token
// hash for at most Options.SessionCheck.
type sessionCache struct {
	mu        sync.Mutex
	entries   map[string]cachedSession
	lastPurge time.Time
}

func newSessionCache() *sessionCache {
	return &sessionCache{entries: map[string]cachedSession{}}
}

func (sc *sessionCache) get(hash string, now time.Time, maxAge time.Duration) (cachedSession, bool) {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	e, ok := sc.entries[hash]
	if !ok || now.Sub(e.read) >= maxAge || now.Before(e.read) {
		return cachedSession{}, false
	}
	return e, true
}

func (sc *sessionCache) put(hash string, e cachedSession) {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	if len(sc.entries) >= maxCachedSessions {
		clear(sc.entries)
	}
	sc.entries[hash] = e
}

func (sc *sessionCache) forget(hash string) {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	delete(sc.entries, hash)
}

// purgeDue reports whether a purge of expired sessions is due now, and
// if so records it as done.
func (sc *sessionCache) purgeDue(now time.Time) bool {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	if !sc.lastPurge.IsZero() && now.Sub(sc.lastPurge) < purgeEvery {
		return false
	}
	sc.lastPurge = now
	return true
}

// currentSession returns the request's live session; ok is false without
// one, err is set when the warehouse could not tell.
func (c *Console) currentSession(r *http.Request) (sess session, ok bool, err error) {
	ck, cerr := r.Cookie(sessionCookie)
	if cerr != nil {
		return session{}, false, nil
	}
	token, valid := c.signer.tokenOf(r.Context(), ck.Value)
	if !valid {
		return session{}, false, nil
	}
	hash := tokenHash(token)
	now := c.opts.Now()
	e, cached := c.sessions.get(hash, now, c.opts.SessionCheck)
	if !cached {
		ws, err := c.opts.Store.GetSession(r.Context(), hash, now)
		switch {
		case errors.Is(err, warehouse.ErrNotFound):
			e = cachedSession{read: now}
		case err != nil:
			return session{}, false, fmt.Errorf("read the console session: %w", err)
		default:
			e = cachedSession{sess: sessionOf(ws), ok: true, read: now}
		}
		c.sessions.put(hash, e)
	}
	if !e.ok || now.Unix() >= e.sess.Expires || !c.keyStillValid(e.sess) {
		return session{}, false, nil
	}
	return e.sess, true, nil
}

// keyStillValid reports whether the keyring still accepts the key that
// opened sess, for the same environment.
func (c *Console) keyStillValid(sess session) bool {
	d, err := hex.DecodeString(sess.KeyDigest)
	if err != nil || len(d) != 32 {
		return false
	}
	t, ok := c.opts.Keys.LookupDigest([32]byte(d))
	return ok && t.Environment == sess.Environment
}

// startSession stores a new session of t opened with the key of digest
// keyDigest and returns its cookie value.
func (c *Console) startSession(ctx context.Context, t tenant.Tenant, keyDigest [32]byte, keyID string) (string, error) {
	token, value, err := c.signer.newToken(ctx)
	if err != nil {
		return "", err
	}
	now := c.opts.Now()
	ws := warehouse.Session{
		TokenHash: tokenHash(token), Environment: t.Environment, OrganizationID: t.OrganizationID, ProjectID: t.ProjectID,
		KeyDigest: hex.EncodeToString(keyDigest[:]), KeyID: keyID, CreatedAt: now, ExpiresAt: now.Add(c.opts.SessionTTL),
	}
	if err := c.opts.Store.CreateSession(ctx, ws); err != nil {
		return "", fmt.Errorf("store the console session: %w", err)
	}
	c.sessions.put(ws.TokenHash, cachedSession{sess: sessionOf(ws), ok: true, read: now})
	if c.sessions.purgeDue(now) {
		if _, err := c.opts.Store.PurgeSessions(ctx, now); err != nil {
			c.opts.Logger.Warn("purging expired console sessions failed; a login after the next purge interval tries again", zap.Error(err))
		}
	}
	return value, nil
}

// endSession ends the session of the request's cookie in the warehouse
// (a logout).
func (c *Console) endSession(r *http.Request) error {
	ck, err := r.Cookie(sessionCookie)
	if err != nil {
		return nil
	}
	token, ok := c.signer.tokenOf(r.Context(), ck.Value)
	if !ok {
		return nil
	}
	hash := tokenHash(token)
	c.sessions.put(hash, cachedSession{read: c.opts.Now()})
	if err := c.opts.Store.EndSession(r.Context(), hash, c.opts.Now()); err != nil {
		c.sessions.forget(hash)
		return fmt.Errorf("end the console session: %w", err)
	}
	return nil
}
