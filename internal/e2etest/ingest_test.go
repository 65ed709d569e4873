package e2etest

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/sdk/resource"
	"go.opentelemetry.io/otel/trace"

	"github.com/evalcol/evalcol/internal/testcollector"
)

type spansResponse struct {
	Spans struct {
		Data []struct {
			Environment        string            `json:"environment"`
			Timestamp          int64             `json:"timestamp"`
			TraceID            string            `json:"trace_id"`
			SpanID             string            `json:"span_id"`
			ParentSpanID       string            `json:"parent_span_id"`
			SpanName           string            `json:"span_name"`
			SpanKind           string            `json:"span_kind"`
			ServiceName        string            `json:"service_name"`
			ResourceAttributes map[string]string `json:"resource_attributes"`
			ScopeName          string            `json:"scope_name"`
			ScopeVersion       string            `json:"scope_version"`
			SpanAttributes     map[string]string `json:"span_attributes"`
			Duration           int64             `json:"duration"`
			StatusCode         string            `json:"status_code"`
			StatusMessage      string            `json:"status_message"`
			Prompts            map[string]string `json:"prompts"`
			Completions        map[string]string `json:"completions"`
			Input              string            `json:"input"`
			Output             string            `json:"output"`
			Evaluations        []map[string]any  `json:"evaluations"`
		} `json:"data"`
		PageSize     int    `json:"page_size"`
		TotalResults int64  `json:"total_results"`
		NextCursor   string `json:"next_cursor"`
	} `json:"spans"`
}

// querySpans calls GET /v2/warehouse/spans with params (from_timestamp_sec
// defaults to an hour ago).
func querySpans(t *testing.T, c *testcollector.Collector, key string, params url.Values) (testcollector.Response, spansResponse) {
	t.Helper()
	if params == nil {
		params = url.Values{}
	}
	if params.Get("from_timestamp_sec") == "" {
		params.Set("from_timestamp_sec", fmt.Sprint(time.Now().Add(-time.Hour).Unix()))
	}
	resp := c.Call("GET", "/v2/warehouse/spans?"+params.Encode(), key, nil)
	var out spansResponse
	if resp.Status == 200 {
		resp.JSON(t, &out)
	}
	return resp, out
}

// sendChatSpan sends one LLM chat span in the legacy OpenLLMetry form and
// fails the test if the collector refuses it.
func sendChatSpan(t *testing.T, c *testcollector.Collector, proto testcollector.Protocol, key, name string, res *resource.Resource) trace.SpanContext {
	t.Helper()
	spans, err := c.Send(proto, key, res, func(tr trace.Tracer) {
		_, span := tr.Start(context.Background(), name, trace.WithSpanKind(trace.SpanKindClient))
		span.SetAttributes(
			attribute.String("llm.vendor", "openai"),
			attribute.String("llm.request.model", "gpt-4o"),
			attribute.String("llm.prompts.0.role", "user"),
			attribute.String("llm.prompts.0.content", "Tell me a joke about pirates"),
			attribute.String("llm.completions.0.role", "assistant"),
			attribute.String("llm.completions.0.content", "Why did the pirate go to school? To improve his arrrticulation."),
			attribute.String("llm.completions.0.finish_reason", "stop"),
			attribute.Int("llm.usage.total_tokens", 42),
			attribute.String("traceloop.workflow.name", "pirate_joke_generator"),
		)
		span.SetStatus(codes.Error, "rate limited")
		span.End()
	})
	if err != nil {
		t.Fatalf("export span %s: %v", name, err)
	}
	return spans[0].SpanContext()
}

func TestSpanRoundTripOverHTTPAndGRPC(t *testing.T) {
	c := testcollector.Start(t, testcollector.DefaultConfig)
	res := resource.NewSchemaless(attribute.String("service.name", "joke-service"))
	for _, tc := range []struct {
		name  string
		proto testcollector.Protocol
	}{{"otlp-http", testcollector.HTTP}, {"otlp-grpc", testcollector.GRPC}, {"otlp-http-via-api-port", testcollector.HTTPViaAPI}} {
		t.Run(tc.name, func(t *testing.T) {
			sc := sendChatSpan(t, c, tc.proto, testcollector.DefaultAPIKey, "chat "+tc.name, res)
			var got spansResponse
			testcollector.Eventually(t, 10*time.Second, func() bool {
				_, got = querySpans(t, c, testcollector.DefaultAPIKey, url.Values{"span_name": {"chat " + tc.name}})
				return len(got.Spans.Data) == 1
			}, "span %s not readable through /v2/warehouse/spans", tc.name)
			s := got.Spans.Data[0]
			checks := map[string][2]string{
				"trace_id":     {s.TraceID, sc.TraceID().String()},
				"span_id":      {s.SpanID, sc.SpanID().String()},
				"environment":  {s.Environment, "production"},
				"service_name": {s.ServiceName, "joke-service"},
				"span_kind":    {s.SpanKind, "SPAN_KIND_CLIENT"},
				"status_code":  {s.StatusCode, "STATUS_CODE_ERROR"},
				"status_msg":   {s.StatusMessage, "rate limited"},
				"scope":        {s.ScopeName + "@" + s.ScopeVersion, "evalcol-e2e@1.2.3"},
				"prompt":       {s.Prompts["llm.prompts.0.content"], "Tell me a joke about pirates"},
				"completion":   {s.Completions["llm.completions.0.content"], "Why did the pirate go to school? To improve his arrrticulation."},
				"finish":       {s.Completions["llm.completions.0.finish_reason"], "stop"},
				"input":        {s.Input, "Tell me a joke about pirates"},
				"tokens attr":  {s.SpanAttributes["llm.usage.total_tokens"], "42"},
				"resource env": {s.ResourceAttributes["deployment.environment.name"], "production"},
			}
			for name, c := range checks {
				if c[0] != c[1] {
					t.Errorf("%s = %q, want %q", name, c[0], c[1])
				}
			}
			if s.Timestamp < time.Now().Add(-time.Minute).UnixMilli() || s.Timestamp > time.Now().UnixMilli() {
				t.Errorf("timestamp %d is not a recent Unix ms time", s.Timestamp)
			}
		})
	}
}

const twoTenantConfig = `
extensions:
  evalapi:
    endpoint: {{.API}}
    warehouse: {backend: sqlite, path: {{.DataDir}}/evalcol.db}
    api_keys:
      - {key: key-of-team-a, environment: team-a}
      - {key: key-of-team-b, environment: team-b}
receivers:
  otlp:
    protocols:
      grpc: {endpoint: {{.OTLPGRPC}}, auth: {authenticator: evalapi}}
      http: {endpoint: {{.OTLPHTTP}}, auth: {authenticator: evalapi}}
processors:
  tenant: {}
exporters:
  warehouse: {api: evalapi}
service:
  telemetry: {metrics: {level: none}, logs: {level: warn}}
  extensions: [evalapi]
  pipelines:
    traces: {receivers: [otlp], processors: [tenant], exporters: [warehouse]}
`

func TestIngestIsAuthenticatedAndTenantsAreSeparate(t *testing.T) {
	c := testcollector.Start(t, twoTenantConfig)

	for _, proto := range []testcollector.Protocol{testcollector.HTTP, testcollector.GRPC} {
		for _, key := range []string{"", "wrong-key-123"} {
			_, err := c.Send(proto, key, nil, func(tr trace.Tracer) {
				_, span := tr.Start(context.Background(), "refused")
				span.End()
			})
			if err == nil {
				t.Fatalf("export with key %q over protocol %d succeeded, want refusal", key, proto)
			}
			want := "401"
			if proto == testcollector.GRPC {
				want = "Unauthenticated"
			}
			if !strings.Contains(err.Error(), want) {
				t.Errorf("refusal %q does not say %s", err, want)
			}
		}
	}

	sendChatSpan(t, c, testcollector.HTTP, "key-of-team-a", "span-of-a", nil)
	sendChatSpan(t, c, testcollector.GRPC, "key-of-team-b", "span-of-b", nil)
	for _, tc := range []struct{ key, own, other string }{
		{"key-of-team-a", "span-of-a", "span-of-b"},
		{"key-of-team-b", "span-of-b", "span-of-a"},
	} {
		var got spansResponse
		testcollector.Eventually(t, 10*time.Second, func() bool {
			_, got = querySpans(t, c, tc.key, nil)
			return len(got.Spans.Data) >= 1
		}, "no span visible to %s", tc.key)
		time.Sleep(200 * time.Millisecond) // let the other tenant's span land too
		_, got = querySpans(t, c, tc.key, nil)
		if len(got.Spans.Data) != 1 || got.Spans.Data[0].SpanName != tc.own || got.Spans.TotalResults != 1 {
			t.Errorf("%s sees %+v, want only %s", tc.key, got.Spans.Data, tc.own)
		}
		_, other := querySpans(t, c, tc.key, url.Values{"span_name": {tc.other}})
		if len(other.Spans.Data) != 0 {
			t.Errorf("%s can read the other tenant's span %s", tc.key, tc.other)
		}
	}
	if resp, _ := querySpans(t, c, "", nil); resp.Status != 401 {
		t.Errorf("span query without a key = %d, want 401", resp.Status)
	}
}

// TestKeyFilesSpansWithoutTenantProcessor: in a pipeline without a tenant
// processor (and nothing between the receiver and the exporter that drops
// the request's context), the warehouse exporter files each request under
// the environment of the API key that sent it, even when the resource
// names another environment; nothing lands under default_environment.
func TestKeyFilesSpansWithoutTenantProcessor(t *testing.T) {
	cfg := twoTenantConfig
	for _, r := range [][2]string{
		{"processors:\n  tenant: {}\n", ""},
		{"processors: [tenant]", "processors: []"},
		{"warehouse: {api: evalapi}", "warehouse: {api: evalapi, default_environment: nobody}"},
	} {
		if !strings.Contains(cfg, r[0]) {
			t.Fatalf("twoTenantConfig no longer contains %q", r[0])
		}
		cfg = strings.Replace(cfg, r[0], r[1], 1)
	}
	c := testcollector.Start(t, cfg)
	sendChatSpan(t, c, testcollector.HTTP, "key-of-team-a", "plain-of-a", nil)
	sendChatSpan(t, c, testcollector.GRPC, "key-of-team-a", "claims-team-b", resource.NewSchemaless(
		attribute.String("service.name", "a-service"), attribute.String("deployment.environment.name", "team-b")))
	sendChatSpan(t, c, testcollector.HTTP, "key-of-team-b", "plain-of-b", nil)
	for _, tc := range []struct {
		key  string
		want []string
	}{
		{"key-of-team-a", []string{"claims-team-b", "plain-of-a"}},
		{"key-of-team-b", []string{"plain-of-b"}},
	} {
		_, got := querySpans(t, c, tc.key, url.Values{"sort_by": {"span_name"}})
		var names []string
		for _, s := range got.Spans.Data {
			names = append(names, s.SpanName)
		}
		if strings.Join(names, ",") != strings.Join(tc.want, ",") {
			t.Errorf("%s sees %v, want %v", tc.key, names, tc.want)
		}
	}
}

// TestSIGTERMFlushes sends SIGTERM to this test process: the collector's own
// signal handler catches it and shuts down gracefully, so a span accepted
// just before is stored when the collector starts again on the same
// warehouse. It runs the non-durable shape (a batch processor and the
// exporter's sending_queue, which acknowledge before the commit), where
// that flush matters; the default shape answers only after the commit.
func TestSIGTERMFlushes(t *testing.T) {
	// A long batch timeout: the span is still in the batch processor when
	// SIGTERM arrives, so only a graceful shutdown stores it.
	cfg := testcollector.DefaultConfig
	for _, r := range [][2]string{
		{"  evaluator: {api: evalapi}\n", "  evaluator: {api: evalapi}\n  batch: {timeout: 1h}\n"},
		{"warehouse: {api: evalapi}", "warehouse: {api: evalapi, sending_queue: {enabled: true}}"},
		{"processors: [tenant, evaluator]", "processors: [tenant, evaluator, batch]"},
	} {
		if !strings.Contains(cfg, r[0]) {
			t.Fatalf("testcollector.DefaultConfig no longer contains %q", r[0])
		}
		cfg = strings.Replace(cfg, r[0], r[1], 1)
	}
	c := testcollector.StartWithSignals(t, cfg)
	sc := sendChatSpan(t, c, testcollector.HTTP, testcollector.DefaultAPIKey, "before-sigterm", nil)
	// The collector registers its signal handler just after it reports
	// running; until then a SIGTERM would kill the test binary. Hold one
	// of our own so it never does, and repeat the signal until the
	// collector has taken it.
	own := make(chan os.Signal, 16)
	signal.Notify(own, syscall.SIGTERM)
	defer signal.Stop(own)
	var err error
	for range 100 {
		if err = syscall.Kill(syscall.Getpid(), syscall.SIGTERM); err != nil {
			t.Fatal(err)
		}
		if err = c.Wait(100 * time.Millisecond); err == nil || !strings.Contains(err.Error(), "still running") {
			break
		}
	}
	if err != nil {
		t.Fatalf("collector did not stop cleanly on SIGTERM: %v", err)
	}
	again, err := testcollector.StartWithPorts(t, testcollector.DefaultConfig, c.Ports)
	if err != nil {
		t.Fatal(err)
	}
	_, got := querySpans(t, again, testcollector.DefaultAPIKey, url.Values{"span_name": {"before-sigterm"}})
	if len(got.Spans.Data) != 1 || got.Spans.Data[0].SpanID != sc.SpanID().String() {
		t.Fatalf("span sent before SIGTERM not stored: %+v", got.Spans)
	}
}
