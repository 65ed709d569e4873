package spanconv

import (
	"math"
	"testing"

	"go.opentelemetry.io/collector/pdata/pcommon"
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
