package tenantprocessor

import (
	"context"
	"math"
	"testing"
	"time"

	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/collector/consumer/consumertest"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/collector/processor"
	"go.opentelemetry.io/collector/processor/processortest"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"

	"github.com/evalcol/evalcol/internal/partialsuccess"
	"github.com/evalcol/evalcol/internal/tenant"
)

func traces(resourceEnv map[string]string) ptrace.Traces {
	td := ptrace.NewTraces()
	rs := td.ResourceSpans().AppendEmpty()
	for k, v := range resourceEnv {
		rs.Resource().Attributes().PutStr(k, v)
	}
	s := rs.ScopeSpans().AppendEmpty().Spans().AppendEmpty()
	s.SetName("span")
	s.SetTraceID(pcommon.TraceID{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16})
	s.SetSpanID(pcommon.SpanID{1, 2, 3, 4, 5, 6, 7, 8})
	return td
}

func getStr(m pcommon.Map, k string) string {
	if v, ok := m.Get(k); ok {
		return v.AsString()
	}
	return ""
}

// newTraces returns a started tenant processor into sink and its telemetry.
func newTraces(t *testing.T, sink *consumertest.TracesSink) (processor.Traces, *componenttest.Telemetry) {
	t.Helper()
	tel := componenttest.NewTelemetry()
	t.Cleanup(func() { _ = tel.Shutdown(context.Background()) })
	set := processortest.NewNopSettings(NewFactory().Type())
	set.TelemetrySettings = tel.NewTelemetrySettings()
	p, err := NewFactory().CreateTraces(context.Background(), set, &Config{}, sink)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Start(context.Background(), componenttest.NewNopHost()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p.Shutdown(context.Background()) })
	return p, tel
}

// counter returns the sum of a counter's data points (0 when it was never
// recorded).
func counter(t *testing.T, tel *componenttest.Telemetry, name string) int64 {
	t.Helper()
	m, err := tel.GetMetric(name)
	if err != nil {
		return 0
	}
	var n int64
	for _, dp := range m.Data.(metricdata.Sum[int64]).DataPoints {
		n += dp.Value
	}
	return n
}

// TestKeyDecidesEnvironment: whatever environment a resource declares, the
// request is filed under its API key's; a disagreeing value is kept under
// evalcol.declared.* and counted.
func TestKeyDecidesEnvironment(t *testing.T) {
	authed := tenant.NewClientContext(context.Background(), tenant.Tenant{Environment: "production"})
	tests := []struct {
		name          string
		ctx           context.Context
		attrs         map[string]string
		want          map[string]string // "" = absent
		wantOverrides int64
	}{
		{"stamped when absent", authed, nil, map[string]string{
			"deployment.environment.name": "production", "deployment.environment": "",
			"evalcol.declared.deployment.environment.name": "",
		}, 0},
		{"disagreeing name replaced and kept for the record", authed, map[string]string{"deployment.environment.name": "staging"}, map[string]string{
			"deployment.environment.name": "production", "evalcol.declared.deployment.environment.name": "staging",
		}, 1},
		{"disagreeing legacy attribute replaced and kept", authed, map[string]string{"deployment.environment": "staging"}, map[string]string{
			"deployment.environment.name": "production", "deployment.environment": "production",
			"evalcol.declared.deployment.environment": "staging", "evalcol.declared.deployment.environment.name": "",
		}, 1},
		{"both disagree", authed, map[string]string{"deployment.environment.name": "staging", "deployment.environment": "dev"}, map[string]string{
			"deployment.environment.name": "production", "deployment.environment": "production",
			"evalcol.declared.deployment.environment.name": "staging", "evalcol.declared.deployment.environment": "dev",
		}, 2},
		{"agreeing name unchanged", authed, map[string]string{"deployment.environment.name": "production"}, map[string]string{
			"deployment.environment.name": "production", "evalcol.declared.deployment.environment.name": "",
		}, 0},
		{"declared attributes sent by the app are dropped", authed, map[string]string{
			"deployment.environment.name": "production", "evalcol.declared.deployment.environment.name": "forged",
			"evalcol.declared.deployment.environment": "forged",
		}, map[string]string{
			"deployment.environment.name": "production", "evalcol.declared.deployment.environment.name": "",
			"evalcol.declared.deployment.environment": "",
		}, 0},
		{"unauthenticated untouched", context.Background(), map[string]string{"deployment.environment.name": "staging"}, map[string]string{
			"deployment.environment.name": "staging", "evalcol.declared.deployment.environment.name": "",
		}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sink := &consumertest.TracesSink{}
			p, tel := newTraces(t, sink)
			if err := p.ConsumeTraces(tt.ctx, traces(tt.attrs)); err != nil {
				t.Fatal(err)
			}
			got := sink.AllTraces()
			if len(got) != 1 || got[0].SpanCount() != 1 {
				t.Fatalf("got %d batches, want 1 with 1 span", len(got))
			}
			attrs := got[0].ResourceSpans().At(0).Resource().Attributes()
			for k, want := range tt.want {
				if v := getStr(attrs, k); v != want {
					t.Errorf("%s = %q, want %q (resource %v)", k, v, want, attrs.AsRaw())
				}
			}
			if n := counter(t, tel, MetricEnvironmentOverrides); n != tt.wantOverrides {
				t.Errorf("%s = %d, want %d", MetricEnvironmentOverrides, n, tt.wantOverrides)
			}
		})
	}
}

func TestStampsMetrics(t *testing.T) {
	sink := &consumertest.MetricsSink{}
	tel := componenttest.NewTelemetry()
	defer func() { _ = tel.Shutdown(context.Background()) }()
	set := processortest.NewNopSettings(NewFactory().Type())
	set.TelemetrySettings = tel.NewTelemetrySettings()
	p, err := NewFactory().CreateMetrics(context.Background(), set, &Config{}, sink)
	if err != nil {
		t.Fatal(err)
	}
	md := pmetric.NewMetrics()
	rm := md.ResourceMetrics().AppendEmpty()
	rm.Resource().Attributes().PutStr("deployment.environment.name", "production")
	rm.ScopeMetrics().AppendEmpty().Metrics().AppendEmpty().SetEmptyGauge().DataPoints().AppendEmpty().SetIntValue(1)
	ctx := tenant.NewClientContext(context.Background(), tenant.Tenant{Environment: "dev"})
	if err := p.ConsumeMetrics(ctx, md); err != nil {
		t.Fatal(err)
	}
	attrs := sink.AllMetrics()[0].ResourceMetrics().At(0).Resource().Attributes()
	if env, declared := getStr(attrs, "deployment.environment.name"), getStr(attrs, "evalcol.declared.deployment.environment.name"); env != "dev" || declared != "production" {
		t.Errorf("deployment.environment.name = %q, declared %q; want dev, production", env, declared)
	}
	if n := counter(t, tel, MetricEnvironmentOverrides); n != 1 {
		t.Errorf("%s = %d, want 1", MetricEnvironmentOverrides, n)
	}
}

// TestRejectsZeroIDs: spans with an all-zero trace or span id are removed,
// counted, and reported on the request's partial-success report; the
// valid spans go on.
func TestRejectsZeroIDs(t *testing.T) {
	sink := &consumertest.TracesSink{}
	p, tel := newTraces(t, sink)
	td := traces(nil)
	spans := td.ResourceSpans().At(0).ScopeSpans().At(0).Spans()
	spans.AppendEmpty().SetName("zero span id") // both ids zero
	zeroTrace := spans.AppendEmpty()
	zeroTrace.SetName("zero trace id")
	zeroTrace.SetSpanID(pcommon.SpanID{9})
	zeroSpan := spans.AppendEmpty()
	zeroSpan.SetName("zero span id only")
	zeroSpan.SetTraceID(pcommon.TraceID{9})

	ctx, report := partialsuccess.NewContext(context.Background())
	if err := p.ConsumeTraces(ctx, td); err != nil {
		t.Fatal(err)
	}
	if got := sink.AllTraces(); len(got) != 1 || got[0].SpanCount() != 1 ||
		got[0].ResourceSpans().At(0).ScopeSpans().At(0).Spans().At(0).Name() != "span" {
		t.Fatalf("forwarded %d batches, want the one valid span", len(got))
	}
	n, msg := report.Rejected()
	if n != 3 || msg != "3 span(s) rejected: an all-zero trace_id or span_id is invalid (OTLP); the other spans were accepted" {
		t.Errorf("report = %d %q", n, msg)
	}
	if c := counter(t, tel, MetricRejectedSpans); c != 3 {
		t.Errorf("%s = %d, want 3", MetricRejectedSpans, c)
	}

	// A request of only invalid spans reaches nothing downstream.
	only := ptrace.NewTraces()
	only.ResourceSpans().AppendEmpty().ScopeSpans().AppendEmpty().Spans().AppendEmpty()
	if err := p.ConsumeTraces(context.Background(), only); err != nil {
		t.Fatal(err)
	}
	if got := len(sink.AllTraces()); got != 1 {
		t.Errorf("a request of only invalid spans was forwarded (%d batches)", got)
	}
}

// TestRejectsTimesPast2262: a span whose start or end time does not fit
// signed 64-bit nanoseconds (after 2262-04-11) is removed, counted under
// its reason and reported with it; the valid spans go on, and rejections
// of different reasons in one request add up.
func TestRejectsTimesPast2262(t *testing.T) {
	sink := &consumertest.TracesSink{}
	p, tel := newTraces(t, sink)
	td := traces(nil)
	spans := td.ResourceSpans().At(0).ScopeSpans().At(0).Spans()
	year2300 := pcommon.Timestamp(uint64(time.Date(2300, 1, 1, 0, 0, 0, 0, time.UTC).Unix()) * 1e9)
	now := pcommon.NewTimestampFromTime(time.Now())
	for i, tc := range []struct {
		name       string
		start, end pcommon.Timestamp
	}{
		{"starts in 2300", year2300, year2300 + 1e9},
		{"starts at uint64 max", pcommon.Timestamp(math.MaxUint64), pcommon.Timestamp(math.MaxUint64)},
		{"ends in 2300", now, year2300},
		{"ends one ns too late", now, pcommon.Timestamp(math.MaxInt64) + 1},
	} {
		s := spans.AppendEmpty()
		s.SetName(tc.name)
		s.SetTraceID(pcommon.TraceID{byte(i + 1)})
		s.SetSpanID(pcommon.SpanID{byte(i + 1)})
		s.SetStartTimestamp(tc.start)
		s.SetEndTimestamp(tc.end)
	}
	last := spans.AppendEmpty()
	last.SetName("ends at the last valid ns")
	last.SetTraceID(pcommon.TraceID{9})
	last.SetSpanID(pcommon.SpanID{9})
	last.SetStartTimestamp(now)
	last.SetEndTimestamp(pcommon.Timestamp(math.MaxInt64))
	spans.AppendEmpty().SetName("zero ids")

	ctx, report := partialsuccess.NewContext(context.Background())
	if err := p.ConsumeTraces(ctx, td); err != nil {
		t.Fatal(err)
	}
	got := sink.AllTraces()
	if len(got) != 1 || got[0].SpanCount() != 2 {
		t.Fatalf("forwarded %d batches, want one of the 2 valid spans", len(got))
	}
	kept := got[0].ResourceSpans().At(0).ScopeSpans().At(0).Spans()
	if kept.At(0).Name() != "span" || kept.At(1).Name() != "ends at the last valid ns" {
		t.Errorf("kept %q and %q", kept.At(0).Name(), kept.At(1).Name())
	}
	n, msg := report.Rejected()
	want := "1 span(s) rejected: an all-zero trace_id or span_id is invalid (OTLP); the other spans were accepted; " +
		"4 span(s) rejected: start_time_unix_nano or end_time_unix_nano is after 2262-04-11T23:47:16Z " +
		"(the largest time a signed 64-bit count of nanoseconds holds); the other spans were accepted"
	if n != 5 || msg != want {
		t.Errorf("report = %d %q\nwant 5 %q", n, msg, want)
	}
	if c := counter(t, tel, MetricRejectedSpans); c != 5 {
		t.Errorf("%s = %d, want 5", MetricRejectedSpans, c)
	}
}
