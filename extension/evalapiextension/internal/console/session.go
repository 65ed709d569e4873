package console

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/evalcol/evalcol/internal/tenant"
	"github.com/evalcol/evalcol/internal/warehouse"
)

// Cookie names.
const (
	sessionCookie = "evalcol_session"
	// loginCookie holds the nonce that the login form's CSRF token is
	// derived from (there is no session yet to bind it to).
	loginCookie = "evalcol_login"
)

// session is a live console session as a request sees it: the tenant of
// the API key that logged in, the session's id (the hex SHA-256 of its
// token, which the CSRF tokens derive from) and the expiry. It is read from
// the warehouse (warehouse.Session); the API key itself is never stored.
type session struct {
	Environment    string
	OrganizationID string
	ProjectID      string
	ID             string
	Expires        int64 // Unix seconds
	// KeyDigest is the hex SHA-256 of the API key that logged in: the
	// session lives only while the keyring still accepts that key.
	KeyDigest string
	// KeyID is the fingerprint of the API key that logged in
	// (httpapi.KeyFingerprint): the playground's runs are charged to that
	// key's evaluator limits.
	KeyID string
}

func sessionOf(ws warehouse.Session) session {
	return session{Environment: ws.Environment, OrganizationID: ws.OrganizationID, ProjectID: ws.ProjectID,
		ID: ws.TokenHash, Expires: ws.ExpiresAt.Unix(), KeyDigest: ws.KeyDigest, KeyID: ws.KeyID}
}

// limitKey is the identity the session's playground runs are limited
// under: its key's, or the session's own when it has none.
func (s session) limitKey() string {
	if s.KeyID != "" {
		return s.KeyID
	}
	return "session:" + s.ID
}

func (s session) tenant() tenant.Tenant {
	return tenant.Tenant{Environment: s.Environment, OrganizationID: s.OrganizationID, ProjectID: s.ProjectID}
}

// KeySource returns the secrets that sign sessions: the first signs, every
// one verifies (collectors sharing a warehouse may briefly disagree on the
// first). It is called lazily and again when a cookie fails to verify.
type KeySource func(ctx context.Context) ([][]byte, error)

// StaticKeys is a KeySource of one configured secret.
func StaticKeys(secret string) KeySource {
	return func(context.Context) ([][]byte, error) { return [][]byte{[]byte(secret)}, nil }
}

// signer signs and verifies cookies and CSRF tokens with HMAC-SHA256 keys
// derived from the secrets of a KeySource.
type signer struct {
	source KeySource
	now    func() time.Time

	mu         sync.Mutex
	keys       [][]byte // derived keys; nil until loaded
	lastReload time.Time
}

// reloadEvery bounds how often a cookie that fails to verify makes the
// signer read its secrets again.
const reloadEvery = 5 * time.Second

func newSigner(source KeySource, now func() time.Time) *signer {
	return &signer{source: source, now: now}
}

// derive turns a secret into the HMAC key of the console's cookies, so
// that a secret shared with something else never signs the same bytes.
func derive(secret []byte) []byte {
	m := hmac.New(sha256.New, []byte("evalcol console session v1"))
	m.Write(secret)
	return m.Sum(nil)
}

// load returns the keys, reading the source on first use or when reload
// is set and the last read is older than reloadEvery.
func (s *signer) load(ctx context.Context, reload bool) ([][]byte, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.keys != nil && (!reload || s.now().Sub(s.lastReload) < reloadEvery) {
		return s.keys, nil
	}
	secrets, err := s.source(ctx)
	if err != nil {
		if s.keys != nil {
			return s.keys, nil
		}
		return nil, fmt.Errorf("load session secret: %w", err)
	}
	if len(secrets) == 0 {
		return nil, errors.New("load session secret: no secret")
	}
	keys := make([][]byte, len(secrets))
	for i, sec := range secrets {
		keys[i] = derive(sec)
	}
	s.keys, s.lastReload = keys, s.now()
	return keys, nil
}

func mac(key []byte, parts ...string) []byte {
	m := hmac.New(sha256.New, key)
	for _, p := range parts {
		m.Write([]byte(p))
		m.Write([]byte{0})
	}
	return m.Sum(nil)
}

var b64 = base64.RawURLEncoding

// The session cookie is "<token>.<signature>": token is 256 random bits,
// the warehouse keeps only its SHA-256 (warehouse.Session.TokenHash), and
// the signature lets a collector refuse a made-up cookie without asking
// the warehouse.

// newToken returns a new session token and its cookie value.
func (s *signer) newToken(ctx context.Context) (token, value string, err error) {
	keys, err := s.load(ctx, false)
	if err != nil {
		return "", "", err
	}
	b := make([]byte, 32)
	_, _ = rand.Read(b) // never fails (crypto/rand panics on a broken source)
	token = b64.EncodeToString(b)
	return token, token + "." + b64.EncodeToString(mac(keys[0], "session token", token)), nil
}

// tokenOf verifies a cookie value and returns its token; ok is false for
// a forged or malformed cookie.
func (s *signer) tokenOf(ctx context.Context, value string) (string, bool) {
	token, sig, found := strings.Cut(value, ".")
	if !found || len(value) > 256 || len(token) != 43 {
		return "", false
	}
	got, err := b64.DecodeString(sig)
	if err != nil || len(got) != sha256.Size {
		return "", false
	}
	return token, s.verify(ctx, got, "session token", token)
}

// tokenHash is the stored form of a session token.
func tokenHash(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}

// verify reports whether sig is the MAC of parts under any key, reading
// the secrets again (rate-limited) when none matches: another collector
// sharing the warehouse may have signed with a secret this one has not
// seen yet.
func (s *signer) verify(ctx context.Context, sig []byte, parts ...string) bool {
	for _, reload := range []bool{false, true} {
		keys, err := s.load(ctx, reload)
		if err != nil {
			return false
		}
		for _, k := range keys {
			if hmac.Equal(sig, mac(k, parts...)) {
				return true
			}
		}
	}
	return false
}

// csrfToken is the CSRF token of the forms of a session (purpose
// "session", bound to the session id) or of the login form (purpose
// "login", bound to the login cookie's nonce).
func (s *signer) csrfToken(ctx context.Context, purpose, binding string) (string, error) {
	keys, err := s.load(ctx, false)
	if err != nil {
		return "", err
	}
	return b64.EncodeToString(mac(keys[0], "csrf", purpose, binding)), nil
}

// checkCSRF reports whether token is the CSRF token of purpose and binding.
func (s *signer) checkCSRF(ctx context.Context, token, purpose, binding string) bool {
	got, err := b64.DecodeString(token)
	if err != nil || len(got) != sha256.Size || binding == "" {
		return false
	}
	return s.verify(ctx, got, "csrf", purpose, binding)
}

// randomToken returns 128 random bits, base64url-encoded.
func randomToken() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b) // never fails (crypto/rand panics on a broken source)
	return b64.EncodeToString(b)
}
