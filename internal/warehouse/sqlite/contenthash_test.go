package sqlite

import (
	"testing"

	"github.com/evalcol/evalcol/internal/warehouse/synthspans"
)

// BenchmarkSpanContentHash is what conflict detection adds to preparing
// each span (besides its 8 bytes in the key table): hashing its content.
func BenchmarkSpanContentHash(b *testing.B) {
	spans := synthspans.New("bench", 1).Batch(1000, 1_790_000_000_000, 1_790_000_060_000)
	var res lastEncoding
	preps := make([]*prepared, len(spans))
	bytes := 0
	for i := range spans {
		preps[i] = prepare(&spans[i], &res, true)
		bytes += len(preps[i].attributes) + len(preps[i].resource)
	}
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		for i := range spans {
			preps[i].content = spanContentHash(&spans[i], preps[i])
		}
		n += len(spans)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(n), "ns/span")
	b.ReportMetric(float64(bytes)/float64(len(spans)), "bytes/span")
}
