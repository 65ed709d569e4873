// Package randid makes the random ids of stored objects (setups, tasks,
// datasets, rows, runs, ...).
package randid

import (
	"crypto/rand"
	"encoding/hex"
)

// New returns 128 random bits in hex (32 characters).
func New() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // never fails (crypto/rand)
	return hex.EncodeToString(b[:])
}
