package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/evalcol/evalcol/internal/warehouse"
	"github.com/evalcol/evalcol/internal/warehouse/synthspans"
)

// BenchmarkWriteSpans writes batches of 1 000 spans with 20 attributes
// each; spans/s is the ingest rate.
func BenchmarkWriteSpans(b *testing.B) {
	ctx := context.Background()
	st, err := Open(ctx, filepath.Join(b.TempDir(), "bench.db"), Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	synthspans.BenchmarkWrites(b, func(spans []warehouse.Span) error { return st.WriteSpans(ctx, spans) })
}

// BenchmarkWriteSpansOfTraces is BenchmarkWriteSpans with the spans of a
// batch in traces of 4 (BenchmarkWriteSpans: each span its own trace),
// the shape of an LLM app's trace (a workflow, its tasks and calls): what
// the per-trace stats cost in each case.
func BenchmarkWriteSpansOfTraces(b *testing.B) {
	ctx := context.Background()
	st, err := Open(ctx, filepath.Join(b.TempDir(), "bench.db"), Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	synthspans.BenchmarkWrites(b, func(spans []warehouse.Span) error {
		for i := range spans {
			spans[i].TraceID = spans[i-i%4].TraceID
		}
		return st.WriteSpans(ctx, spans)
	})
}

// BenchmarkWriteSpansWhilePruning measures what the retention job costs
// ingest: the same writes as BenchmarkWriteSpans into a store that holds
// 200 000 expired spans (3 years old), without a retention (none) and
// with the background job deleting them meanwhile (pruning, run every
// 10 ms, so it deletes throughout the measurement). Compare spans/s of
// the two in one run; pruned-spans/s shows the job was busy.
func BenchmarkWriteSpansWhilePruning(b *testing.B) {
	const expired, batch = 200_000, 1000
	old := int64(1_700_000_000_000) // 2023-11; the written spans are from 2026-09 on
	for _, bc := range []struct {
		name      string
		retention warehouse.Retention
	}{
		{"none", warehouse.Retention{}},
		{"pruning", warehouse.Retention{Spans: 1000 * 24 * time.Hour, Interval: 10 * time.Millisecond, Grace: -1}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			ctx := context.Background()
			// The fill runs without the job; the measured store opens the
			// same file with it.
			path := filepath.Join(b.TempDir(), "bench.db")
			fill, err := Open(ctx, path, Options{})
			if err != nil {
				b.Fatal(err)
			}
			g := synthspans.New("bench", 2)
			for i := 0; i < expired; i += batch {
				if err := fill.WriteSpans(ctx, g.Batch(batch, old+int64(i)*60, old+int64(i+batch)*60)); err != nil {
					b.Fatal(err)
				}
			}
			fill.Close()
			st, err := Open(ctx, path, Options{Retention: bc.retention, OnPruneError: func(err error) { b.Error(err) }})
			if err != nil {
				b.Fatal(err)
			}
			defer st.Close()
			synthspans.BenchmarkWrites(b, func(spans []warehouse.Span) error { return st.WriteSpans(ctx, spans) })
			var left int64
			if err := st.reader.QueryRowContext(ctx, `SELECT count(*) FROM spans WHERE timestamp < ?`, old+expired*60).Scan(&left); err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(float64(expired-left)/b.Elapsed().Seconds(), "pruned-spans/s")
		})
	}
}

// BenchmarkPruneIdle measures the pruning job's speed on a store nobody
// writes to (it deletes at full speed then): one Prune of 100 000 expired
// spans with 20 attributes each.
func BenchmarkPruneIdle(b *testing.B) {
	const expired, batch = 100_000, 1000
	old := int64(1_700_000_000_000)
	ctx := context.Background()
	runs := 0
	for b.Loop() {
		runs++
		b.StopTimer()
		st, err := Open(ctx, filepath.Join(b.TempDir(), "bench.db"), Options{
			Retention: warehouse.Retention{Spans: 24 * time.Hour, Interval: time.Hour, Grace: -1}})
		if err != nil {
			b.Fatal(err)
		}
		g := synthspans.New("bench", 3)
		for i := 0; i < expired; i += batch {
			if err := st.WriteSpans(ctx, g.Batch(batch, old+int64(i)*60, old+int64(i+batch)*60)); err != nil {
				b.Fatal(err)
			}
		}
		st.lastWrite.Store(0) // the fill is over: the writer is idle
		b.StartTimer()
		got, err := st.Prune(ctx)
		b.StopTimer()
		if err != nil || got.Spans != expired {
			b.Fatalf("Prune: %+v, %v; want %d spans", got, err, expired)
		}
		st.Close()
		b.StartTimer()
	}
	b.ReportMetric(float64(expired*runs)/b.Elapsed().Seconds(), "pruned-spans/s")
}

// BenchmarkQuerySpans runs the three target query shapes of the load test
// (../README.md) on 100 000 spans over 7 days (the load test uses 1 000 000).
func BenchmarkQuerySpans(b *testing.B) {
	ctx := context.Background()
	st, err := Open(ctx, filepath.Join(b.TempDir(), "bench.db"), Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	const n, batch = 100_000, 1000
	const day = int64(24 * 3600 * 1000)
	start := int64(1_790_000_000_000)
	end := start + 7*day
	g := synthspans.New("bench", 1)
	for i := 0; i < n; i += batch {
		from, to := start+(end-start)*int64(i)/n, start+(end-start)*int64(i+batch)/n
		if err := st.WriteSpans(ctx, g.Batch(batch, from, to)); err != nil {
			b.Fatal(err)
		}
	}
	mid := start + 3*day
	for _, bc := range []struct {
		name string
		q    warehouse.SpanQuery
	}{
		{"1h_sort_timestamp", warehouse.SpanQuery{FromMs: mid, ToMs: mid + day/24 - 1}},
		{"1d_attr_equals_1pct_sort_duration_desc", warehouse.SpanQuery{FromMs: mid, ToMs: mid + day - 1,
			SortBy: warehouse.SortDuration, Desc: true,
			Filters: []warehouse.Filter{{Field: "user.id", Operator: warehouse.OpEquals, Value: synthspans.UserID(7)}}}},
		{"1d_span_name_contains", warehouse.SpanQuery{FromMs: mid, ToMs: mid + day - 1,
			Filters: []warehouse.Filter{{Field: "span_name", Operator: warehouse.OpContains, Value: "operation.07"}}}},
		// Pages SQLite sorts itself (read by sequence number since the
		// byte bound of pages).
		{"1h_sort_span_name", warehouse.SpanQuery{FromMs: mid, ToMs: mid + day/24 - 1, SortBy: warehouse.SortSpanName}},
		{"1d_attr_equals_1pct", warehouse.SpanQuery{FromMs: mid, ToMs: mid + day - 1,
			Filters: []warehouse.Filter{{Field: "user.id", Operator: warehouse.OpEquals, Value: synthspans.UserID(7)}}}},
	} {
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
}

// BenchmarkWriteMetricPoints writes the points of 100 evaluated spans per
// call (8 points each, as five evaluators give, with the exporter's 12
// labels and 10 span attributes); points/s is the ingest rate.
func BenchmarkWriteMetricPoints(b *testing.B) {
	ctx := context.Background()
	st, err := Open(ctx, filepath.Join(b.TempDir(), "bench.db"), Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	const spans, perSpan = 100, 8
	ts := int64(1_790_000_000_000)
	b.ReportAllocs()
	n := 0
	cpu0 := synthspans.CPUTime()
	for b.Loop() {
		b.StopTimer()
		pts := benchPoints(n, spans, perSpan, ts)
		b.StartTimer()
		if err := st.WriteMetricPoints(ctx, pts); err != nil {
			b.Fatal(err)
		}
		n += len(pts)
		ts += 1000
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "points/s")
	// CPU time includes making the points, so this is a lower bound.
	b.ReportMetric(float64(n)/(synthspans.CPUTime()-cpu0).Seconds(), "points/cpu-s")
}

// benchPoints makes the metric points of spans evaluated spans.
func benchPoints(seed, spans, perSpan int, ts int64) []warehouse.MetricPoint {
	pts := make([]warehouse.MetricPoint, 0, spans*perSpan)
	for s := range spans {
		traceID := fmt.Sprintf("%032x", seed+s)
		spanID := fmt.Sprintf("%016x", seed+s)
		attrs := map[string]string{}
		for a := range 10 {
			attrs[fmt.Sprintf("app.attribute.%d", a)] = fmt.Sprintf("value-%d-%d", a, s%17)
		}
		for p := range perSpan {
			v := float64(p) / 10
			pts = append(pts, warehouse.MetricPoint{
				Environment: "production", OrganizationID: "org", MetricName: fmt.Sprintf("evaluator-%d.score", p),
				Source: warehouse.SourceEvaluator, EventTime: ts + int64(s), NumericValue: &v,
				TraceID: traceID, SpanID: spanID,
				Labels: map[string]string{
					"evaluator_name": fmt.Sprintf("evaluator-%d", p), "metric_source": "evaluator", "monitor_id": "load",
					"trace_id": traceID, "span_id": spanID, "service_name": "chat-service", "environment": "production",
					"workflow": "support", "agent_name": "helper", "entity_name": "answer", "model": "gpt-4o-mini", "vendor": "openai",
				},
				Attributes: attrs,
			})
		}
	}
	return pts
}

// BenchmarkIntegrityCheck measures what Open's integrity check costs on a
// large file: PRAGMA quick_check (what Open runs) and, for comparison,
// PRAGMA integrity_check. It runs only with EVALCOL_INTEGRITY_DB set to a
// warehouse file; a missing file is first filled with synthetic spans up
// to EVALCOL_INTEGRITY_MIB (default 1024) MiB:
//
//	EVALCOL_INTEGRITY_DB=/tmp/1g.db go test -run '^$' -bench IntegrityCheck -benchtime 3x ./internal/warehouse/sqlite/
func BenchmarkIntegrityCheck(b *testing.B) {
	path := os.Getenv("EVALCOL_INTEGRITY_DB")
	if path == "" {
		b.Skip("set EVALCOL_INTEGRITY_DB to a warehouse file (created when missing)")
	}
	ctx := context.Background()
	if _, err := os.Stat(path); os.IsNotExist(err) {
		mib := 1024
		if s := os.Getenv("EVALCOL_INTEGRITY_MIB"); s != "" {
			if mib, err = strconv.Atoi(s); err != nil {
				b.Fatal(err)
			}
		}
		st, err := Open(ctx, path, Options{})
		if err != nil {
			b.Fatal(err)
		}
		g := synthspans.New("bench", 1)
		for i := int64(0); ; i++ {
			if err := st.WriteSpans(ctx, g.Batch(1000, i*60_000, (i+1)*60_000)); err != nil {
				b.Fatal(err)
			}
			if info, err := os.Stat(path); err == nil && i%100 == 0 && info.Size() >= int64(mib)<<20 {
				break
			}
		}
		if err := st.Close(); err != nil {
			b.Fatal(err)
		}
	}
	info, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	b.Logf("%s: %d MiB", path, info.Size()>>20)
	for _, pragma := range []string{"quick_check", "integrity_check"} {
		b.Run(pragma, func(b *testing.B) {
			cpu := synthspans.CPUTime()
			for b.Loop() {
				db, err := sql.Open("sqlite", "file:"+path+"?_pragma=query_only(1)")
				if err != nil {
					b.Fatal(err)
				}
				var res string
				if err := db.QueryRowContext(ctx, "PRAGMA "+pragma+"(1)").Scan(&res); err != nil || res != "ok" {
					b.Fatalf("PRAGMA %s = %q, %v", pragma, res, err)
				}
				db.Close()
			}
			gib := float64(info.Size()) / (1 << 30)
			b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N)/gib, "ms/GiB")
			b.ReportMetric(float64((synthspans.CPUTime()-cpu).Milliseconds())/float64(b.N)/gib, "cpu-ms/GiB")
		})
	}
}

// BenchmarkQueryMetrics reads pages of 50 and 1 000 points over 100 000
// evaluation points (about an hour): newest first (the time index's
// order), by value (SQLite's own sort) on the first page and deep in the
// pagination, and filtered by a label.
func BenchmarkQueryMetrics(b *testing.B) {
	ctx := context.Background()
	st, err := Open(ctx, filepath.Join(b.TempDir(), "bench.db"), Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	const spans, perSpan = 100, 8
	ts := int64(1_790_000_000_000)
	for n := 0; n < 100_000; n += spans * perSpan {
		if err := st.WriteMetricPoints(ctx, benchPoints(n, spans, perSpan, ts)); err != nil {
			b.Fatal(err)
		}
		ts += 30_000
	}
	from := int64(1_790_000_000_000)
	for _, bc := range []struct {
		name   string
		q      warehouse.MetricQuery
		offset int64 // pages to skip, by cursor
	}{
		{"newest_50", warehouse.MetricQuery{Limit: 50}, 0},
		{"newest_1000", warehouse.MetricQuery{Limit: 1000}, 0},
		{"by_value_50", warehouse.MetricQuery{Limit: 50, SortBy: warehouse.MetricSortNumericValue}, 0},
		{"by_value_50_page_100", warehouse.MetricQuery{Limit: 50, SortBy: warehouse.MetricSortNumericValue}, 100},
		{"label_equals_50", warehouse.MetricQuery{Limit: 50, Filters: []warehouse.Filter{{Field: "labels.evaluator_name",
			Operator: warehouse.OpEquals, Value: "evaluator-3"}}}, 0},
	} {
		b.Run(bc.name, func(b *testing.B) {
			q := bc.q
			q.Environments, q.FromMs = []string{"production"}, from
			for range bc.offset {
				page, err := st.QueryMetrics(ctx, q)
				if err != nil || page.NextCursor == "" {
					b.Fatalf("paging to page %d: %v", bc.offset, err)
				}
				if q.Cursor, err = strconv.ParseInt(page.NextCursor, 10, 64); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := st.QueryMetrics(ctx, q); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
