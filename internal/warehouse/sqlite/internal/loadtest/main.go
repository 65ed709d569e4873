// Command loadtest fills a SQLite warehouse with synthetic spans (default
// 1 000 000 over 7 days, 50 services, 1 000 span names, 20 attributes
// each), then measures the latency of three span queries:
//
//	(a) a 1-hour range sorted by timestamp
//	(b) a 1-day range, an attribute equality matching ~1%, sorted by duration DESC
//	(c) a 1-day range, contains on the span name
//
// (plus (d)–(g): trace id lookup, 10% and 100% attribute equality, an
// unfiltered 7-day range) and prints ingest speed, file size against the
// OTLP protobuf size of the same spans, and each query's p50/p99 and
// selectivity. Run:
//
//	go run ./internal/warehouse/sqlite/internal/loadtest -spans 1000000
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
	"time"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/evalcol/evalcol/internal/warehouse"
	"github.com/evalcol/evalcol/internal/warehouse/spangen"
	"github.com/evalcol/evalcol/internal/warehouse/sqlite"
)

func main() {
	n := flag.Int("spans", 1_000_000, "spans to write")
	days := flag.Int("days", 7, "days the spans cover")
	batch := flag.Int("batch", 1000, "spans per WriteSpans call")
	runs := flag.Int("queries", 50, "runs of each query")
	dir := flag.String("dir", "", "directory for the database (default: a temp dir, removed after)")
	cpuProfile := flag.String("cpuprofile", "", "write a CPU profile of the whole run to this file")
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
	if err := run(context.Background(), *n, *days, *batch, *runs, *dir); err != nil {
		log.Print(err)
		pprof.StopCPUProfile()
		os.Exit(1)
	}
}

func run(ctx context.Context, n, days, batch, runs int, dir string) error {
	if dir == "" {
		d, err := os.MkdirTemp("", "evalcol-loadtest-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(d)
		dir = d
	}
	path := filepath.Join(dir, "warehouse.db")
	st, err := sqlite.Open(ctx, path, sqlite.Options{})
	if err != nil {
		return err
	}
	const env = "production"
	end := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC).UnixMilli()
	start := end - int64(days)*24*3600*1000
	g := spangen.New(env, 1)
	var writeTime, writeCPU time.Duration
	var traces []warehouse.Span // a sample, for query (d)
	var protoBytes int64
	for i := 0; i < n; i += batch {
		k := min(batch, n-i)
		from := start + (end-start)*int64(i)/int64(n)
		to := start + (end-start)*int64(i+k)/int64(n)
		spans := g.Batch(k, from, to)
		traces = append(traces, spans[0])
		protoBytes += otlpSize(spans)
		t0, c0 := time.Now(), spangen.CPUTime()
		if err := st.WriteSpans(ctx, spans); err != nil {
			return err
		}
		writeTime += time.Since(t0)
		writeCPU += spangen.CPUTime() - c0
		if (i/batch)%100 == 0 {
			log.Printf("written %d spans, %.0f spans/s", i+k, float64(i+k)/writeTime.Seconds())
		}
	}
	if err := st.Close(); err != nil {
		return err
	}
	fi, err := os.Stat(path)
	if err != nil {
		return err
	}
	fmt.Printf("ingest: %d spans in %s = %.0f spans/s (batches of %d, %d attributes each); CPU %s = %.0f spans per CPU-second\n",
		n, writeTime.Round(time.Millisecond), float64(n)/writeTime.Seconds(), batch, spangen.Attributes,
		writeCPU.Round(time.Millisecond), float64(n)/writeCPU.Seconds())
	fmt.Printf("size: file %.1f MiB, OTLP protobuf %.1f MiB, ratio %.2f\n",
		float64(fi.Size())/(1<<20), float64(protoBytes)/(1<<20), float64(fi.Size())/float64(protoBytes))

	st, err = sqlite.Open(ctx, path, sqlite.Options{})
	if err != nil {
		return err
	}
	defer st.Close()
	rng := rand.New(rand.NewPCG(2, 3))
	// The shapes every backend measures, then two more of this one.
	queries := append(spangen.TargetQueries(rng, start, end, traces),
		spangen.Query{Name: "(e) 1d range, llm.request.model equals (~10%), sort timestamp", Make: func() warehouse.SpanQuery {
			from, to := spangen.Window(rng, start, end, spangen.Day)
			return warehouse.SpanQuery{FromMs: from, ToMs: to,
				Filters: []warehouse.Filter{{Field: "llm.request.model", Operator: warehouse.OpEquals, Value: "gpt-4o"}}}
		}},
		spangen.Query{Name: "(f) 1d range, llm.vendor equals (100%, scan), sort timestamp", Make: func() warehouse.SpanQuery {
			from, to := spangen.Window(rng, start, end, spangen.Day)
			return warehouse.SpanQuery{FromMs: from, ToMs: to,
				Filters: []warehouse.Filter{{Field: "llm.vendor", Operator: warehouse.OpEquals, Value: "openai"}}}
		}})
	for _, qd := range queries {
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
		fmt.Printf("%-58s p50 %7.1f ms  p99 %7.1f ms  selectivity %.4f (%d of %d spans in range per query)\n",
			qd.Name, ms(lat[len(lat)/2]), ms(lat[(len(lat)*99-1)/100]), float64(matched)/float64(inRange),
			matched/int64(runs), inRange/int64(runs))
	}
	return nil
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

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
