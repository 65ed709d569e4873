package organizations

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
)

// SecretPrefix starts every runtime API key, so that a leaked one is easy
// to recognise (and scan for).
const SecretPrefix = "evalcol_"

// newSecret returns a new API key: SecretPrefix and 256 random bits.
func newSecret() string {
	var b [32]byte
	_, _ = rand.Read(b[:]) // never fails (crypto/rand)
	return SecretPrefix + base64.RawURLEncoding.EncodeToString(b[:])
}

// DigestOf returns the SHA-256 digest of a secret, as the keyring computes
// it.
func DigestOf(secret string) [sha256.Size]byte { return sha256.Sum256([]byte(secret)) }

// digestHex is the stored form of a digest.
func digestHex(d [sha256.Size]byte) string { return hex.EncodeToString(d[:]) }

// newKeyID returns a public key id.
func newKeyID() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return "key_" + hex.EncodeToString(b[:])
}

// parseDigest reads a stored digest back.
func parseDigest(s string) ([sha256.Size]byte, bool) {
	d, err := hex.DecodeString(s)
	if err != nil || len(d) != sha256.Size {
		return [sha256.Size]byte{}, false
	}
	return [sha256.Size]byte(d), true
}
