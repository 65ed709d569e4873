// Package testcollector runs a real evalcol collector in-process for
// end-to-end tests: it renders a config on free loopback ports, starts the
// distribution exactly as cmd/evalcol does, sends spans with the real OTel
// Go SDK exporters (OTLP/HTTP and OTLP/gRPC) and calls the real /v2 HTTP
// server.
package testcollector

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"text/template"
	"time"

	"go.opentelemetry.io/collector/otelcol"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/evalcol/evalcol/internal/distribution"
)

// DefaultAPIKey is the API key of DefaultConfig.
const DefaultAPIKey = "test-key-production"

// DefaultConfig is the embedded default pipeline (examples/config.yaml) on
// the harness's ports, with one monitor-free evaluator processor.
const DefaultConfig = `
extensions:
  evalapi:
    endpoint: {{.API}}
    otlp_proxy_endpoint: http://{{.OTLPHTTP}}
    warehouse: {backend: sqlite, path: {{.DataDir}}/evalcol.db}
    api_keys:
      - {key: ` + DefaultAPIKey + `, environment: production, organization_id: org-1, project_id: proj-1}
receivers:
  otlp:
    protocols:
      grpc: {endpoint: {{.OTLPGRPC}}, auth: {authenticator: evalapi}, middlewares: [{id: evalapi}]}
      http: {endpoint: {{.OTLPHTTP}}, auth: {authenticator: evalapi}, middlewares: [{id: evalapi}]}
processors:
  tenant: {}
  evaluator: {api: evalapi}
exporters:
  warehouse: {api: evalapi}
service:
  telemetry:
    metrics: {level: none}
    logs: {level: warn}
  extensions: [evalapi]
  pipelines:
    traces: {receivers: [otlp], processors: [tenant, evaluator], exporters: [warehouse]}
    metrics: {receivers: [otlp], processors: [tenant], exporters: [warehouse]}
`

// Ports are the loopback addresses a config template can use.
type Ports struct {
	API, OTLPHTTP, OTLPGRPC string
	// DataDir is a temporary directory for the warehouse file.
	DataDir string
}

// Collector is a running in-process collector.
type Collector struct {
	Ports
	t      testing.TB
	col    *otelcol.Collector
	done   chan error
	client *http.Client
}

// Start renders configTemplate (a text/template over Ports) and runs the
// collector until the test ends. It fails the test if the collector does
// not come up within 30 s.
func Start(t testing.TB, configTemplate string) *Collector {
	t.Helper()
	c, err := StartE(t, configTemplate)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// StartE is Start returning the error instead of failing the test; the
// collector is still stopped when the test ends.
func StartE(t testing.TB, configTemplate string) (*Collector, error) {
	t.Helper()
	return startOnFreePorts(t, configTemplate, false)
}

// startOnFreePorts starts a collector on ports free a moment before. A
// port can be taken in between (another test package's collector or a
// client's ephemeral port), so a start that fails on a taken address is
// tried again on fresh ports.
func startOnFreePorts(t testing.TB, configTemplate string, signals bool) (*Collector, error) {
	t.Helper()
	const attempts = 5
	var err error
	for i := 0; i < attempts; i++ {
		ports := Ports{API: freeAddr(t), OTLPHTTP: freeAddr(t), OTLPGRPC: freeAddr(t), DataDir: t.TempDir()}
		var c *Collector
		c, err = start(t, configTemplate, ports, signals)
		if err == nil || !addressTaken(err) {
			return c, err
		}
		t.Logf("collector start attempt %d: %v; trying other ports", i+1, err)
	}
	return nil, err
}

// addressTaken reports whether err is a listener's "address already in use".
func addressTaken(err error) bool {
	return errors.Is(err, syscall.EADDRINUSE) || strings.Contains(err.Error(), "address already in use")
}

// StartWithPorts is StartE on given ports and data directory (to restart a
// collector on the same warehouse).
func StartWithPorts(t testing.TB, configTemplate string, ports Ports) (*Collector, error) {
	t.Helper()
	return start(t, configTemplate, ports, false)
}

// StartWithSignals is Start with the collector's own SIGINT/SIGTERM
// handling on, as in the real binary: a SIGTERM sent to the test process
// shuts the collector down gracefully. Tests using it must not run in
// parallel with other collectors.
func StartWithSignals(t testing.TB, configTemplate string) *Collector {
	t.Helper()
	c, err := startOnFreePorts(t, configTemplate, true)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func start(t testing.TB, configTemplate string, ports Ports, signals bool) (*Collector, error) {
	t.Helper()
	tmpl, err := template.New("config").Option("missingkey=error").Parse(configTemplate)
	if err != nil {
		return nil, fmt.Errorf("parse config template: %w", err)
	}
	var cfg bytes.Buffer
	if err := tmpl.Execute(&cfg, ports); err != nil {
		return nil, fmt.Errorf("render config: %w", err)
	}
	path := filepath.Join(t.TempDir(), "config.yaml")
	if err := os.WriteFile(path, cfg.Bytes(), 0o600); err != nil {
		return nil, err
	}
	set := distribution.Settings("test")
	set.ConfigProviderSettings.ResolverSettings.URIs = []string{"file:" + path}
	set.ConfigProviderSettings.ResolverSettings.DefaultScheme = "env"
	set.DisableGracefulShutdown = !signals
	// The gRPC logger is process-global: a second collector of the same
	// test process setting it would race with the first one's gRPC server.
	set.SkipSettingGRPCLogger = true
	col, err := otelcol.NewCollector(set)
	if err != nil {
		return nil, fmt.Errorf("new collector: %w", err)
	}
	c := &Collector{Ports: ports, t: t, col: col, done: make(chan error, 1), client: &http.Client{Timeout: 30 * time.Second}}
	go func() { c.done <- col.Run(context.Background()) }()
	t.Cleanup(c.Stop)
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case err := <-c.done:
			c.done <- err
			return nil, fmt.Errorf("collector exited during start: %w", err)
		default:
		}
		if col.GetState() == otelcol.StateRunning {
			if resp, err := c.client.Get("http://" + ports.API + "/healthz"); err == nil {
				resp.Body.Close()
				return c, nil
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	return nil, fmt.Errorf("collector did not start within 30s (state %v)", col.GetState())
}

// Stop shuts the collector down gracefully (pipelines flush, the warehouse
// closes) and waits for it. It is safe to call more than once.
func (c *Collector) Stop() {
	if c.col.GetState() == otelcol.StateClosed {
		return
	}
	c.col.Shutdown()
	select {
	case err := <-c.done:
		c.done <- err
		if err != nil {
			c.t.Errorf("collector stopped with error: %v", err)
		}
	case <-time.After(30 * time.Second):
		c.t.Errorf("collector did not stop within 30s")
	}
}

// Wait waits up to timeout for the collector to stop by itself (e.g. on a
// signal) and returns the error it stopped with.
func (c *Collector) Wait(timeout time.Duration) error {
	select {
	case err := <-c.done:
		c.done <- err
		return err
	case <-time.After(timeout):
		return fmt.Errorf("collector still running after %s", timeout)
	}
}

// Protocol selects the OTLP transport of a tracer provider.
type Protocol int

// The OTLP transports.
const (
	HTTP Protocol = iota
	GRPC
	// HTTPViaAPI is OTLP/HTTP sent to the API port, which forwards it to
	// the receiver (otlp_proxy_endpoint).
	HTTPViaAPI
)

// Exporter returns a real OTel SDK OTLP span exporter to the collector over
// proto, with apiKey ("" for none) sent as "Authorization: Bearer <key>".
// It is shut down when the test ends.
func (c *Collector) Exporter(proto Protocol, apiKey string) sdktrace.SpanExporter {
	c.t.Helper()
	headers := map[string]string{}
	if apiKey != "" {
		headers["Authorization"] = "Bearer " + apiKey
	}
	var exp sdktrace.SpanExporter
	var err error
	ctx := context.Background()
	switch proto {
	case GRPC:
		exp, err = otlptracegrpc.New(ctx, otlptracegrpc.WithEndpoint(c.OTLPGRPC), otlptracegrpc.WithInsecure(),
			otlptracegrpc.WithHeaders(headers), otlptracegrpc.WithRetry(otlptracegrpc.RetryConfig{Enabled: false}))
	default:
		endpoint := c.OTLPHTTP
		if proto == HTTPViaAPI {
			endpoint = c.API
		}
		exp, err = otlptracehttp.New(ctx, otlptracehttp.WithEndpoint(endpoint), otlptracehttp.WithInsecure(),
			otlptracehttp.WithHeaders(headers), otlptracehttp.WithRetry(otlptracehttp.RetryConfig{Enabled: false}))
	}
	if err != nil {
		c.t.Fatalf("create OTLP exporter: %v", err)
	}
	c.t.Cleanup(func() { _ = exp.Shutdown(context.Background()) })
	return exp
}

// Send records the spans that build creates with a tracer of an SDK tracer
// provider with resource res (nil for none), then exports them in one OTLP
// request over proto with apiKey and returns the export's error, so a test
// sees what the collector answered.
func (c *Collector) Send(proto Protocol, apiKey string, res *resource.Resource, build func(trace.Tracer)) ([]sdktrace.ReadOnlySpan, error) {
	c.t.Helper()
	rec := tracetest.NewSpanRecorder()
	if res == nil {
		res = resource.Empty()
	}
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec), sdktrace.WithResource(res))
	build(tp.Tracer("evalcol-e2e", trace.WithInstrumentationVersion("1.2.3")))
	_ = tp.Shutdown(context.Background())
	spans := rec.Ended()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	return spans, c.Exporter(proto, apiKey).ExportSpans(ctx, spans)
}

// Response is an answer of the /v2 API.
type Response struct {
	Status int
	Header http.Header
	Body   []byte
}

// JSON decodes the body into v, failing the test when it is not JSON.
func (r Response) JSON(t testing.TB, v any) {
	t.Helper()
	if err := json.Unmarshal(r.Body, v); err != nil {
		t.Fatalf("response %d is not JSON: %v\n%s", r.Status, err, r.Body)
	}
}

// Call sends a request to the /v2 API with apiKey ("" for none; sent as
// "Bearer <key>") and returns the answer. body may be nil, a string, a
// []byte or a value to encode as JSON.
func (c *Collector) Call(method, path, apiKey string, body any) Response {
	c.t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(b)
	case []byte:
		rd = bytes.NewReader(b)
	default:
		enc, err := json.Marshal(b)
		if err != nil {
			c.t.Fatalf("encode request body: %v", err)
		}
		rd = bytes.NewReader(enc)
	}
	req, err := http.NewRequest(method, "http://"+c.API+path, rd)
	if err != nil {
		c.t.Fatalf("new request: %v", err)
	}
	if apiKey != "" {
		req.Header.Set("Authorization", "Bearer "+apiKey)
	}
	if rd != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.client.Do(req)
	if err != nil {
		c.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		c.t.Fatalf("read response of %s %s: %v", method, path, err)
	}
	return Response{Status: resp.StatusCode, Header: resp.Header, Body: data}
}

// Eventually polls cond every 50 ms until it returns true or timeout
// passes, then fails the test with msg.
func Eventually(t testing.TB, timeout time.Duration, cond func() bool, msg string, args ...any) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		if cond() {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("condition not met within %s: "+msg, append([]any{timeout}, args...)...)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// freeAddr returns a loopback address with a port free at the moment.
func freeAddr(t testing.TB) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("find a free port: %v", err)
	}
	defer l.Close()
	return l.Addr().String()
}
