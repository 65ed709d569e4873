// Command querybench fills a ClickHouse warehouse (and, for comparison, a
// SQLite one with the same spans) with synthetic spans — 50 services,
// 1 000 span names, 20 attributes each, spread over some days — then
// measures the latency of the span queries of the SQLite load test:
//
//	(a) a 1-hour range sorted by timestamp
//	(b) a 1-day range, an attribute equality matching ~1%, sorted by duration DESC
//	(c) a 1-day range, contains on the span name
//
// plus (d) a trace id lookup and (g) an unfiltered 7-day range, and —
// over -points synthetic metric points (20 metric names, a "model" label
// of 10 values) — the metric queries of POST /v2/metrics:
//
//	(m1) a 1-day range, sorted by event_time DESC
//	(m2) a 1-day range, metric_name equals, event_time DESC
//	(m3) as (m2) plus a label equality (model, ~10%)
//
// It prints the ingest rate (wall and CPU time, the ClickHouse server's
// CPU time too when -server-pid is given) and each query's p50/p99, twice:
// "fresh", right after the ingest (ClickHouse still merging parts), and
// "settled", after OPTIMIZE TABLE ... FINAL merged every partition (the
// state a table reaches some time after writes stop). Run against a
// server started by scripts/clickhouse.sh:
//
//	go run ./internal/warehouse/clickhouse/internal/querybench -addr 127.0.0.1:19000 -spans 1000000
//
// The database (default evalcol_loadtest) is dropped before and (unless
// -keep) after.
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	ch "github.com/ClickHouse/clickhouse-go/v2"

	"github.com/evalcol/evalcol/internal/warehouse"
	"github.com/evalcol/evalcol/internal/warehouse/clickhouse"
	"github.com/evalcol/evalcol/internal/warehouse/sqlite"
	"github.com/evalcol/evalcol/internal/warehouse/synthspans"
)

type config struct {
	addr, database     string
	spans, days, batch int
	points             int
	writers, runs      int
	serverPID          int
	withSQLite, settle bool
	keep, text         bool
}

func main() {
	var c config
	flag.StringVar(&c.addr, "addr", os.Getenv("EVALCOL_CLICKHOUSE_ADDR"), "ClickHouse native address")
	flag.StringVar(&c.database, "database", "evalcol_loadtest", "database to fill (dropped before and after)")
	flag.IntVar(&c.spans, "spans", 1_000_000, "spans to write")
	flag.IntVar(&c.days, "days", 7, "days the spans cover")
	flag.IntVar(&c.points, "points", 1_000_000, "metric points to write (over the same days)")
	flag.BoolVar(&c.keep, "keep", false, "keep the database after the run (to look at it; it is still dropped before a run)")
	flag.BoolVar(&c.settle, "settle", true, "after the fresh queries, merge every table (OPTIMIZE ... FINAL) and query again")
	flag.IntVar(&c.batch, "batch", 1000, "spans per WriteSpans call")
	flag.IntVar(&c.writers, "writers", 1, "concurrent WriteSpans callers")
	flag.IntVar(&c.runs, "queries", 50, "runs of each query")
	flag.IntVar(&c.serverPID, "server-pid", 0, "pid of the ClickHouse server, to report its CPU time")
	flag.BoolVar(&c.text, "text", false, "give each span a prompt and a completion (chattext's English) and measure the full-text search shapes (q) too")
	flag.BoolVar(&c.withSQLite, "sqlite", true, "run the same load on the SQLite backend for comparison")
	flag.Parse()
	if c.addr == "" {
		log.Fatal("no -addr and EVALCOL_CLICKHOUSE_ADDR unset")
	}
	if err := run(context.Background(), c); err != nil {
		log.Fatal(err)
	}
}

func run(ctx context.Context, c config) error {
	const env = "production"
	end := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC).UnixMilli()
	start := end - int64(c.days)*24*3600*1000
	// The spans, generated once so that both backends get the same data
	// and generation stays out of the timings.
	g := synthspans.New(env, 1)
	if c.text {
		g.WithText(1)
	}
	var batches [][]warehouse.Span
	for i := 0; i < c.spans; i += c.batch {
		k := min(c.batch, c.spans-i)
		from := start + (end-start)*int64(i)/int64(c.spans)
		to := start + (end-start)*int64(i+k)/int64(c.spans)
		batches = append(batches, g.Batch(k, from, to))
	}
	log.Printf("generated %d spans", c.spans)

	chStore, err := openClickHouse(ctx, c)
	if err != nil {
		return err
	}
	if !c.keep {
		defer dropDatabase(ctx, c)
	}
	defer chStore.Close()
	stores := []struct {
		name string
		st   warehouse.Store
		pid  int
	}{{"clickhouse", chStore, c.serverPID}}
	if c.withSQLite {
		dir, err := os.MkdirTemp("", "evalcol-loadtest-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		sq, err := sqlite.Open(ctx, filepath.Join(dir, "warehouse.db"), sqlite.Options{})
		if err != nil {
			return err
		}
		defer sq.Close()
		stores = append(stores, struct {
			name string
			st   warehouse.Store
			pid  int
		}{"sqlite", sq, 0})
	}
	for _, s := range stores {
		if err := ingest(ctx, s.name, s.st, batches, c.writers, s.pid); err != nil {
			return err
		}
	}
	pointBatches := metricBatches(env, c, start, end)
	for _, s := range stores {
		if err := ingestPoints(ctx, s.name, s.st, pointBatches); err != nil {
			return err
		}
	}
	var sample []warehouse.Span
	for _, b := range batches {
		sample = append(sample, b[0])
	}
	ws := workload{env: env, start: start, end: end, sample: sample, runs: c.runs, text: c.text}
	for _, s := range stores {
		ws.stores = append(ws.stores, namedStore{s.name, s.st})
	}
	printParts(ctx, c, "fresh")
	if err := ws.run(ctx, "fresh"); err != nil {
		return err
	}
	if !c.settle {
		return nil
	}
	if err := optimize(ctx, c); err != nil {
		return err
	}
	printParts(ctx, c, "settled")
	return ws.run(ctx, "settled")
}

type namedStore struct {
	name string
	st   warehouse.Store
}

// workload is the query mix, run the same way (same random windows) on
// every store.
type workload struct {
	env        string
	start, end int64
	sample     []warehouse.Span
	runs       int
	text       bool
	stores     []namedStore
}

func (ws workload) run(ctx context.Context, phase string) error {
	rng := rand.New(rand.NewPCG(2, 3))
	start, end, sample := ws.start, ws.end, ws.sample
	window := func(width int64) (int64, int64) { return synthspans.Window(rng, start, end, width) }
	day := synthspans.Day
	queries := synthspans.TargetQueries(rng, start, end, sample)
	if ws.text {
		queries = append(queries, synthspans.SearchQueries(rng, start, end)...)
	}
	metricQueries := []struct {
		name string
		make func() warehouse.MetricQuery
	}{
		{"(m1) 1d range, sort event_time DESC", func() warehouse.MetricQuery {
			from, to := window(day)
			return warehouse.MetricQuery{FromMs: from, ToMs: to, SortBy: warehouse.MetricSortEventTime, Desc: true}
		}},
		{"(m2) 1d range, metric_name equals, event_time DESC", func() warehouse.MetricQuery {
			from, to := window(day)
			return warehouse.MetricQuery{FromMs: from, ToMs: to, MetricName: metricName(rng.IntN(metricNames)),
				SortBy: warehouse.MetricSortEventTime, Desc: true}
		}},
		{"(m3) 1d, metric_name + label model equals, DESC", func() warehouse.MetricQuery {
			from, to := window(day)
			return warehouse.MetricQuery{FromMs: from, ToMs: to, MetricName: metricName(rng.IntN(metricNames)),
				SortBy: warehouse.MetricSortEventTime, Desc: true,
				Filters: []warehouse.Filter{{Field: "labels.model", Operator: warehouse.OpEquals, Value: pointModels[rng.IntN(len(pointModels))]}}}
		}},
	}
	type runner struct {
		name string
		call func(warehouse.Store) (int64, error)
	}
	var all []runner
	for _, qd := range queries {
		all = append(all, runner{qd.Name, func(st warehouse.Store) (int64, error) {
			q := qd.Make()
			q.Environments = []string{ws.env}
			page, err := st.QuerySpans(ctx, q)
			return page.TotalResults, err
		}})
	}
	for _, qd := range metricQueries {
		all = append(all, runner{qd.name, func(st warehouse.Store) (int64, error) {
			q := qd.make()
			q.Environments = []string{ws.env}
			page, err := st.QueryMetrics(ctx, q)
			return page.TotalResults, err
		}})
	}
	for _, r := range all {
		// Both backends answer the same query sequence.
		seed := rng.Uint64()
		for _, s := range ws.stores {
			rng = rand.New(rand.NewPCG(seed, 9))
			var lat []time.Duration
			var matched int64
			for range ws.runs {
				t0 := time.Now()
				n, err := r.call(s.st)
				if err != nil {
					return fmt.Errorf("%s %s %s: %w", phase, s.name, r.name, err)
				}
				lat = append(lat, time.Since(t0))
				matched += n
			}
			slices.Sort(lat)
			fmt.Printf("%-7s %-10s %-55s p50 %7.1f ms  p99 %7.1f ms  (%d matches per query)\n", phase, s.name, r.name,
				ms(lat[len(lat)/2]), ms(lat[(len(lat)*99-1)/100]), matched/int64(ws.runs))
		}
	}
	return nil
}

// Shape of the synthetic metric points.
const metricNames = 20

var pointModels = []string{"gpt-4o", "gpt-4o-mini", "claude-3-5-sonnet", "claude-3-haiku", "llama-3-70b",
	"mistral-large", "gemini-1.5-pro", "gpt-4.1", "o3-mini", "command-r"}

func metricName(i int) string { return fmt.Sprintf("eval.metric.%02d", i) }

// metricBatches makes c.points evaluator points spread evenly over
// [start, end), in batches of c.batch.
func metricBatches(env string, c config, start, end int64) [][]warehouse.MetricPoint {
	rng := rand.New(rand.NewPCG(7, 8))
	var out [][]warehouse.MetricPoint
	for i := 0; i < c.points; i += c.batch {
		k := min(c.batch, c.points-i)
		b := make([]warehouse.MetricPoint, k)
		for j := range b {
			v := rng.Float64()
			b[j] = warehouse.MetricPoint{Environment: env, OrganizationID: "org-1", MetricName: metricName(rng.IntN(metricNames)),
				Source: warehouse.SourceEvaluator, EventTime: start + (end-start)*int64(i+j)/int64(c.points), NumericValue: &v,
				TraceID: fmt.Sprintf("%032x", rng.Uint64()), SpanID: fmt.Sprintf("%016x", rng.Uint64()),
				Labels: map[string]string{"model": pointModels[rng.IntN(len(pointModels))], "evaluator": "builtin"}}
		}
		out = append(out, b)
	}
	return out
}

// ingestPoints writes the metric point batches with one writer and prints
// the rate.
func ingestPoints(ctx context.Context, name string, st warehouse.Store, batches [][]warehouse.MetricPoint) error {
	n := 0
	t0, c0 := time.Now(), synthspans.CPUTime()
	for _, b := range batches {
		if err := st.WriteMetricPoints(ctx, b); err != nil {
			return fmt.Errorf("%s: write points: %w", name, err)
		}
		n += len(b)
	}
	wall, cpu := time.Since(t0), synthspans.CPUTime()-c0
	fmt.Printf("%-10s points: %d in %s = %.0f points/s; client CPU %s\n", name, n, wall.Round(time.Millisecond),
		float64(n)/wall.Seconds(), cpu.Round(time.Millisecond))
	return nil
}

// rawConn opens a plain driver connection for the load test's own
// statements (OPTIMIZE, system.parts).
func rawConn(c config) (ch.Conn, error) {
	return ch.Open(&ch.Options{Addr: []string{c.addr}, ReadTimeout: 30 * time.Minute})
}

// optimize merges every partition of every MergeTree table of the
// database into one part (OPTIMIZE ... FINAL) and prints how long it took.
func optimize(ctx context.Context, c config) error {
	conn, err := rawConn(c)
	if err != nil {
		return err
	}
	defer conn.Close()
	rows, err := conn.Query(ctx, "SELECT name FROM system.tables WHERE database = ? AND engine LIKE '%MergeTree'", c.database)
	if err != nil {
		return fmt.Errorf("list tables: %w", err)
	}
	var tables []string
	for rows.Next() {
		var t string
		if err := rows.Scan(&t); err != nil {
			rows.Close()
			return err
		}
		tables = append(tables, t)
	}
	rows.Close()
	for _, t := range tables {
		t0 := time.Now()
		if err := conn.Exec(ctx, "OPTIMIZE TABLE `"+c.database+"`."+t+" FINAL"); err != nil {
			return fmt.Errorf("optimize %s: %w", t, err)
		}
		fmt.Printf("optimize %s: %s\n", t, time.Since(t0).Round(time.Millisecond))
	}
	return nil
}

// printParts prints the active parts per table.
func printParts(ctx context.Context, c config, phase string) {
	conn, err := rawConn(c)
	if err != nil {
		log.Printf("parts: %v", err)
		return
	}
	defer conn.Close()
	rows, err := conn.Query(ctx, "SELECT table, count() FROM system.parts WHERE database = ? AND active GROUP BY table ORDER BY table", c.database)
	if err != nil {
		log.Printf("parts: %v", err)
		return
	}
	defer rows.Close()
	var parts []string
	for rows.Next() {
		var t string
		var n uint64
		if err := rows.Scan(&t, &n); err != nil {
			log.Printf("parts: %v", err)
			return
		}
		parts = append(parts, fmt.Sprintf("%s %d", t, n))
	}
	fmt.Printf("%-7s active parts: %s\n", phase, strings.Join(parts, ", "))
}

func openClickHouse(ctx context.Context, c config) (*clickhouse.Store, error) {
	dropDatabase(ctx, c)
	return clickhouse.Open(ctx, clickhouse.Options{Addr: c.addr, Database: c.database})
}

// dropDatabase removes the load test's database through a store on the
// "default" database (the driver has no other way to run DDL here).
func dropDatabase(ctx context.Context, c config) {
	if err := clickhouse.DropDatabase(ctx, clickhouse.Options{Addr: c.addr, Database: c.database}); err != nil {
		log.Printf("drop database %s: %v", c.database, err)
	}
}

// ingest writes the batches with the given number of concurrent writers
// and prints the rate.
func ingest(ctx context.Context, name string, st warehouse.Store, batches [][]warehouse.Span, writers, serverPID int) error {
	n := 0
	for _, b := range batches {
		n += len(b)
	}
	next := make(chan []warehouse.Span)
	errs := make(chan error, writers)
	var wg sync.WaitGroup
	t0, c0, s0 := time.Now(), synthspans.CPUTime(), processCPU(serverPID)
	for range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for b := range next {
				if err := st.WriteSpans(ctx, b); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	for i, b := range batches {
		select {
		case next <- b:
		case err := <-errs:
			close(next)
			return fmt.Errorf("%s: write: %w", name, err)
		}
		if i%200 == 0 {
			log.Printf("%s: %d batches written", name, i)
		}
	}
	close(next)
	wg.Wait()
	select {
	case err := <-errs:
		return fmt.Errorf("%s: write: %w", name, err)
	default:
	}
	wall, cpu := time.Since(t0), synthspans.CPUTime()-c0
	line := fmt.Sprintf("%-10s ingest: %d spans in %s = %.0f spans/s (batches of %d, %d writers); client CPU %s = %.0f spans per CPU-second",
		name, n, wall.Round(time.Millisecond), float64(n)/wall.Seconds(), len(batches[0]), writers,
		cpu.Round(time.Millisecond), float64(n)/cpu.Seconds())
	if serverPID > 0 {
		srv := processCPU(serverPID) - s0
		line += fmt.Sprintf("; server CPU %s; client+server %.0f spans per CPU-second",
			srv.Round(time.Millisecond), float64(n)/(cpu+srv).Seconds())
	}
	fmt.Println(line)
	return nil
}

// processCPU is the CPU time of another process (0 when unknown), from
// /proc/<pid>/stat (utime and stime, in clock ticks of 1/100 s).
func processCPU(pid int) time.Duration {
	if pid <= 0 {
		return 0
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	s := string(b)
	fields := strings.Fields(s[strings.LastIndexByte(s, ')')+2:])
	if len(fields) < 13 {
		return 0
	}
	ut, _ := strconv.ParseInt(fields[11], 10, 64)
	st, _ := strconv.ParseInt(fields[12], 10, 64)
	return time.Duration(ut+st) * 10 * time.Millisecond
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
