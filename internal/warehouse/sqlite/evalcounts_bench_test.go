package sqlite

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/evalcol/evalcol/internal/warehouse"
	"github.com/evalcol/evalcol/internal/warehouse/synthspans"
)

// BenchmarkWriteEvaluatedSpans is BenchmarkWriteSpans with the two
// results of the default safety monitor on every span (one in five
// failing), so that the writer keeps their evaluation counts. Compare
// spans/cpu-s with the build before the counts (the same file there):
//
//	go test -run '^$' -bench WriteEvaluatedSpans -benchtime 200x ./internal/warehouse/sqlite/
func BenchmarkWriteEvaluatedSpans(b *testing.B) {
	ctx := context.Background()
	st, err := Open(ctx, filepath.Join(b.TempDir(), "bench.db"), Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	i := 0
	synthspans.BenchmarkWrites(b, func(spans []warehouse.Span) error {
		for j := range spans {
			i++
			tox := warehouse.Evaluation{Name: "toxicity-detector", Output: map[string]any{"is_safe": "safe"}, MonitorID: "safety", Verdict: "pass"}
			if i%5 == 0 {
				tox.Output, tox.Verdict = map[string]any{"is_safe": "unsafe"}, "fail"
			}
			spans[j].Evaluations = []warehouse.Evaluation{tox,
				{Name: "pii-detector", Output: map[string]any{"has_pii": false}, MonitorID: "safety", Verdict: "pass"}}
		}
		return st.WriteSpans(ctx, spans)
	})
}
