package clickhouse

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/evalcol/evalcol/internal/warehouse"
	"github.com/evalcol/evalcol/internal/warehouse/sqlite"
	"github.com/evalcol/evalcol/internal/warehouse/synthspans"
)

// benchBackends opens each backend for a benchmark; SQLite runs beside
// ClickHouse so that README.md can give ratios measured in the same run.
func benchBackends(b *testing.B) []struct {
	name string
	open func(b *testing.B) warehouse.Store
} {
	addr := serverAddr(b)
	return []struct {
		name string
		open func(b *testing.B) warehouse.Store
	}{
		{"clickhouse", func(b *testing.B) warehouse.Store { return openTestStore(b, addr) }},
		{"sqlite", func(b *testing.B) warehouse.Store {
			st, err := sqlite.Open(context.Background(), filepath.Join(b.TempDir(), "bench.db"), sqlite.Options{})
			if err != nil {
				b.Fatal(err)
			}
			return st
		}},
	}
}

// BenchmarkWriteSpans writes batches of 1 000 spans with 20 attributes
// each; spans/s is the ingest rate (spans/cpu-s: per CPU-second of this
// process, which for ClickHouse excludes the server's own work).
func BenchmarkWriteSpans(b *testing.B) {
	for _, be := range benchBackends(b) {
		b.Run(be.name, func(b *testing.B) {
			ctx := context.Background()
			st := be.open(b)
			defer st.Close()
			synthspans.BenchmarkWrites(b, func(spans []warehouse.Span) error { return st.WriteSpans(ctx, spans) })
		})
	}
}

// BenchmarkWriteSpansReport is BenchmarkWriteSpans through
// WriteSpansReport (what the exporter calls): the write and the read of
// the stored copies' content hashes that tells conflicting duplicates.
func BenchmarkWriteSpansReport(b *testing.B) {
	ctx := context.Background()
	st := openTestStore(b, serverAddr(b))
	defer st.Close()
	synthspans.BenchmarkWrites(b, func(spans []warehouse.Span) error {
		_, err := st.WriteSpansReport(ctx, spans)
		return err
	})
}

// BenchmarkWriteTraceRanges is the trace index's share of WriteSpans:
// the span_traces insert alone for batches of 1 000 spans (one trace
// each, as synthspans makes them), to compare with BenchmarkWriteSpans.
func BenchmarkWriteTraceRanges(b *testing.B) {
	ctx := context.Background()
	st := openTestStore(b, serverAddr(b))
	defer st.Close()
	synthspans.BenchmarkWrites(b, func(spans []warehouse.Span) error { return st.writeTraceRanges(ctx, spans) })
}

// BenchmarkQuerySpans runs the three target query shapes (README.md) on
// 100 000 spans over 7 days, first page of 100 with total_results.
func BenchmarkQuerySpans(b *testing.B) {
	const n, batch = 100_000, 1000
	const day = int64(24 * 3600 * 1000)
	start := int64(1_790_000_000_000)
	end := start + 7*day
	mid := start + 3*day
	queries := []struct {
		name string
		q    warehouse.SpanQuery
	}{
		{"a_1h_sort_timestamp", warehouse.SpanQuery{FromMs: mid, ToMs: mid + day/24 - 1}},
		{"b_1d_attr_equals_1pct_sort_duration_desc", warehouse.SpanQuery{FromMs: mid, ToMs: mid + day - 1,
			SortBy: warehouse.SortDuration, Desc: true,
			Filters: []warehouse.Filter{{Field: "user.id", Operator: warehouse.OpEquals, Value: synthspans.UserID(7)}}}},
		{"c_1d_span_name_contains", warehouse.SpanQuery{FromMs: mid, ToMs: mid + day - 1,
			Filters: []warehouse.Filter{{Field: "span_name", Operator: warehouse.OpContains, Value: "operation.07"}}}},
	}
	for _, be := range benchBackends(b) {
		b.Run(be.name, func(b *testing.B) {
			ctx := context.Background()
			st := be.open(b)
			defer st.Close()
			g := synthspans.New("bench", 1)
			for i := 0; i < n; i += batch {
				from, to := start+(end-start)*int64(i)/n, start+(end-start)*int64(i+batch)/n
				if err := st.WriteSpans(ctx, g.Batch(batch, from, to)); err != nil {
					b.Fatal(err)
				}
			}
			for _, bc := range queries {
				b.Run(bc.name, func(b *testing.B) {
					q := bc.q
					q.Environments = []string{"bench"}
					b.ReportAllocs()
					for b.Loop() {
						if _, err := st.QuerySpans(ctx, q); err != nil {
							b.Fatal(err)
						}
					}
				})
			}
		})
	}
}
