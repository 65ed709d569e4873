package e2etest

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"maps"
	"math"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.opentelemetry.io/collector/pdata/pmetric/pmetricotlp"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/collector/pdata/ptrace/ptraceotlp"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/mem"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/evalcol/evalcol/internal/testcollector"
	"github.com/evalcol/evalcol/internal/warehouse"
)

// Hostile ingest: what a sender puts in OTLP spans never makes the
// warehouse store something the API cannot read back, or drop something
// without saying so.

// exportTraces sends td as OTLP/HTTP protobuf to addr with key and returns
// the export response; it fails the test on any answer but 200.
func exportTraces(t *testing.T, addr, key string, td ptrace.Traces) ptraceotlp.ExportResponse {
	t.Helper()
	body, err := ptraceotlp.NewExportRequestFromTraces(td).MarshalProto()
	if err != nil {
		t.Fatal(err)
	}
	req, _ := http.NewRequest("POST", "http://"+addr+"/v1/traces", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/x-protobuf")
	req.Header.Set("Authorization", "Bearer "+key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 {
		t.Fatalf("POST %s/v1/traces = %d %s", addr, resp.StatusCode, b)
	}
	out := ptraceotlp.NewExportResponse()
	if err := out.UnmarshalProto(b); err != nil {
		t.Fatalf("answer %q is not an OTLP export response: %v", b, err)
	}
	return out
}

// timedSpan appends a span named name with span id {id} to td's first
// scope (trace id {1}), from start to end.
func timedSpan(td ptrace.Traces, name string, id byte, start, end pcommon.Timestamp) ptrace.Span {
	if td.ResourceSpans().Len() == 0 {
		rs := td.ResourceSpans().AppendEmpty()
		rs.Resource().Attributes().PutStr("service.name", "hostile")
		rs.ScopeSpans().AppendEmpty()
	}
	s := td.ResourceSpans().At(0).ScopeSpans().At(0).Spans().AppendEmpty()
	s.SetName(name)
	s.SetTraceID(pcommon.TraceID{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16})
	s.SetSpanID(pcommon.SpanID{id, 1})
	s.SetStartTimestamp(start)
	s.SetEndTimestamp(end)
	return s
}

// allSpans is every stored span of key's environment, whatever its time.
func allSpans(t *testing.T, c *testcollector.Collector, key string) spansResponse {
	t.Helper()
	resp, got := querySpans(t, c, key, url.Values{"from_timestamp_sec": {"0"},
		"to_timestamp_sec": {fmt.Sprint(warehouse.MaxTimestampSec)}, "limit": {"1000"}})
	if resp.Status != 200 {
		t.Fatalf("span query = %d %s", resp.Status, resp.Body)
	}
	return got
}

// TestTimesPast2262Rejected: a span starting or ending after 2262-04-11
// (beyond signed 64-bit nanoseconds) used to be acknowledged and stored at
// a wrapped time near 1715 (a uint64-max time at 0), where no query found
// it. It is rejected in partial_success with the reason, on both
// backends, and with or without the tenant processor (the conversion both
// backends share drops it too); the valid spans of the request are stored.
func TestTimesPast2262Rejected(t *testing.T) {
	withoutTenant := strings.Replace(strings.Replace(testcollector.DefaultConfig,
		"processors: [tenant, evaluator]", "processors: [evaluator]", 1),
		"processors: [tenant]", "processors: []", 1)
	if withoutTenant == testcollector.DefaultConfig {
		t.Fatal("could not take the tenant processor out of the config")
	}
	for _, tc := range []struct {
		name, config, msg string
	}{
		{"sqlite", testcollector.DefaultConfig, "2 span(s) rejected: start_time_unix_nano or end_time_unix_nano is after 2262-04-11T23:47:16Z"},
		{"sqlite without the tenant processor", withoutTenant, "2 span(s) rejected: start or end time after 2262-04-11T23:47:16Z; the other spans were accepted"},
		{"clickhouse", "", "2 span(s) rejected: start_time_unix_nano or end_time_unix_nano is after 2262-04-11T23:47:16Z"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			config := tc.config
			if tc.name == "clickhouse" {
				addr := clickhouseAddr(t)
				config = clickhouseConfig(addr, testDatabase(t, addr))
			}
			c := testcollector.Start(t, config)
			key := testcollector.DefaultAPIKey
			now := pcommon.NewTimestampFromTime(time.Now())
			year2300 := pcommon.Timestamp(uint64(time.Date(2300, 1, 1, 0, 0, 0, 0, time.UTC).Unix()) * 1e9)
			td := ptrace.NewTraces()
			timedSpan(td, "valid", 1, now, now+1e6)
			timedSpan(td, "in 2300", 2, year2300, year2300+1e9)
			timedSpan(td, "at uint64 max", 3, math.MaxUint64, math.MaxUint64)
			ps := exportTraces(t, c.OTLPHTTP, key, td).PartialSuccess()
			if ps.RejectedSpans() != 2 || !strings.HasPrefix(ps.ErrorMessage(), tc.msg) {
				t.Errorf("partial_success = %d %q, want 2 %q...", ps.RejectedSpans(), ps.ErrorMessage(), tc.msg)
			}
			var got spansResponse
			testcollector.Eventually(t, 10*time.Second, func() bool {
				got = allSpans(t, c, key)
				return got.Spans.TotalResults >= 1
			}, "the valid span stored")
			time.Sleep(200 * time.Millisecond)
			got = allSpans(t, c, key)
			if got.Spans.TotalResults != 1 || got.Spans.Data[0].SpanName != "valid" {
				t.Fatalf("stored %d spans %+v, want only the valid one", got.Spans.TotalResults, got.Spans.Data)
			}
		})
	}
}

// TestConflictingResendReported: a span resent with the same trace id,
// span id and start time but new attributes used to vanish silently (200,
// empty partial_success). The first copy is still kept, but the sender is
// told in partial_success, and the evaluation of the resent content is
// not stored against the kept span. An identical resend (an SDK retry
// after a lost answer) is normal: no partial_success. On both backends.
func TestConflictingResendReported(t *testing.T) {
	withMonitor := func(config string) string {
		return strings.Replace(config, "evaluator: {api: evalapi}",
			"evaluator: {api: evalapi, monitors: [{name: all, evaluators: [char-count]}]}", 1)
	}
	for _, backend := range []string{"sqlite", "clickhouse"} {
		t.Run(backend, func(t *testing.T) {
			config := testcollector.DefaultConfig
			if backend == "clickhouse" {
				addr := clickhouseAddr(t)
				config = clickhouseConfig(addr, testDatabase(t, addr))
			}
			if withMonitor(config) == config {
				t.Fatal("could not add the char-count monitor to the config")
			}
			testConflictingResend(t, withMonitor(config))
		})
	}
}

func testConflictingResend(t *testing.T, config string) {
	c := testcollector.Start(t, config)
	key := testcollector.DefaultAPIKey
	now := pcommon.NewTimestampFromTime(time.Now())
	request := func(text string) ptrace.Traces {
		td := ptrace.NewTraces()
		s := timedSpan(td, "chat", 1, now, now+1e9)
		s.Attributes().PutStr("llm.completions.0.role", "assistant")
		s.Attributes().PutStr("llm.completions.0.content", text)
		timedSpan(td, "other", 2, now, now+1e9)
		return td
	}
	if ps := exportTraces(t, c.OTLPHTTP, key, request("hello")).PartialSuccess(); ps.RejectedSpans() != 0 || ps.ErrorMessage() != "" {
		t.Fatalf("first send: partial_success %d %q", ps.RejectedSpans(), ps.ErrorMessage())
	}
	if ps := exportTraces(t, c.OTLPHTTP, key, request("hello")).PartialSuccess(); ps.RejectedSpans() != 0 || ps.ErrorMessage() != "" {
		t.Errorf("identical resend: partial_success %d %q, want none", ps.RejectedSpans(), ps.ErrorMessage())
	}
	ps := exportTraces(t, c.OTLPHTTP, key, request("a different completion")).PartialSuccess()
	want := "1 span(s) rejected: a span with the same trace_id, span_id and start time but other content was stored first and is kept " +
		"(first: trace_id 0102030405060708090a0b0c0d0e0f10 span_id 0101000000000000)"
	if ps.RejectedSpans() != 1 || !strings.HasPrefix(ps.ErrorMessage(), want) {
		t.Errorf("conflicting resend: partial_success %d %q, want 1 %q...", ps.RejectedSpans(), ps.ErrorMessage(), want)
	}

	got := allSpans(t, c, key)
	if got.Spans.TotalResults != 2 {
		t.Fatalf("stored %d spans, want 2", got.Spans.TotalResults)
	}
	for _, s := range got.Spans.Data {
		if s.SpanName == "chat" && s.SpanAttributes["llm.completions.0.content"] != "hello" {
			t.Errorf("stored chat span has %q, want the first copy's hello", s.SpanAttributes["llm.completions.0.content"])
		}
	}
	m := queryMetrics(t, c, map[string]any{"metric_name": "char-count.char_count"})
	var counts []float64
	for _, g := range m.Metrics.Data {
		for _, p := range g.Points {
			if p.NumericValue != nil && p.Labels["span_id"] == "0101000000000000" {
				counts = append(counts, *p.NumericValue)
			}
		}
	}
	if len(counts) != 1 || counts[0] != 5 {
		t.Errorf("char_count points of the chat span = %v, want only the first copy's 5", counts)
	}
}

// rawCodec sends a []byte as it is (a gRPC client codec for garbage).
type rawCodec struct{}

func (rawCodec) Name() string { return "proto" }
func (rawCodec) Marshal(v any) (mem.BufferSlice, error) {
	return mem.BufferSlice{mem.SliceBuffer(v.([]byte))}, nil
}
func (rawCodec) Unmarshal(mem.BufferSlice, any) error { return nil }

// TestGarbageProtobufOverGRPC: an OTLP/gRPC export whose body is not valid
// protobuf was answered INTERNAL (which senders retry for ever); it is
// INVALID_ARGUMENT with a message, nothing is stored, and valid requests
// right after it are served as before.
func TestGarbageProtobufOverGRPC(t *testing.T) {
	c := testcollector.Start(t, testcollector.DefaultConfig)
	key := testcollector.DefaultAPIKey
	conn, err := grpc.NewClient(c.OTLPGRPC, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	ctx := metadata.AppendToOutgoingContext(context.Background(), "authorization", "Bearer "+key)
	for _, tc := range []struct {
		name, method string
		body         []byte
	}{
		{"traces, bad wire type", "/opentelemetry.proto.collector.trace.v1.TraceService/Export", []byte{0x0f, 0xff, 0xff, 0xff}},
		{"traces, truncated", "/opentelemetry.proto.collector.trace.v1.TraceService/Export", []byte{0x0a, 0x50, 0x0a}},
		{"metrics", "/opentelemetry.proto.collector.metrics.v1.MetricsService/Export", []byte("not protobuf at all \xff\xfe")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out []byte
			err := conn.Invoke(ctx, tc.method, tc.body, &out, grpc.ForceCodecV2(rawCodec{}))
			st, _ := status.FromError(err)
			if st.Code() != codes.InvalidArgument || !strings.Contains(st.Message(), "is not a valid protobuf Export request") {
				t.Errorf("answer %v %q, want InvalidArgument: is not a valid protobuf Export request", st.Code(), st.Message())
			}
		})
	}
	// A valid request right after is served, and stored alone.
	td := ptrace.NewTraces()
	now := pcommon.NewTimestampFromTime(time.Now())
	timedSpan(td, "valid", 1, now, now+1e6)
	if _, err := ptraceotlp.NewGRPCClient(conn).Export(ctx, ptraceotlp.NewExportRequestFromTraces(td)); err != nil {
		t.Fatalf("valid export after garbage: %v", err)
	}
	testcollector.Eventually(t, 10*time.Second, func() bool { return allSpans(t, c, key).Spans.TotalResults >= 1 }, "the valid span stored")
	if got := allSpans(t, c, key); got.Spans.TotalResults != 1 || got.Spans.Data[0].SpanName != "valid" {
		t.Errorf("stored %+v, want only the valid span", got.Spans.Data)
	}
	// Without a valid key, garbage is refused by authentication first.
	var out []byte
	bad := metadata.AppendToOutgoingContext(context.Background(), "authorization", "Bearer not-a-key")
	err = conn.Invoke(bad, "/opentelemetry.proto.collector.trace.v1.TraceService/Export", []byte{0x0f}, &out, grpc.ForceCodecV2(rawCodec{}))
	if st, _ := status.FromError(err); st.Code() != codes.Unauthenticated {
		t.Errorf("garbage with a bad key: %v, want Unauthenticated", err)
	}
}

// exportMetrics sends md as OTLP/HTTP (protobuf, or JSON when json) to
// addr with key and returns the export response and its raw body; it fails
// the test on any answer but 200.
func exportMetrics(t *testing.T, addr, key string, md pmetric.Metrics, json bool) (pmetricotlp.ExportResponse, []byte) {
	t.Helper()
	req := pmetricotlp.NewExportRequestFromMetrics(md)
	contentType, marshal := "application/x-protobuf", req.MarshalProto
	if json {
		contentType, marshal = "application/json", req.MarshalJSON
	}
	body, err := marshal()
	if err != nil {
		t.Fatal(err)
	}
	r, _ := http.NewRequest("POST", "http://"+addr+"/v1/metrics", bytes.NewReader(body))
	r.Header.Set("Content-Type", contentType)
	r.Header.Set("Authorization", "Bearer "+key)
	resp, err := http.DefaultClient.Do(r)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 {
		t.Fatalf("POST %s/v1/metrics = %d %s", addr, resp.StatusCode, b)
	}
	out := pmetricotlp.NewExportResponse()
	unmarshal := out.UnmarshalProto
	if json {
		unmarshal = out.UnmarshalJSON
	}
	if err := unmarshal(b); err != nil {
		t.Fatalf("answer %q is not an OTLP metrics export response: %v", b, err)
	}
	return out, b
}

// latePointMetrics returns metrics with one valid gauge point (metric
// "valid") and three data points whose time or start time is past 2262:
// a gauge point in 2300, a histogram point at the uint64 maximum, a sum
// point starting in 2300.
func latePointMetrics() pmetric.Metrics {
	now := pcommon.NewTimestampFromTime(time.Now())
	year2300 := pcommon.Timestamp(uint64(time.Date(2300, 1, 1, 0, 0, 0, 0, time.UTC).Unix()) * 1e9)
	md := pmetric.NewMetrics()
	rm := md.ResourceMetrics().AppendEmpty()
	rm.Resource().Attributes().PutStr("service.name", "hostile")
	ms := rm.ScopeMetrics().AppendEmpty().Metrics()
	g := ms.AppendEmpty()
	g.SetName("valid")
	dp := g.SetEmptyGauge().DataPoints().AppendEmpty()
	dp.SetTimestamp(now)
	dp.SetDoubleValue(1)
	late := g.Gauge().DataPoints().AppendEmpty()
	late.SetTimestamp(year2300)
	late.SetDoubleValue(2)
	h := ms.AppendEmpty()
	h.SetName("at uint64 max")
	hp := h.SetEmptyHistogram().DataPoints().AppendEmpty()
	hp.SetTimestamp(math.MaxUint64)
	hp.SetCount(1)
	s := ms.AppendEmpty()
	s.SetName("starts in 2300")
	sp := s.SetEmptySum().DataPoints().AppendEmpty()
	sp.SetStartTimestamp(year2300)
	sp.SetTimestamp(now)
	sp.SetIntValue(3)
	return md
}

// TestMetricTimesPast2262Rejected: an OTLP metric data point whose time
// (or start time) is after 2262-04-11 used to be acknowledged and stored
// at a wrapped time (near 1715, or at 0 for a uint64-max time). Like such
// spans, it is rejected per data point in partial_success
// (rejected_data_points, with the reason), over OTLP/HTTP protobuf and
// JSON and OTLP/gRPC, on both backends, with or without the tenant
// processor; the valid point of the request is stored alone.
func TestMetricTimesPast2262Rejected(t *testing.T) {
	withoutTenant := strings.Replace(strings.Replace(testcollector.DefaultConfig,
		"processors: [tenant, evaluator]", "processors: [evaluator]", 1),
		"processors: [tenant]", "processors: []", 1)
	for _, tc := range []struct {
		name, config, msg string
	}{
		{"sqlite", testcollector.DefaultConfig, "3 data point(s) rejected: time_unix_nano or start_time_unix_nano is after 2262-04-11T23:47:16Z"},
		{"sqlite without the tenant processor", withoutTenant, "3 data point(s) rejected: time_unix_nano or start_time_unix_nano after 2262-04-11T23:47:16Z; the other data points were accepted"},
		{"clickhouse", "", "3 data point(s) rejected: time_unix_nano or start_time_unix_nano is after 2262-04-11T23:47:16Z"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			config := tc.config
			if tc.name == "clickhouse" {
				addr := clickhouseAddr(t)
				config = clickhouseConfig(addr, testDatabase(t, addr))
			}
			c := testcollector.Start(t, config)
			key := testcollector.DefaultAPIKey
			check := func(how string, ps pmetricotlp.ExportPartialSuccess) {
				t.Helper()
				if ps.RejectedDataPoints() != 3 || !strings.HasPrefix(ps.ErrorMessage(), tc.msg) {
					t.Errorf("%s: partial_success = %d %q, want 3 %q...", how, ps.RejectedDataPoints(), ps.ErrorMessage(), tc.msg)
				}
			}
			resp, _ := exportMetrics(t, c.OTLPHTTP, key, latePointMetrics(), false)
			check("HTTP protobuf", resp.PartialSuccess())
			resp, raw := exportMetrics(t, c.OTLPHTTP, key, latePointMetrics(), true)
			check("HTTP JSON", resp.PartialSuccess())
			if !strings.Contains(string(raw), `"rejectedDataPoints"`) {
				t.Errorf("HTTP JSON answer %s does not name rejectedDataPoints", raw)
			}
			conn, err := grpc.NewClient(c.OTLPGRPC, grpc.WithTransportCredentials(insecure.NewCredentials()))
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			ctx := metadata.AppendToOutgoingContext(context.Background(), "authorization", "Bearer "+key)
			gr, err := pmetricotlp.NewGRPCClient(conn).Export(ctx, pmetricotlp.NewExportRequestFromMetrics(latePointMetrics()))
			if err != nil {
				t.Fatalf("gRPC export: %v", err)
			}
			check("gRPC", gr.PartialSuccess())

			all := map[string]any{"from_timestamp_sec": 0, "to_timestamp_sec": warehouse.MaxTimestampSec, "metric_source": "otlp"}
			var got metricsResponse
			testcollector.Eventually(t, 10*time.Second, func() bool {
				got = queryMetrics(t, c, maps.Clone(all))
				return got.Metrics.TotalResults >= 3
			}, "the valid points stored")
			time.Sleep(200 * time.Millisecond)
			got = queryMetrics(t, c, maps.Clone(all))
			if got.Metrics.TotalResults != 3 || len(got.Metrics.Data) != 1 || got.Metrics.Data[0].MetricName != "valid" {
				t.Fatalf("stored %d points %+v, want the valid one of each of the 3 requests", got.Metrics.TotalResults, got.Metrics.Data)
			}
		})
	}
}
