package e2etest

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/evalcol/evalcol/internal/testcollector"
)

// clickhouseChildConfig is examples/scale-out.yaml on addrs with the
// warehouse on ClickHouse database db at chAddr, setups polled every 300 ms
// and the collector's own metrics off (two children would share their
// port). It fails the test when the file no longer has the values it
// replaces, so the test always runs the documented file.
func clickhouseChildConfig(t *testing.T, addrs childAddrs, chAddr, db string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "examples", "scale-out.yaml"))
	if err != nil {
		t.Fatalf("read example config: %v", err)
	}
	cfg := string(data)
	for _, r := range [][2]string{
		{"127.0.0.1:8080", addrs.API},
		{"127.0.0.1:4317", addrs.OTLPGRPC},
		{"127.0.0.1:4318", addrs.OTLPHTTP},
		{"${env:EVALCOL_API_KEY:-evalcol-dev-key}", childAPIKey},
		{"${env:EVALCOL_CLICKHOUSE_ENDPOINT:-127.0.0.1:9000}", chAddr},
		{"database: evalcol ", "database: " + db + " "},
		{"setup_poll_interval: 5s", "setup_poll_interval: 300ms"},
		{"\nservice:\n", "\nservice:\n  telemetry: {metrics: {level: none}}\n"},
	} {
		if !strings.Contains(cfg, r[0]) {
			t.Fatalf("examples/scale-out.yaml no longer contains %q", r[0])
		}
		cfg = strings.ReplaceAll(cfg, r[0], r[1])
	}
	return cfg
}

// TestClickHouseScaleOutBinaries: two evalcol processes (the real binary,
// different ports) share one ClickHouse. Spans sent to each are visible
// through either; a setup created through A is applied by B within its poll
// interval; a backfill started through B adds evaluations to spans stored
// through A; stopping A (SIGTERM) loses nothing A acknowledged.
func TestClickHouseScaleOutBinaries(t *testing.T) {
	chAddr := clickhouseAddr(t)
	db := testDatabase(t, chAddr)
	bin := buildEvalcol(t)
	aAddrs, bAddrs := newChildAddrs(t), newChildAddrs(t)
	a := startChild(t, bin, clickhouseChildConfig(t, aAddrs, chAddr, db), aAddrs)
	b := startChild(t, bin, clickhouseChildConfig(t, bAddrs, chAddr, db), bAddrs)

	send := func(c *childCollector, spans []sdktrace.ReadOnlySpan) {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		if err := newHTTPSpanExporter(t, c.OTLPHTTP).ExportSpans(ctx, spans); err != nil {
			t.Fatalf("export to %s: %v", c.OTLPHTTP, err)
		}
	}
	send(a, chatSpans(10, 1, 256, func(i int) string { return fmt.Sprintf("a-%d", i) }))
	send(b, chatSpans(10, 1000, 256, func(i int) string { return fmt.Sprintf("b-%d", i) }))
	for _, c := range []*childCollector{a, b} {
		testcollector.Eventually(t, 20*time.Second, func() bool { return len(storedSpanNames(t, c.API)) == 20 },
			"all 20 spans visible through %s", c.API)
	}

	// A backfill started through B evaluates a span A stored: ClickHouse
	// appends the evaluation, and A reads it.
	from := time.Now().Add(-time.Hour).Unix()
	resp, status := postJSON(t, b.API, "/v2/auto-monitor-setups", fmt.Sprintf(
		`{"entity_type":"span","entity_value":"a-3","external_id":"backfill","evaluators":["char-count"],"backfill_from_timestamp_sec":%d}`, from))
	if status != 201 {
		t.Fatalf("create backfill setup through B = %d %s", status, resp)
	}
	testcollector.Eventually(t, 30*time.Second, func() bool {
		body, _ := getJSON(t, a.API, "/v2/warehouse/spans?span_name=a-3&from_timestamp_sec="+fmt.Sprint(from))
		return strings.Contains(body, `"name":"char-count"`) && strings.Count(body, `"span_id"`) == 1
	}, "span a-3, stored through A, carries the backfilled char-count once, read through A")

	// A setup created through A is applied by B after its poll.
	resp, status = postJSON(t, a.API, "/v2/auto-monitor-setups", `{"entity_type":"span","entity_value":"scale-out-probe","external_id":"probe","evaluators":["char-count"]}`)
	if status != 201 {
		t.Fatalf("create setup through A = %d %s", status, resp)
	}
	time.Sleep(time.Second)
	send(b, chatSpans(1, 5000, 64, func(int) string { return "scale-out-probe" }))
	testcollector.Eventually(t, 20*time.Second, func() bool {
		body, _ := getJSON(t, a.API, "/v2/warehouse/spans?span_name=scale-out-probe&from_timestamp_sec="+fmt.Sprint(time.Now().Add(-time.Hour).Unix()))
		return strings.Contains(body, `"name":"char-count"`)
	}, "B evaluated the probe span under the setup made through A")

	// Everything A acknowledged survives A's graceful stop.
	send(a, chatSpans(50, 9000, 256, func(i int) string { return fmt.Sprintf("late-a-%d", i) }))
	if err := a.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case <-a.exited:
	case <-time.After(30 * time.Second):
		t.Fatal("A did not stop within 30 s of SIGTERM")
	}
	testcollector.Eventually(t, 20*time.Second, func() bool {
		names := storedSpanNames(t, b.API)
		for i := range 50 {
			if names[fmt.Sprintf("late-a-%d", i)] != 1 {
				return false
			}
		}
		return true
	}, "all 50 spans A acknowledged before SIGTERM readable through B, once each")
}

// postJSON and getJSON call a child's /v2 API with its key.
func postJSON(t *testing.T, api, path, body string) (string, int) {
	t.Helper()
	return callChild(t, "POST", api, path, body)
}

func getJSON(t *testing.T, api, path string) (string, int) {
	t.Helper()
	return callChild(t, "GET", api, path, "")
}

func callChild(t *testing.T, method, api, path, body string) (string, int) {
	t.Helper()
	req, err := http.NewRequest(method, "http://"+api+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+childAPIKey)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return string(b), resp.StatusCode
}
