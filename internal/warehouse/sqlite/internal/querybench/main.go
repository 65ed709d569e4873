// Command querybench fills a SQLite warehouse with synthetic spans (default
// 1 000 000 over 7 days, 50 services, 1 000 span names, 20 attributes
// each), prints ingest speed and file size against the OTLP protobuf size
// of the same spans, then measures the first page (100 spans, with
// total_results) of every query shape: the target shapes every backend
// measures ((a) 1-hour range; (b) 1 % attribute equality sorted by
// duration; (c) span name contains; (d) trace id; (g) an unfiltered week),
// 10 % and 100 % attribute equality, a week sorted by tokens, a workflow
// filter sorted by duration, every sort key over an hour, a day and a
// week, and every filter operator; each with p50, p99 and selectivity.
//
//	go run ./internal/warehouse/sqlite/internal/querybench -spans 1000000 -dir /tmp/w
//	go run ./internal/warehouse/sqlite/internal/querybench -dir /tmp/w -reuse -only 'sort'
//
// With -points it writes that many metric points (evaluator results: a
// score and a pass/fail point per evaluation, 13 labels each) instead of
// measuring the span shapes, then measures the metric query shapes (the
// first page of 100 with total_results, and the page at offset 1 000):
//
//	go run ./internal/warehouse/sqlite/internal/querybench -spans 0 -points 1000000 -dir /tmp/m
//	go run ./internal/warehouse/sqlite/internal/querybench -spans 0 -points 1000000 -dir /tmp/m -reuse
//
// -reuse queries the warehouse a run with the same -dir left; -only runs
// the shapes whose name holds the text. Old build against new build: run
// each build's command on its own directory, back to back.
package main

import (
	"context"
	"encoding/hex"
	"flag"
	"fmt"
	"log"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime/pprof"
	"slices"
	"strings"
	"time"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/evalcol/evalcol/internal/warehouse"
	"github.com/evalcol/evalcol/internal/warehouse/sqlite"
	"github.com/evalcol/evalcol/internal/warehouse/synthspans"
)

func main() {
	n := flag.Int("spans", 1_000_000, "spans to write")
	days := flag.Int("days", 7, "days the spans cover")
	batch := flag.Int("batch", 1000, "spans per WriteSpans call")
	runs := flag.Int("queries", 50, "runs of each query")
	dir := flag.String("dir", "", "directory for the database (default: a temp dir, removed after)")
	cpuProfile := flag.String("cpuprofile", "", "write a CPU profile of the whole run to this file")
	reuse := flag.Bool("reuse", false, "query the warehouse.db a run with the same -dir, -spans and -days left (no fill)")
	only := flag.String("only", "", "run only the query shapes whose name contains this")
	text := flag.Bool("text", false, "give each span a prompt and a completion (chattext's English) and measure the full-text search shapes (q) too (with -reuse: a warehouse filled with -text)")
	points := flag.Int("points", 0, "also write this many metric points (evaluator results) and measure the metric query shapes (with -reuse: measure them)")
	flag.Parse()
	if *cpuProfile != "" {
		f, err := os.Create(*cpuProfile)
		if err != nil {
			log.Fatal(err)
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			log.Fatal(err)
		}
		defer pprof.StopCPUProfile()
	}
	if err := run(context.Background(), *n, *points, *days, *batch, *runs, *dir, *reuse, *only, *text); err != nil {
		log.Print(err)
		pprof.StopCPUProfile()
		os.Exit(1)
	}
}

func run(ctx context.Context, n, points, days, batch, runs int, dir string, reuse bool, only string, text bool) error {
	if dir == "" {
		d, err := os.MkdirTemp("", "evalcol-loadtest-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(d)
		dir = d
	}
	path := filepath.Join(dir, "warehouse.db")
	const env = "production"
	end := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC).UnixMilli()
	start := end - int64(days)*24*3600*1000
	var traces []warehouse.Span // a sample, for query (d)
	if !reuse {
		var err error
		if traces, err = fill(ctx, path, env, n, batch, start, end, text); err != nil {
			return err
		}
	}
	t0 := time.Now()
	st, err := sqlite.Open(ctx, path, sqlite.Options{})
	if err != nil {
		return err
	}
	defer st.Close()
	fmt.Printf("open (with migrations): %s\n", time.Since(t0).Round(time.Millisecond))
	if points > 0 && !reuse {
		if err := fillPoints(ctx, st, env, points, batch, start, end); err != nil {
			return err
		}
	}
	if points > 0 {
		return runMetricQueries(ctx, st, env, runs, only, start, end)
	}
	if reuse {
		if traces, err = sample(ctx, st, env, start, end); err != nil {
			return err
		}
	}
	rng := rand.New(rand.NewPCG(2, 3))
	// The shapes every backend measures, then the other shapes of this
	// one: every sort key, every filter operator.
	queries := append(synthspans.TargetQueries(rng, start, end, traces), moreQueries(rng, start, end)...)
	if text {
		queries = append(queries, synthspans.SearchQueries(rng, start, end)...)
	}
	for _, qd := range queries {
		if !strings.Contains(qd.Name, only) {
			continue
		}
		var lat []time.Duration
		var matched, inRange int64
		for range runs {
			q := qd.Make()
			q.Environments = []string{env}
			t0 := time.Now()
			page, err := st.QuerySpans(ctx, q)
			if err != nil {
				return fmt.Errorf("%s: %w", qd.Name, err)
			}
			lat = append(lat, time.Since(t0))
			all, err := st.QuerySpans(ctx, warehouse.SpanQuery{Environments: q.Environments, FromMs: q.FromMs, ToMs: q.ToMs, Limit: 1})
			if err != nil {
				return err
			}
			matched += page.TotalResults
			inRange += all.TotalResults
		}
		slices.Sort(lat)
		fmt.Printf("%-62s p50 %7.1f ms  p99 %7.1f ms  selectivity %.4f (%d of %d spans in range per query)\n",
			qd.Name, p50(lat), p99(lat), float64(matched)/float64(inRange),
			matched/int64(runs), inRange/int64(runs))
	}
	return nil
}

// moreQueries are the shapes of the SQLite load test beyond the target
// ones: selective and unselective equality filters, a filter on a column
// with another sort key, every sort key over a day and a week, and every
// filter operator.
func moreQueries(rng *rand.Rand, start, end int64) []synthspans.Query {
	day := func() (int64, int64) { return synthspans.Window(rng, start, end, synthspans.Day) }
	out := []synthspans.Query{
		{Name: "(e) 1d range, llm.request.model equals (~10%), sort timestamp", Make: func() warehouse.SpanQuery {
			from, to := day()
			return warehouse.SpanQuery{FromMs: from, ToMs: to,
				Filters: []warehouse.Filter{{Field: "llm.request.model", Operator: warehouse.OpEquals, Value: "gpt-4o"}}}
		}},
		{Name: "(f) 1d range, llm.vendor equals (100%), sort timestamp", Make: func() warehouse.SpanQuery {
			from, to := day()
			return warehouse.SpanQuery{FromMs: from, ToMs: to,
				Filters: []warehouse.Filter{{Field: "llm.vendor", Operator: warehouse.OpEquals, Value: "openai"}}}
		}},
		{Name: "(h) 7d range, sort llm_usage_total_tokens DESC", Make: func() warehouse.SpanQuery {
			return warehouse.SpanQuery{FromMs: start, SortBy: "llm_usage_total_tokens", Desc: true}
		}},
		{Name: "(i) 1d range, workflow equals (10%), sort duration DESC", Make: func() warehouse.SpanQuery {
			from, to := day()
			return warehouse.SpanQuery{FromMs: from, ToMs: to, SortBy: warehouse.SortDuration, Desc: true,
				Filters: []warehouse.Filter{{Field: "workflow_name", Operator: warehouse.OpEquals, Value: fmt.Sprintf("workflow-%d", rng.IntN(10))}}}
		}},
		{Name: "(j) 7d range, workflow equals (10%), sort duration DESC", Make: func() warehouse.SpanQuery {
			return warehouse.SpanQuery{FromMs: start, SortBy: warehouse.SortDuration, Desc: true,
				Filters: []warehouse.Filter{{Field: "workflow_name", Operator: warehouse.OpEquals, Value: fmt.Sprintf("workflow-%d", rng.IntN(10))}}}
		}},
		{Name: "(k) 7d range, user.id equals (~1%), sort timestamp DESC", Make: func() warehouse.SpanQuery {
			return warehouse.SpanQuery{FromMs: start, Desc: true,
				Filters: []warehouse.Filter{{Field: "user.id", Operator: warehouse.OpEquals, Value: synthspans.UserID(rng.IntN(synthspans.Users))}}}
		}},
	}
	for _, key := range []warehouse.SortKey{warehouse.SortDuration, warehouse.SortSpanName, warehouse.SortTraceID,
		warehouse.SortTotalTokens, warehouse.SortWorkflowName, warehouse.SortEntityName, warehouse.SortResponseModel} {
		out = append(out,
			synthspans.Query{Name: fmt.Sprintf("sort %s DESC, 1h range", key), Make: func() warehouse.SpanQuery {
				from, to := synthspans.Window(rng, start, end, synthspans.Hour)
				return warehouse.SpanQuery{FromMs: from, ToMs: to, SortBy: key, Desc: true}
			}},
			synthspans.Query{Name: fmt.Sprintf("sort %s, 1d range", key), Make: func() warehouse.SpanQuery {
				from, to := day()
				return warehouse.SpanQuery{FromMs: from, ToMs: to, SortBy: key}
			}},
			synthspans.Query{Name: fmt.Sprintf("sort %s DESC, 7d range", key), Make: func() warehouse.SpanQuery {
				return warehouse.SpanQuery{FromMs: start, SortBy: key, Desc: true}
			}})
	}
	for _, f := range []warehouse.Filter{
		{Field: "llm.request.model", Operator: warehouse.OpNotEquals, Value: "gpt-4o"},
		{Field: "llm.usage.total_tokens", Operator: warehouse.OpGreaterThan, Value: "2900", ValueType: warehouse.TypeNumber},
		{Field: "duration_ms", Operator: warehouse.OpLessThanOrEqual, Value: "300"},
		{Field: "user.id", Operator: warehouse.OpStartsWith, Value: "user-04"},
		{Field: "llm.request.model", Operator: warehouse.OpIn, Values: []string{"gpt-4o", "o3-mini"}},
		{Field: "llm.request.model", Operator: warehouse.OpNotIn, Values: []string{"gpt-4o", "o3-mini"}},
		{Field: "session.id", Operator: warehouse.OpContains, Value: "abc"},
		{Field: "llm.top_p", Operator: warehouse.OpExists},
		{Field: "llm.user", Operator: warehouse.OpNotExists},
		{Field: "workflow_name", Operator: warehouse.OpIn, Values: []string{"workflow-1", "workflow-2"}},
		{Field: "resource.service.name", Operator: warehouse.OpEquals, Value: "service-7"},
	} {
		out = append(out, synthspans.Query{Name: fmt.Sprintf("1d range, %s %s", f.Field, f.Operator), Make: func() warehouse.SpanQuery {
			from, to := day()
			return warehouse.SpanQuery{FromMs: from, ToMs: to, Filters: []warehouse.Filter{f}}
		}})
	}
	return out
}

// fill writes n spans over [start, end) in batches and prints the ingest
// speed and the file size; it returns one span of each batch.
func fill(ctx context.Context, path, env string, n, batch int, start, end int64, text bool) ([]warehouse.Span, error) {
	st, err := sqlite.Open(ctx, path, sqlite.Options{})
	if err != nil {
		return nil, err
	}
	g := synthspans.New(env, 1)
	if text {
		g.WithText(1)
	}
	var writeTime, writeCPU time.Duration
	var traces []warehouse.Span
	var protoBytes int64
	for i := 0; i < n; i += batch {
		k := min(batch, n-i)
		from := start + (end-start)*int64(i)/int64(n)
		to := start + (end-start)*int64(i+k)/int64(n)
		spans := g.Batch(k, from, to)
		traces = append(traces, spans[0])
		protoBytes += otlpSize(spans)
		t0, c0 := time.Now(), synthspans.CPUTime()
		if err := st.WriteSpans(ctx, spans); err != nil {
			return nil, err
		}
		writeTime += time.Since(t0)
		writeCPU += synthspans.CPUTime() - c0
		if (i/batch)%100 == 0 {
			log.Printf("written %d spans, %.0f spans/s", i+k, float64(i+k)/writeTime.Seconds())
		}
	}
	if err := st.Close(); err != nil {
		return nil, err
	}
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	fmt.Printf("ingest: %d spans in %s = %.0f spans/s (batches of %d, %d attributes each); CPU %s = %.0f spans per CPU-second\n",
		n, writeTime.Round(time.Millisecond), float64(n)/writeTime.Seconds(), batch, synthspans.Attributes,
		writeCPU.Round(time.Millisecond), float64(n)/writeCPU.Seconds())
	fmt.Printf("size: file %.1f MiB, OTLP protobuf %.1f MiB, ratio %.2f\n",
		float64(fi.Size())/(1<<20), float64(protoBytes)/(1<<20), float64(fi.Size())/float64(protoBytes))
	return traces, nil
}

// sample returns spans of a stored warehouse, for the trace id queries:
// the first span of each of 500 hours-long windows.
func sample(ctx context.Context, st *sqlite.Store, env string, start, end int64) ([]warehouse.Span, error) {
	rng := rand.New(rand.NewPCG(7, 8))
	var out []warehouse.Span
	for range 500 {
		from, to := synthspans.Window(rng, start, end, synthspans.Hour)
		page, err := st.QuerySpans(ctx, warehouse.SpanQuery{Environments: []string{env}, FromMs: from, ToMs: to, Limit: 1})
		if err != nil {
			return nil, err
		}
		out = append(out, page.Spans...)
	}
	return out, nil
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// p50 and p99 are percentiles of sorted latencies, in ms.
func p50(sorted []time.Duration) float64 { return ms(sorted[len(sorted)/2]) }
func p99(sorted []time.Duration) float64 { return ms(sorted[(len(sorted)*99-1)/100]) }

// otlpSize is the OTLP protobuf size of spans exported as one request,
// grouped by service as SDK exporters do.
func otlpSize(spans []warehouse.Span) int64 {
	td := ptrace.NewTraces()
	bySvc := map[string]ptrace.SpanSlice{}
	for _, sp := range spans {
		ss, ok := bySvc[sp.ServiceName]
		if !ok {
			rs := td.ResourceSpans().AppendEmpty()
			for k, v := range sp.ResourceAttributes {
				rs.Resource().Attributes().PutStr(k, v)
			}
			sc := rs.ScopeSpans().AppendEmpty()
			sc.Scope().SetName(sp.ScopeName)
			sc.Scope().SetVersion(sp.ScopeVersion)
			ss = sc.Spans()
			bySvc[sp.ServiceName] = ss
		}
		s := ss.AppendEmpty()
		var tid pcommon.TraceID
		var sid, pid pcommon.SpanID
		hex.Decode(tid[:], []byte(sp.TraceID))
		hex.Decode(sid[:], []byte(sp.SpanID))
		hex.Decode(pid[:], []byte(sp.ParentSpanID))
		s.SetTraceID(tid)
		s.SetSpanID(sid)
		s.SetParentSpanID(pid)
		s.SetName(sp.SpanName)
		s.SetKind(ptrace.SpanKindClient)
		s.SetStartTimestamp(pcommon.Timestamp(sp.Timestamp * 1e6))
		s.SetEndTimestamp(pcommon.Timestamp((sp.Timestamp + sp.Duration) * 1e6))
		for k, v := range sp.SpanAttributes {
			s.Attributes().PutStr(k, v)
		}
	}
	var m ptrace.ProtoMarshaler
	return int64(m.TracesSize(td))
}
