package e2etest

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/collector/pdata/ptrace/ptraceotlp"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/sdk/resource"
	"go.opentelemetry.io/otel/trace"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"

	"github.com/evalcol/evalcol/internal/testcollector"
)

// productionKey and stagingKey are the two tenants of envConfig.
const (
	productionKey = "key-of-production"
	stagingKey    = "key-of-staging"
)

// envConfig has two keys of two environments, auto monitor setups and an
// OTLP metrics pipeline.
const envConfig = `
extensions:
  evalapi:
    endpoint: {{.API}}
    warehouse: {backend: sqlite, path: {{.DataDir}}/evalcol.db}
    setup_poll_interval: 100ms
    api_keys:
      - {key: ` + productionKey + `, environment: production}
      - {key: ` + stagingKey + `, environment: staging}
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
  telemetry: {metrics: {level: none}, logs: {level: warn}}
  extensions: [evalapi]
  pipelines:
    traces: {receivers: [otlp], processors: [tenant, evaluator], exporters: [warehouse]}
    metrics: {receivers: [otlp], processors: [tenant], exporters: [warehouse]}
`

// sendWorkflowSpan sends one chat span of workflow wf with resource res
// under key and fails the test if the collector refuses it.
func sendWorkflowSpan(t *testing.T, c *testcollector.Collector, proto testcollector.Protocol, key, name, wf string, res *resource.Resource) {
	t.Helper()
	_, err := c.Send(proto, key, res, func(tr trace.Tracer) {
		_, span := tr.Start(context.Background(), name)
		span.SetAttributes(
			attribute.String("traceloop.workflow.name", wf),
			attribute.String("gen_ai.prompt.0.role", "user"),
			attribute.String("gen_ai.prompt.0.content", "How many characters is this?"),
			attribute.String("gen_ai.completion.0.role", "assistant"),
			attribute.String("gen_ai.completion.0.content", "Quite a few."),
		)
		span.End()
	})
	if err != nil {
		t.Fatalf("send %s: %v", name, err)
	}
}

// TestKeyDecidesEnvironment: the production key sends spans and metrics
// whose resources claim the staging environment. They are filed under
// production: production sees them (with the claim kept under
// evalcol.declared.*), staging never sees them, and staging's auto monitor
// setup never evaluates them, while it does evaluate staging's own span.
func TestKeyDecidesEnvironment(t *testing.T) {
	c := testcollector.Start(t, envConfig)

	resp := c.Call("POST", "/v2/auto-monitor-setups", stagingKey, map[string]any{
		"entity_type": "workflow", "entity_value": "shared-flow", "external_id": "staging-flow", "evaluators": []string{"char-count"},
	})
	if resp.Status != 201 {
		t.Fatalf("create setup = %d %s", resp.Status, resp.Body)
	}
	var setup setupObject
	resp.JSON(t, &setup)
	status := func() string {
		var s setupObject
		r := c.Call("GET", "/v2/auto-monitor-setups/"+setup.ID, stagingKey, nil)
		r.JSON(t, &s)
		return s.Status
	}
	testcollector.Eventually(t, 5*time.Second, func() bool { return status() == "waiting_for_spans" }, "setup loaded")

	claimsStaging := resource.NewSchemaless(attribute.String("service.name", "intruder"), attribute.String("deployment.environment.name", "staging"))
	claimsStagingLegacy := resource.NewSchemaless(attribute.String("service.name", "intruder"), attribute.String("deployment.environment", "staging"))
	sendWorkflowSpan(t, c, testcollector.HTTP, productionKey, "claims-staging", "shared-flow", claimsStaging)
	sendWorkflowSpan(t, c, testcollector.GRPC, productionKey, "claims-staging-legacy", "shared-flow", claimsStagingLegacy)
	sendWorkflowSpan(t, c, testcollector.HTTP, stagingKey, "staging-own", "shared-flow", nil)
	postMetric(t, c, productionKey, "intruder.gauge", "staging")

	// Production sees its two spans, filed under production.
	var prod spansResponse
	testcollector.Eventually(t, 10*time.Second, func() bool {
		_, prod = querySpans(t, c, productionKey, url.Values{"workflow": {"shared-flow"}})
		return len(prod.Spans.Data) == 2
	}, "production sees its 2 spans")
	for _, s := range prod.Spans.Data {
		if s.Environment != "production" || s.ResourceAttributes["deployment.environment.name"] != "production" {
			t.Errorf("%s filed under %q (resource %v), want production", s.SpanName, s.Environment, s.ResourceAttributes)
		}
		declared := s.ResourceAttributes["evalcol.declared.deployment.environment.name"]
		if s.SpanName == "claims-staging-legacy" {
			declared = s.ResourceAttributes["evalcol.declared.deployment.environment"]
			if s.ResourceAttributes["deployment.environment"] != "production" {
				t.Errorf("legacy attribute = %q, want production", s.ResourceAttributes["deployment.environment"])
			}
		}
		if declared != "staging" {
			t.Errorf("%s: the declared environment is not kept for the record: %v", s.SpanName, s.ResourceAttributes)
		}
		if len(s.Evaluations) != 0 {
			t.Errorf("staging's setup evaluated production's span %s: %v", s.SpanName, s.Evaluations)
		}
	}

	// Staging sees only its own span, evaluated by its setup.
	testcollector.Eventually(t, 10*time.Second, func() bool { return status() == "in_progress" }, "setup in_progress after staging's span")
	var staging spansResponse
	testcollector.Eventually(t, 10*time.Second, func() bool {
		_, staging = querySpans(t, c, stagingKey, nil)
		return len(staging.Spans.Data) >= 1 && len(staging.Spans.Data[0].Evaluations) == 1
	}, "staging's own span evaluated")
	time.Sleep(300 * time.Millisecond) // anything misfiled would have landed by now
	_, staging = querySpans(t, c, stagingKey, nil)
	if len(staging.Spans.Data) != 1 || staging.Spans.Data[0].SpanName != "staging-own" || staging.Spans.TotalResults != 1 {
		t.Errorf("staging sees %d spans (%+v), want only staging-own", len(staging.Spans.Data), staging.Spans.Data)
	}
	points := func(key string, body map[string]any) metricsResponse {
		body["from_timestamp_sec"] = time.Now().Add(-time.Hour).Unix()
		r := c.Call("POST", "/v2/metrics", key, body)
		if r.Status != 200 {
			t.Fatalf("POST /v2/metrics = %d %s", r.Status, r.Body)
		}
		var m metricsResponse
		r.JSON(t, &m)
		return m
	}
	byMonitor := map[string]any{"filters": []map[string]any{{"field": "labels.monitor_id", "operator": "equals", "value": setup.ID}}}
	if m := points(stagingKey, byMonitor); m.Metrics.TotalResults != 1 || m.Metrics.Data[0].Points[0].Labels["span_id"] != staging.Spans.Data[0].SpanID {
		t.Errorf("staging's setup recorded %d points, want 1 (its own span): %+v", m.Metrics.TotalResults, m.Metrics.Data)
	}
	if m := points(productionKey, byMonitor); m.Metrics.TotalResults != 0 {
		t.Errorf("production sees %d points of staging's setup", m.Metrics.TotalResults)
	}

	// OTLP metrics follow the key too.
	var own metricsResponse
	testcollector.Eventually(t, 10*time.Second, func() bool {
		own = points(productionKey, map[string]any{"metric_name": "intruder.gauge"})
		return own.Metrics.TotalResults == 1
	}, "production sees its metric point")
	if l := own.Metrics.Data[0].Points[0].Labels; l["environment"] != "production" {
		t.Errorf("metric point labels %v, want environment production", l)
	}
	if m := points(stagingKey, map[string]any{"metric_name": "intruder.gauge"}); m.Metrics.TotalResults != 0 {
		t.Errorf("staging sees production's metric point: %+v", m.Metrics.Data)
	}
}

// postMetric sends one OTLP/HTTP JSON gauge point whose resource claims
// environment env.
func postMetric(t *testing.T, c *testcollector.Collector, key, name, env string) {
	t.Helper()
	body := fmt.Sprintf(`{"resourceMetrics":[{"resource":{"attributes":[
		{"key":"service.name","value":{"stringValue":"intruder"}},
		{"key":"deployment.environment.name","value":{"stringValue":%q}}]},
	  "scopeMetrics":[{"metrics":[{"name":%q,"gauge":{"dataPoints":[{"asDouble":1.5,"timeUnixNano":"%d"}]}}]}]}]}`,
		env, name, time.Now().UnixNano())
	req, _ := http.NewRequest("POST", "http://"+c.OTLPHTTP+"/v1/metrics", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if b, _ := io.ReadAll(resp.Body); resp.StatusCode != 200 {
		t.Fatalf("POST /v1/metrics = %d %s", resp.StatusCode, b)
	}
}

// invalidIDTraces is one request of two valid spans (span ids base+1 and
// base+2), one span with an all-zero span id and one with an all-zero
// trace id.
func invalidIDTraces(base byte) ptrace.Traces {
	td := ptrace.NewTraces()
	rs := td.ResourceSpans().AppendEmpty()
	rs.Resource().Attributes().PutStr("service.name", "ids")
	spans := rs.ScopeSpans().AppendEmpty().Spans()
	now := pcommon.NewTimestampFromTime(time.Now())
	add := func(name string, tid pcommon.TraceID, sid pcommon.SpanID) {
		s := spans.AppendEmpty()
		s.SetName(name)
		s.SetTraceID(tid)
		s.SetSpanID(sid)
		s.SetStartTimestamp(now)
		s.SetEndTimestamp(now)
	}
	tid := pcommon.TraceID{base, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}
	add(fmt.Sprintf("valid-%d-1", base), tid, pcommon.SpanID{base, 1})
	add(fmt.Sprintf("valid-%d-2", base), tid, pcommon.SpanID{base, 2})
	add("zero-span-id", tid, pcommon.SpanID{})
	add("zero-trace-id", pcommon.TraceID{}, pcommon.SpanID{base, 3})
	return td
}

const wantRejection = "2 span(s) rejected: an all-zero trace_id or span_id is invalid (OTLP); the other spans were accepted"

// TestInvalidIDsRejectedInPartialSuccess: spans with an all-zero span or
// trace id are answered in partial_success (count and message) over
// OTLP/HTTP protobuf and JSON, through the API port, and over gRPC; the
// valid spans of the same requests are stored.
func TestInvalidIDsRejectedInPartialSuccess(t *testing.T) {
	c := testcollector.Start(t, testcollector.DefaultConfig)
	key := testcollector.DefaultAPIKey

	post := func(addr, contentType string, body []byte) ptraceotlp.ExportResponse {
		t.Helper()
		req, _ := http.NewRequest("POST", "http://"+addr+"/v1/traces", bytes.NewReader(body))
		req.Header.Set("Content-Type", contentType)
		req.Header.Set("Authorization", "Bearer "+key)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != 200 {
			t.Fatalf("POST %s /v1/traces = %d %s", addr, resp.StatusCode, b)
		}
		out := ptraceotlp.NewExportResponse()
		if contentType == "application/json" {
			err = out.UnmarshalJSON(b)
		} else {
			err = out.UnmarshalProto(b)
		}
		if err != nil {
			t.Fatalf("answer %q is not an OTLP export response: %v", b, err)
		}
		return out
	}
	check := func(name string, r ptraceotlp.ExportResponse) {
		t.Helper()
		if ps := r.PartialSuccess(); ps.RejectedSpans() != 2 || ps.ErrorMessage() != wantRejection {
			t.Errorf("%s: partial_success = %d %q, want 2 %q", name, ps.RejectedSpans(), ps.ErrorMessage(), wantRejection)
		}
	}

	proto, _ := ptraceotlp.NewExportRequestFromTraces(invalidIDTraces(1)).MarshalProto()
	check("HTTP protobuf", post(c.OTLPHTTP, "application/x-protobuf", proto))
	js, _ := ptraceotlp.NewExportRequestFromTraces(invalidIDTraces(2)).MarshalJSON()
	check("HTTP JSON", post(c.OTLPHTTP, "application/json", js))
	viaAPI, _ := ptraceotlp.NewExportRequestFromTraces(invalidIDTraces(3)).MarshalProto()
	check("HTTP through the API port", post(c.API, "application/x-protobuf", viaAPI))

	conn, err := grpc.NewClient(c.OTLPGRPC, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	ctx := metadata.AppendToOutgoingContext(context.Background(), "authorization", "Bearer "+key)
	r, err := ptraceotlp.NewGRPCClient(conn).Export(ctx, ptraceotlp.NewExportRequestFromTraces(invalidIDTraces(4)))
	if err != nil {
		t.Fatalf("gRPC export: %v", err)
	}
	check("gRPC", r)

	// A request without invalid spans gets no partial_success.
	valid := invalidIDTraces(5)
	valid.ResourceSpans().At(0).ScopeSpans().At(0).Spans().RemoveIf(func(s ptrace.Span) bool { return strings.HasPrefix(s.Name(), "zero") })
	clean, _ := ptraceotlp.NewExportRequestFromTraces(valid).MarshalProto()
	if ps := post(c.OTLPHTTP, "application/x-protobuf", clean).PartialSuccess(); ps.RejectedSpans() != 0 || ps.ErrorMessage() != "" {
		t.Errorf("clean request got partial_success %d %q", ps.RejectedSpans(), ps.ErrorMessage())
	}

	var got spansResponse
	testcollector.Eventually(t, 10*time.Second, func() bool {
		_, got = querySpans(t, c, key, nil)
		return got.Spans.TotalResults >= 10
	}, "the 10 valid spans stored")
	time.Sleep(200 * time.Millisecond)
	_, got = querySpans(t, c, key, nil)
	if got.Spans.TotalResults != 10 {
		t.Errorf("stored %d spans, want the 10 valid ones", got.Spans.TotalResults)
	}
	for _, s := range got.Spans.Data {
		if !strings.HasPrefix(s.SpanName, "valid-") {
			t.Errorf("stored invalid span %s", s.SpanName)
		}
	}
}
