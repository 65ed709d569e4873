package spanconv

import (
	"math"
	"testing"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/pmetric"
)

// TestTimesPast2262Dropped: the conversion both backends share never turns
// a start or end time past signed 64-bit nanoseconds into a wrapped
// (negative or zero) time; it drops the span with the reason. The last
// valid nanosecond converts exactly.
func TestTimesPast2262Dropped(t *testing.T) {
	td := chatTraces(nil)
	spans := td.ResourceSpans().At(0).ScopeSpans().At(0).Spans()
	for i, ts := range [][2]pcommon.Timestamp{
		{math.MaxUint64, math.MaxUint64},
		{pcommon.Timestamp(math.MaxInt64) + 1, pcommon.Timestamp(math.MaxInt64) + 2},
		{pcommon.NewTimestampFromTime(t0), math.MaxUint64},
		{pcommon.NewTimestampFromTime(t0), pcommon.Timestamp(math.MaxInt64)},
	} {
		sp := spans.AppendEmpty()
		sp.SetTraceID(traceID)
		sp.SetSpanID(pcommon.SpanID{9, byte(i)})
		sp.SetStartTimestamp(ts[0])
		sp.SetEndTimestamp(ts[1])
	}
	b := Traces(td, Options{DefaultEnvironment: "default"})
	if len(b.Spans) != 2 || len(b.Dropped) != 3 {
		t.Fatalf("converted %d spans and dropped %d, want 2 and 3", len(b.Spans), len(b.Dropped))
	}
	for _, d := range b.Dropped {
		if d.Reason != "start or end time after 2262-04-11T23:47:16Z" {
			t.Errorf("dropped %s: reason %q", d.SpanID, d.Reason)
		}
	}
	last := b.Spans[1]
	if want := int64(pcommon.NewTimestampFromTime(t0)) / 1e6; last.Timestamp != want || last.Duration != (math.MaxInt64-int64(pcommon.NewTimestampFromTime(t0)))/1e6 {
		t.Errorf("span ending at the last valid ns: timestamp %d duration %d", last.Timestamp, last.Duration)
	}
	for _, s := range b.Spans {
		if s.Timestamp <= 0 {
			t.Errorf("span %s stored at %d", s.SpanID, s.Timestamp)
		}
	}
}

// TestMetricTimesPast2262Dropped: a metric data point of any type whose
// time or start time is past signed 64-bit nanoseconds is left out and
// counted (per OTLP data point, not per stored point: the histogram's
// count, sum and buckets are one), never stored at a wrapped time; the
// last valid nanosecond converts exactly.
func TestMetricTimesPast2262Dropped(t *testing.T) {
	md := pmetric.NewMetrics()
	ms := md.ResourceMetrics().AppendEmpty().ScopeMetrics().AppendEmpty().Metrics()
	last := pcommon.Timestamp(math.MaxInt64)
	g := ms.AppendEmpty()
	g.SetName("gauge")
	g.SetEmptyGauge().DataPoints().AppendEmpty().SetTimestamp(last)
	g.Gauge().DataPoints().AppendEmpty().SetTimestamp(last + 1)
	h := ms.AppendEmpty()
	h.SetName("histogram")
	hp := h.SetEmptyHistogram().DataPoints().AppendEmpty()
	hp.SetTimestamp(math.MaxUint64)
	hp.SetSum(1)
	hp.BucketCounts().FromRaw([]uint64{1, 2})
	s := ms.AppendEmpty()
	s.SetName("sum")
	sp := s.SetEmptySum().DataPoints().AppendEmpty()
	sp.SetStartTimestamp(math.MaxUint64)
	sp.SetTimestamp(last)
	e := ms.AppendEmpty()
	e.SetName("exponential")
	e.SetEmptyExponentialHistogram().DataPoints().AppendEmpty().SetTimestamp(last + 1)
	q := ms.AppendEmpty()
	q.SetName("summary")
	q.SetEmptySummary().DataPoints().AppendEmpty().SetTimestamp(last + 1)
	pts, late := MetricPoints(md, Options{DefaultEnvironment: "default"})
	if late != 5 {
		t.Errorf("late = %d, want 5", late)
	}
	if len(pts) != 1 || pts[0].MetricName != "gauge" || pts[0].EventTime != math.MaxInt64/1_000_000 {
		t.Errorf("points %+v, want only the gauge's at %d ms", pts, int64(math.MaxInt64/1_000_000))
	}
}
