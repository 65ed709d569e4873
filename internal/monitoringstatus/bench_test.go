package monitoringstatus

import (
	"encoding/hex"
	"testing"
	"time"

	"github.com/evalcol/evalcol/internal/warehouse"
)

// BenchmarkTracker measures what the monitoring status costs per span: the
// processor's report of a matched span and the exporter's report of the
// stored one (batches of 100 spans, all matched, as with a monitor on every
// span).
func BenchmarkTracker(b *testing.B) {
	const batch = 100
	tr := NewTracker()
	matched := make([]MatchedSpan, batch)
	stored := make([]warehouse.Span, batch)
	for i := range matched {
		m := &matched[i]
		m.Environment, m.OK = "prod", 1
		m.TraceID[0], m.SpanID[0] = byte(i), byte(i)
		stored[i] = warehouse.Span{Environment: "prod", TraceID: hex.EncodeToString(m.TraceID[:]), SpanID: hex.EncodeToString(m.SpanID[:]),
			Evaluations: []warehouse.Evaluation{{Name: "char-count"}}}
	}
	now := time.Now()
	b.ReportAllocs()
	for b.Loop() {
		tr.Matched(now, matched)
		tr.Stored(now, stored)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*batch), "ns/span")
	if len(tr.envs["prod"].queue) > 3*batch+1024 {
		b.Errorf("the queue grew to %d entries with %d pending", len(tr.envs["prod"].queue), tr.envs["prod"].pending)
	}
}
