package e2etest

import (
	"errors"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/evalcol/evalcol/internal/testcollector"
)

// slowClientConfig is the default pipeline with the slow-client bounds of
// examples/*.yaml (read_header_timeout, read_timeout, keepalive
// idle_timeout) scaled down, on the OTLP/HTTP receiver and the API server,
// so that the test sees them act in a second instead of half a minute.
const slowClientConfig = `
extensions:
  evalapi:
    endpoint: {{.API}}
    read_header_timeout: 400ms
    read_timeout: 800ms
    keepalive: {idle_timeout: 400ms}
    warehouse: {backend: sqlite, path: {{.DataDir}}/evalcol.db}
    api_keys:
      - {key: ` + testcollector.DefaultAPIKey + `, environment: production}
receivers:
  otlp:
    protocols:
      http:
        endpoint: {{.OTLPHTTP}}
        auth: {authenticator: evalapi}
        middlewares: [{id: evalapi}]
        read_header_timeout: 400ms
        read_timeout: 800ms
        keepalive: {idle_timeout: 400ms}
processors:
  tenant: {}
exporters:
  warehouse: {api: evalapi}
service:
  telemetry: {metrics: {level: none}, logs: {level: error}}
  extensions: [evalapi]
  pipelines:
    traces: {receivers: [otlp], processors: [tenant], exporters: [warehouse]}
`

// slowClientSlack is how much later than its bound a connection may be
// closed (a loaded CI machine).
const slowClientSlack = 2 * time.Second

// TestSlowClientsAreCut: a client that sends its headers one line at a
// time, or its body one byte at a time, or keeps an idle connection, is
// disconnected by both HTTP ports within the configured bounds (it used to
// hold the OTLP port for ever, and the API port for a minute; a slowly
// sent body, even an unauthenticated POST /ui/login, held either port).
func TestSlowClientsAreCut(t *testing.T) {
	c := testcollector.Start(t, slowClientConfig)
	const (
		header = 400 * time.Millisecond
		read   = 800 * time.Millisecond
		idle   = 400 * time.Millisecond
	)
	auth := "Authorization: Bearer " + testcollector.DefaultAPIKey + "\r\n"
	for _, tc := range []struct {
		name, addr string
		start      string // written at once
		dribble    string // then one byte every dribbleEvery, in a loop
		bound      time.Duration
	}{
		{"otlp headers", c.OTLPHTTP, "POST /v1/traces HTTP/1.1\r\nHost: x\r\n", "X-Slow: y\r\n", header},
		{"otlp body", c.OTLPHTTP, "POST /v1/traces HTTP/1.1\r\nHost: x\r\n" + auth +
			"Content-Type: application/json\r\nContent-Length: 100000\r\n\r\n", `{"resourceSpans":[`, read},
		{"api headers", c.API, "GET /v2/evaluators HTTP/1.1\r\nHost: x\r\n", "X-Slow: y\r\n", header},
		{"api body", c.API, "POST /v2/evaluators/execute/char-count HTTP/1.1\r\nHost: x\r\n" + auth +
			"Content-Type: application/json\r\nContent-Length: 100000\r\n\r\n", `{"input":{"text":"`, read},
		{"console login body", c.API, "POST /ui/login HTTP/1.1\r\nHost: " + c.API +
			"\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 100000\r\n\r\n", "key=aaaaaaaa", read},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			took := untilClosed(t, tc.addr, tc.start, tc.dribble, 50*time.Millisecond, tc.bound+slowClientSlack)
			if took < tc.bound/2 {
				t.Errorf("closed after %s, before the bound %s: something else cut it", took, tc.bound)
			}
		})
	}
	for _, tc := range []struct{ name, addr, req string }{
		{"otlp idle", c.OTLPHTTP, "GET /v1/traces HTTP/1.1\r\nHost: x\r\n" + auth + "\r\n"},
		{"api idle", c.API, "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			// One complete request, then nothing: the answer comes, and the
			// idle keep-alive connection is closed within idle.
			took := untilClosed(t, tc.addr, tc.req, "", 0, idle+slowClientSlack)
			if took < idle/2 {
				t.Errorf("closed after %s, before the idle bound %s", took, idle)
			}
		})
	}
}

// untilClosed connects to addr, writes start, then writes dribble one byte
// at a time every `every` (nothing when dribble is empty) until the server
// closes the connection, and returns how long that took. It fails the test
// when the connection is still open after limit.
func untilClosed(t *testing.T, addr, start, dribble string, every, limit time.Duration) time.Duration {
	t.Helper()
	conn, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	begin := time.Now()
	if _, err := io.WriteString(conn, start); err != nil {
		t.Fatalf("writing the start of the request: %v", err)
	}
	closed := make(chan time.Duration, 1)
	go func() {
		// Read (and discard) whatever the server answers until it closes.
		_ = conn.SetReadDeadline(begin.Add(limit))
		_, err := io.Copy(io.Discard, conn)
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() {
			closed <- -1
			return
		}
		closed <- time.Since(begin)
	}()
	var tick <-chan time.Time
	if dribble != "" {
		ticker := time.NewTicker(every)
		defer ticker.Stop()
		tick = ticker.C
	}
	for i := 0; ; i++ {
		select {
		case took := <-closed:
			if took < 0 {
				t.Fatalf("the connection to %s was still open after %s", addr, limit)
			}
			return took
		case <-tick:
			b := dribble[i%len(dribble)]
			if _, err := conn.Write([]byte{b}); err != nil && !strings.Contains(err.Error(), "closed") {
				// The server closed its side; the reader sees it next.
				tick = nil
			}
		}
	}
}
