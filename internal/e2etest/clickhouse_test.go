package e2etest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"

	"github.com/evalcol/evalcol/internal/testcollector"
	"github.com/evalcol/evalcol/internal/warehouse/clickhouse"
)

// clickhouseConfig runs the default pipeline on a ClickHouse warehouse at
// addr, database db, polling setups every 300 ms.
func clickhouseConfig(addr, db string) string {
	return strings.Replace(testcollector.DefaultConfig,
		"warehouse: {backend: sqlite, path: {{.DataDir}}/evalcol.db}",
		fmt.Sprintf("warehouse: {backend: clickhouse, endpoint: %q, database: %s}\n    setup_poll_interval: 300ms", addr, db), 1)
}

// TestClickHouseDown: with the server unreachable the collector starts
// anyway, /healthz reports the warehouse unavailable and queries answer 503.
func TestClickHouseDown(t *testing.T) {
	c := testcollector.Start(t, clickhouseConfig(closedAddr(t), "evalcol"))
	resp := c.Call("GET", "/healthz", "", nil)
	if resp.Status != 503 || !strings.Contains(string(resp.Body), `"warehouse":"unavailable"`) {
		t.Errorf("healthz = %d %s, want 503 with warehouse unavailable", resp.Status, resp.Body)
	}
	resp, _ = querySpans(t, c, testcollector.DefaultAPIKey, nil)
	if resp.Status != 503 || !strings.Contains(string(resp.Body), "warehouse unavailable") {
		t.Errorf("span query = %d %s, want 503 {error: warehouse unavailable ...}", resp.Status, resp.Body)
	}
}

func clickhouseAddr(t *testing.T) string {
	t.Helper()
	addr := os.Getenv("EVALCOL_CLICKHOUSE_ADDR")
	if addr == "" {
		t.Skip("EVALCOL_CLICKHOUSE_ADDR is not set (scripts/clickhouse.sh start prints it)")
	}
	return addr
}

// testDatabase returns a fresh database name, dropped when the test ends.
func testDatabase(t *testing.T, addr string) string {
	t.Helper()
	var b [6]byte
	_, _ = rand.Read(b[:])
	db := "evalcol_e2e_" + hex.EncodeToString(b[:])
	t.Cleanup(func() {
		_ = clickhouse.DropDatabase(context.Background(), clickhouse.Options{Addr: addr, Database: db})
	})
	return db
}

// TestClickHouseScaleOut: two collectors share one ClickHouse database.
// Spans sent to either are visible through both; a setup created through
// A is applied by B within its poll interval; stopping A loses nothing A
// acknowledged.
func TestClickHouseScaleOut(t *testing.T) {
	addr := clickhouseAddr(t)
	db := testDatabase(t, addr)
	a := testcollector.Start(t, clickhouseConfig(addr, db))
	b := testcollector.Start(t, clickhouseConfig(addr, db))
	key := testcollector.DefaultAPIKey

	sendChatSpan(t, a, testcollector.HTTP, key, "via-a", nil)
	sendChatSpan(t, b, testcollector.GRPC, key, "via-b", nil)
	for _, c := range []*testcollector.Collector{a, b} {
		testcollector.Eventually(t, 15*time.Second, func() bool {
			_, got := querySpans(t, c, key, nil)
			return len(got.Spans.Data) == 2
		}, "both spans visible through %s", c.API)
	}

	resp := a.Call("POST", "/v2/auto-monitor-setups", key, map[string]any{
		"entity_type": "workflow", "entity_value": "scale_out_wf", "external_id": "scale-1", "evaluators": []string{"char-count"},
	})
	if resp.Status != 201 {
		t.Fatalf("create setup through A = %d %s", resp.Status, resp.Body)
	}
	var setup setupObject
	resp.JSON(t, &setup)
	// B applies it after its poll: a span of the workflow sent to B gets
	// evaluated.
	time.Sleep(time.Second)
	chat(t, b, "scale_out_wf", "Evaluated by B under a setup made through A.")
	testcollector.Eventually(t, 15*time.Second, func() bool {
		_, got := querySpans(t, a, key, url.Values{"workflow": {"scale_out_wf"}})
		return len(got.Spans.Data) == 1 && len(got.Spans.Data[0].Evaluations) == 1 && got.Spans.Data[0].Evaluations[0]["monitor_id"] == setup.ID
	}, "B evaluated the span with A's setup")

	// Everything A acknowledged survives A's (graceful) stop.
	var names []string
	for i := range 20 {
		n := fmt.Sprintf("before-stop-%d", i)
		sendChatSpan(t, a, testcollector.HTTP, key, n, nil)
		names = append(names, n)
	}
	a.Stop()
	testcollector.Eventually(t, 15*time.Second, func() bool {
		_, got := querySpans(t, b, key, url.Values{"limit": {"1000"}})
		seen := map[string]bool{}
		for _, s := range got.Spans.Data {
			seen[s.SpanName] = true
		}
		for _, n := range names {
			if !seen[n] {
				return false
			}
		}
		return true
	}, "all 20 spans acknowledged by A readable through B")
}

// TestClickHouseOutageIsRetried: the collector reaches ClickHouse through a
// proxy that the test cuts. Spans sent during the outage are refused with
// a retryable answer (HTTP 503), not acknowledged into memory and not
// dropped; the sender's resend of the same spans once the server is back
// is stored, once.
func TestClickHouseOutageIsRetried(t *testing.T) {
	addr := clickhouseAddr(t)
	db := testDatabase(t, addr)
	p := newProxy(t, addr)
	c := testcollector.Start(t, clickhouseConfig(p.addr, db))
	key := testcollector.DefaultAPIKey
	sendChatSpan(t, c, testcollector.HTTP, key, "before-outage", nil)
	testcollector.Eventually(t, 15*time.Second, func() bool {
		_, got := querySpans(t, c, key, nil)
		return len(got.Spans.Data) == 1
	}, "first span stored")

	p.down()
	testcollector.Eventually(t, 10*time.Second, func() bool { return c.Call("GET", "/healthz", "", nil).Status == 503 }, "healthz to report the outage")
	spans, err := c.Send(testcollector.HTTP, key, nil, func(tr trace.Tracer) {
		for i := range 5 {
			_, s := tr.Start(context.Background(), fmt.Sprintf("during-outage-%d", i))
			s.SetAttributes(attribute.Int("i", i))
			s.End()
		}
	})
	// The SDK's words for HTTP 429/502/503/504; the message names no
	// internal address.
	if err == nil || !strings.Contains(err.Error(), "retry-able request failure") ||
		!strings.Contains(err.Error(), "warehouse unavailable or slow, retry later") || strings.Contains(err.Error(), p.addr) {
		t.Fatalf("export during the outage: %v, want a retryable refusal saying the warehouse is unavailable", err)
	}
	p.up()
	exp := c.Exporter(testcollector.HTTP, key)
	testcollector.Eventually(t, 30*time.Second, func() bool {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		return exp.ExportSpans(ctx, spans) == nil // the sender's retry
	}, "the resend to be accepted once ClickHouse is back")
	// A second resend (the sender did not see the answer) stores nothing twice.
	if err := exp.ExportSpans(context.Background(), spans); err != nil {
		t.Fatal(err)
	}
	_, got := querySpans(t, c, key, nil)
	if got.Spans.TotalResults != 6 {
		t.Errorf("%d spans stored, want 6: before-outage and the 5 resent ones, once each", got.Spans.TotalResults)
	}
}

// closedAddr is a loopback address nothing listens on now.
func closedAddr(t *testing.T) string {
	t.Helper()
	return freeLoopbackAddr(t)
}

// proxy forwards TCP connections to target and can be cut and restored on
// the same address.
type proxy struct {
	t      *testing.T
	addr   string
	target string
	mu     sync.Mutex
	ln     net.Listener
	conns  []net.Conn
}

func newProxy(t *testing.T, target string) *proxy {
	p := &proxy{t: t, target: target, addr: closedAddr(t)}
	p.up()
	t.Cleanup(p.down)
	return p
}

func (p *proxy) up() {
	ln, err := net.Listen("tcp", p.addr)
	if err != nil {
		p.t.Fatalf("proxy listen %s: %v", p.addr, err)
	}
	p.mu.Lock()
	p.ln = ln
	p.mu.Unlock()
	go func() {
		for {
			in, err := ln.Accept()
			if err != nil {
				return
			}
			out, err := net.Dial("tcp", p.target)
			if err != nil {
				in.Close()
				continue
			}
			p.mu.Lock()
			p.conns = append(p.conns, in, out)
			p.mu.Unlock()
			go func() { _, _ = io.Copy(out, in); out.Close() }()
			go func() { _, _ = io.Copy(in, out); in.Close() }()
		}
	}()
}

// down closes the listener and every open connection.
func (p *proxy) down() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ln != nil {
		p.ln.Close()
		p.ln = nil
	}
	for _, c := range p.conns {
		c.Close()
	}
	p.conns = nil
}
