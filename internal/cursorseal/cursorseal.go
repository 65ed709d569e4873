// Package cursorseal seals the pagination cursors the API and the console
// hand out, so that a cursor is opaque and bound to the environment it was
// issued to. The warehouse's own cursors carry insertion sequence numbers
// shared by every tenant (a span or metric cursor's snapshot grows with
// every tenant's writes); sealed, a tenant learns nothing from them, and
// a cursor of another environment, or of another kind of listing, is
// refused.
//
// A sealed cursor is base64url(version ‖ nonce ‖ AES-256-GCM(inner)) with
// the kind and the environment as additional data. The AES key is derived
// from a secret that all collectors of a warehouse share (kept in the
// warehouse), so each accepts the cursors of the others.
package cursorseal

import (
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"sync"
	"time"
)

// Kinds of cursor: a cursor opens only for the kind it was sealed for.
const (
	Spans   = "spans"
	Metrics = "metrics"
	Setups  = "setups"
	Traces  = "traces"
)

// KeySource returns the secrets cursors are sealed with: the first seals,
// every one opens (collectors sharing a warehouse may briefly disagree on
// the first). It is called lazily and again when a cursor fails to open.
type KeySource func(ctx context.Context) ([][]byte, error)

// StaticKeys is a KeySource of one secret.
func StaticKeys(secret []byte) KeySource {
	return func(context.Context) ([][]byte, error) { return [][]byte{secret}, nil }
}

// ErrForeign is returned for a cursor that does not open: sealed for
// another environment or kind, with another warehouse's secret, or
// altered.
var ErrForeign = errors.New("the cursor was not issued for this environment and listing (or was altered)")

// ErrMalformed is returned for a string that is not a sealed cursor.
var ErrMalformed = errors.New("malformed cursor")

// version is the first byte of every sealed cursor.
const version = 1

// padTo returns the block the inner cursor of a kind is padded to a
// multiple of before sealing, so that the length of a cursor does not
// follow the numbers in it (a snapshot sequence number gains digits as
// every tenant writes): the cursors of one listing have one length while
// their inner cursor stays under the block. The metric and setup cursors
// are integers (at most 19 digits); span cursors carry the last sort value
// too.
func padTo(kind string) int {
	switch kind {
	case Metrics, Setups:
		return 32
	}
	return 128
}

// pad appends 0x80 and zeros up to a multiple of block (ISO/IEC 7816-4).
func pad(inner string, block int) []byte {
	n := (len(inner)/block + 1) * block
	out := make([]byte, n)
	copy(out, inner)
	out[len(inner)] = 0x80
	return out
}

// unpad removes pad's padding.
func unpad(b []byte) (string, bool) {
	i := len(b) - 1
	for i >= 0 && b[i] == 0 {
		i--
	}
	if i < 0 || b[i] != 0x80 {
		return "", false
	}
	return string(b[:i]), true
}

// MaxLen bounds the sealed cursors Open reads.
const MaxLen = 4096

// reloadEvery bounds how often a cursor that fails to open makes the
// sealer read its secrets again.
const reloadEvery = 5 * time.Second

// Sealer seals and opens cursors. It is safe for concurrent use.
type Sealer struct {
	source KeySource

	mu         sync.Mutex
	aeads      []cipher.AEAD
	lastReload time.Time
}

// New returns a sealer over the secrets of source.
func New(source KeySource) *Sealer { return &Sealer{source: source} }

func (s *Sealer) load(ctx context.Context, reload bool) ([]cipher.AEAD, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.aeads != nil && (!reload || time.Since(s.lastReload) < reloadEvery) {
		return s.aeads, nil
	}
	secrets, err := s.source(ctx)
	if err != nil {
		if s.aeads != nil {
			return s.aeads, nil
		}
		return nil, fmt.Errorf("load cursor secret: %w", err)
	}
	if len(secrets) == 0 {
		return nil, errors.New("load cursor secret: no secret")
	}
	aeads := make([]cipher.AEAD, len(secrets))
	for i, sec := range secrets {
		m := hmac.New(sha256.New, []byte("evalcol cursor key v1"))
		m.Write(sec)
		block, err := aes.NewCipher(m.Sum(nil))
		if err != nil {
			return nil, fmt.Errorf("cursor cipher: %w", err)
		}
		if aeads[i], err = cipher.NewGCM(block); err != nil {
			return nil, fmt.Errorf("cursor cipher: %w", err)
		}
	}
	s.aeads, s.lastReload = aeads, time.Now()
	return aeads, nil
}

func additionalData(kind, env string) []byte {
	return []byte("evalcol cursor v1\x00" + kind + "\x00" + env)
}

var b64 = base64.RawURLEncoding

// Seal returns the opaque cursor of inner for environment env and kind;
// "" stays "" (no next page).
func (s *Sealer) Seal(ctx context.Context, kind, env, inner string) (string, error) {
	if inner == "" {
		return "", nil
	}
	aeads, err := s.load(ctx, false)
	if err != nil {
		return "", err
	}
	a := aeads[0]
	plain := pad(inner, padTo(kind))
	out := make([]byte, 1+a.NonceSize(), 1+a.NonceSize()+len(plain)+a.Overhead())
	out[0] = version
	_, _ = rand.Read(out[1:]) // never fails (crypto/rand)
	out = a.Seal(out, out[1:], plain, additionalData(kind, env))
	return b64.EncodeToString(out), nil
}

// Open returns the inner cursor of a sealed one issued for env and kind:
// ErrMalformed when sealed is no sealed cursor, ErrForeign when it was
// sealed for something else.
func (s *Sealer) Open(ctx context.Context, kind, env, sealed string) (string, error) {
	if len(sealed) > MaxLen {
		return "", ErrMalformed
	}
	raw, err := b64.DecodeString(sealed)
	if err != nil || len(raw) < 1 || raw[0] != version {
		return "", ErrMalformed
	}
	for _, reload := range []bool{false, true} {
		aeads, err := s.load(ctx, reload)
		if err != nil {
			return "", err
		}
		for _, a := range aeads {
			if len(raw) < 1+a.NonceSize()+a.Overhead() {
				return "", ErrMalformed
			}
			if plain, err := a.Open(nil, raw[1:1+a.NonceSize()], raw[1+a.NonceSize():], additionalData(kind, env)); err == nil {
				inner, ok := unpad(plain)
				if !ok {
					return "", ErrMalformed
				}
				return inner, nil
			}
		}
	}
	return "", ErrForeign
}
