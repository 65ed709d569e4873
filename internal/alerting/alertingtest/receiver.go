// Package alertingtest is a real webhook receiver for tests of alert
// notifications: it checks each JSON notification's signature and keeps
// the payloads it accepted.
package alertingtest

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/evalcol/evalcol/internal/alerting"
)

// Receiver is an HTTP server on a loopback port taking notifications
// signed with its secret.
type Receiver struct {
	*httptest.Server
	mu      sync.Mutex
	got     []alerting.Payload
	badSigs int
	fail    int
}

// NewReceiver starts a receiver, closed when t ends.
func NewReceiver(t testing.TB, secret string) *Receiver {
	rc := &Receiver{}
	rc.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		rc.mu.Lock()
		defer rc.mu.Unlock()
		if rc.fail > 0 {
			rc.fail--
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		if alerting.Sign(secret, r.Header.Get(alerting.HeaderTimestamp), body) != r.Header.Get(alerting.HeaderSignature) {
			rc.badSigs++
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		var p alerting.Payload
		if err := json.Unmarshal(body, &p); err != nil {
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		rc.got = append(rc.got, p)
	}))
	t.Cleanup(rc.Close)
	return rc
}

// FailNext answers the next n requests 503.
func (rc *Receiver) FailNext(n int) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	rc.fail = n
}

// Payloads returns the notifications accepted so far.
func (rc *Receiver) Payloads() []alerting.Payload {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return append([]alerting.Payload(nil), rc.got...)
}

// BadSignatures counts the notifications refused for their signature.
func (rc *Receiver) BadSignatures() int {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return rc.badSigs
}
