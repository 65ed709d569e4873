package console

import (
	"context"
	"crypto/sha256"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/evalcol/evalcol/extension/evalapiextension/internal/httpapi"
	"github.com/evalcol/evalcol/internal/tenant"
	"github.com/evalcol/evalcol/internal/warehouse"
	"github.com/evalcol/evalcol/internal/warehouse/sqlite"
	"github.com/evalcol/evalcol/internal/warehouse/synthspans"
)

// The benchmark warehouse: benchSpans synthspans spans over 7 days (each its
// own trace, with a toxicity and a PII result, 1 in 50 toxicity results
// failing) plus benchTraces traces of 10 spans with 1 KB prompts and
// completions. EVALCOL_CONSOLE_BENCH_SPANS sets another size; the file is
// kept in the temporary directory and reused by later runs of that size.
const (
	defaultBenchSpans = 1_000_000
	benchTraces       = 1000
	benchTraceSpans   = 10
	benchStart        = int64(1_790_000_000_000)
	benchEnd          = benchStart + 7*synthspans.Day
	benchEnv          = "bench"
)

var (
	benchOnce   sync.Once
	benchErr    error
	benchData   warehouse.Store
	benchTraced []warehouse.Span // a chat span of each multi-span trace
)

func benchSpans() int {
	if s := os.Getenv("EVALCOL_CONSOLE_BENCH_SPANS"); s != "" {
		if n, err := strconv.Atoi(s); err == nil && n > 0 {
			return n
		}
	}
	return defaultBenchSpans
}

// benchEvaluations are the results recorded on a generated span.
func benchEvaluations(rng *rand.Rand) []warehouse.Evaluation {
	tox := warehouse.Evaluation{Name: "toxicity-detector", ScoreValue: 1, ScoreLabel: "safe", Output: map[string]any{"is_safe": "safe"}, MonitorID: "safety", Verdict: "pass"}
	if rng.IntN(50) == 0 {
		tox.ScoreValue, tox.ScoreLabel, tox.Output, tox.Verdict = 0, "unsafe", map[string]any{"is_safe": "unsafe"}, "fail"
	}
	pii := warehouse.Evaluation{Name: "pii-detector", ScoreValue: 0, ScoreLabel: "false", Output: map[string]any{"has_pii": false}, MonitorID: "safety", Verdict: "pass"}
	return []warehouse.Evaluation{tox, pii}
}

// benchTrace is a trace of benchTraceSpans spans starting at ts: a root
// and chat children with prompts and completions.
func benchTrace(g *synthspans.Generator, rng *rand.Rand, ts int64) []warehouse.Span {
	text := strings.Repeat("The quick brown fox jumps over the lazy dog. ", 23) // ~1 KB
	root := g.Span(ts)
	root.ParentSpanID, root.SpanName, root.Duration = "", root.WorkflowName+".workflow", 4000
	out := []warehouse.Span{root}
	for i := 1; i < benchTraceSpans; i++ {
		sp := g.Span(ts + int64(i)*300)
		sp.TraceID, sp.ParentSpanID, sp.Duration = root.TraceID, root.SpanID, 250
		sp.Prompts = map[string]string{"llm.prompts.0.role": "system", "llm.prompts.0.content": text,
			"llm.prompts.1.role": "user", "llm.prompts.1.content": text}
		sp.Completions = map[string]string{"llm.completions.0.role": "assistant", "llm.completions.0.content": text}
		sp.Evaluations = benchEvaluations(rng)
		out = append(out, sp)
	}
	return out
}

// openBenchStore opens (filling it on first use) the benchmark warehouse.
func openBenchStore(b *testing.B) warehouse.Store {
	b.Helper()
	benchOnce.Do(func() {
		n := benchSpans()
		path := filepath.Join(os.TempDir(), fmt.Sprintf("evalcol-console-bench-%d.db", n))
		ctx := context.Background()
		fresh := false
		if _, err := os.Stat(path); err != nil {
			fresh = true
		}
		st, err := sqlite.Open(ctx, path, sqlite.Options{})
		if err != nil {
			benchErr = err
			return
		}
		benchData = st
		g := synthspans.New(benchEnv, 7)
		rng := rand.New(rand.NewPCG(7, 11))
		// The multi-span traces, at fixed times (also when reusing).
		var traces [][]warehouse.Span
		for i := range benchTraces {
			ts := benchStart + (benchEnd-benchStart-synthspans.Hour)*int64(i)/benchTraces
			traces = append(traces, benchTrace(g, rng, ts))
			benchTraced = append(benchTraced, traces[i][1])
		}
		if !fresh {
			return
		}
		start := time.Now()
		const batch = 10_000
		for done := 0; done < n; done += batch {
			k := min(batch, n-done)
			from := benchStart + (benchEnd-benchStart)*int64(done)/int64(n)
			to := benchStart + (benchEnd-benchStart)*int64(done+k)/int64(n)
			spans := g.Batch(k, from, to)
			for i := range spans {
				spans[i].Evaluations = benchEvaluations(rng)
			}
			if done/batch%(n/batch/benchTraces+1) == 0 && len(traces) > 0 {
				spans = append(spans, traces[0]...)
				traces = traces[1:]
			}
			if err := st.WriteSpans(ctx, spans); err != nil {
				benchErr = err
				return
			}
		}
		for _, tr := range traces {
			if err := st.WriteSpans(ctx, tr); err != nil {
				benchErr = err
				return
			}
		}
		fmt.Fprintf(os.Stderr, "filled %s with %d spans in %s\n", path, n+benchTraces*benchTraceSpans, time.Since(start).Round(time.Second))
	})
	if benchErr != nil {
		b.Fatal(benchErr)
	}
	return benchData
}

// benchConsole returns the console over the benchmark warehouse, its clock
// at the end of the data, and a session cookie.
func benchConsole(b *testing.B) (*Console, *http.Cookie) {
	b.Helper()
	return consoleOver(b, openBenchStore(b))
}

// consoleOver returns a console over st for the benchmark environment, its
// clock at benchEnd, and a session cookie.
func consoleOver(b *testing.B, st warehouse.Store) (*Console, *http.Cookie) {
	b.Helper()
	c, err := New(Options{
		Keys:  tenant.NewKeyring([]tenant.Key{{Secret: "bench-key-0001", Tenant: tenant.Tenant{Environment: benchEnv}}}),
		Store: st, SessionKeys: StaticKeys(secret), Now: func() time.Time { return time.UnixMilli(benchEnd) },
	})
	if err != nil {
		b.Fatal(err)
	}
	value, err := c.startSession(context.Background(), tenant.Tenant{Environment: benchEnv}, sha256.Sum256([]byte("bench-key-0001")), "")
	if err != nil {
		b.Fatal(err)
	}
	return c, &http.Cookie{Name: sessionCookie, Value: value}
}

// serve runs one request and returns the time it took and the answer.
func serve(b *testing.B, c *Console, ck *http.Cookie, path string) (time.Duration, *httptest.ResponseRecorder) {
	req := httptest.NewRequest("GET", path, nil)
	req.AddCookie(ck)
	rec := httptest.NewRecorder()
	start := time.Now()
	c.ServeHTTP(rec, req)
	d := time.Since(start)
	if rec.Code != http.StatusOK {
		b.Fatalf("GET %s = %d\n%s", path, rec.Code, truncate(2000, rec.Body.String()))
	}
	return d, rec
}

// report records the latency quantiles, the process CPU time per request
// since cpu0 (steadier than wall time on a shared machine) and the page
// weight.
func report(b *testing.B, durations []time.Duration, bytes int, cpu0 time.Duration) {
	b.ReportMetric(float64(synthspans.CPUTime()-cpu0)/float64(time.Millisecond)/float64(len(durations)), "cpu-ms/op")
	slices.Sort(durations)
	q := func(p float64) float64 {
		return float64(durations[min(len(durations)-1, int(p*float64(len(durations))))]) / float64(time.Millisecond)
	}
	b.ReportMetric(q(0.50), "p50-ms")
	b.ReportMetric(q(0.99), "p99-ms")
	b.ReportMetric(float64(bytes)/1024, "page-KB")
	b.ReportMetric(0, "ns/op") // the quantiles are the figures
}

var nextLink = regexp.MustCompile(`href="([^"]+)" class="button" id="next-page"`)

// BenchmarkTracesList measures the server time of the traces list over
// the benchmark warehouse (go test -run '^$' -bench BenchmarkTracesList).
func BenchmarkTracesList(b *testing.B) {
	c, ck := benchConsole(b)
	cases := []pageCase{
		{"traces 1h", "/ui/traces"},
		{"traces 24h", "/ui/traces?range=24h"},
		{"traces 7d", "/ui/traces?range=7d"},
		{"traces 7d page 2", ""},
		{"traces 24h failed toxicity", "/ui/traces?range=24h&verdict=fail%3Atoxicity-detector"},
		{"traces 24h model", "/ui/traces?range=24h&model=gpt-4o"},
		{"traces 24h attribute", "/ui/traces?range=24h&attr=user.id%3Duser-042"},
		{"traces 24h sort latency", "/ui/traces?range=24h&sort=latency"},
		{"traces 7d sort cost", "/ui/traces?range=7d&sort=cost"},
		{"traces 7d sort tokens asc", "/ui/traces?range=7d&sort=tokens&order=asc"},
		{"traces 1h sort latency", "/ui/traces?sort=latency"},
		{"traces 24h sort cost model", "/ui/traces?range=24h&sort=cost&model=gpt-4o"},
		{"spans 1h", "/ui/traces?view=spans"},
		{"spans 24h sort tokens", "/ui/traces?view=spans&range=24h&sort=total_tokens"},
		{"spans 7d sort tokens", "/ui/traces?view=spans&range=7d&sort=total_tokens"},
	}
	benchPages(b, c, ck, cases, "/ui/traces?range=7d")
}

// pageCase is a console page a benchmark serves; an empty path is the
// second page of the benchmark's paged list.
type pageCase struct{ name, path string }

// benchPages serves each case's page b.N times and reports its server
// time quantiles, CPU and size; a case without a path serves the page
// that the next-page link of paged leads to.
func benchPages(b *testing.B, c *Console, ck *http.Cookie, cases []pageCase, paged string) {
	for _, tc := range cases {
		b.Run(tc.name, func(b *testing.B) {
			path := tc.path
			if path == "" {
				_, rec := serve(b, c, ck, paged)
				m := nextLink.FindStringSubmatch(rec.Body.String())
				if m == nil {
					b.Fatalf("%s has no next page", paged)
				}
				path = strings.ReplaceAll(m[1], "&amp;", "&")
			}
			var durations []time.Duration
			bytes := 0
			cpu0 := synthspans.CPUTime()
			for b.Loop() {
				d, rec := serve(b, c, ck, path)
				durations = append(durations, d)
				bytes = rec.Body.Len()
			}
			report(b, durations, bytes, cpu0)
		})
	}
}

// BenchmarkTracePage measures the server time of the trace page of a
// 10-span trace with 1 KB prompts and completions, opened from the list
// (with the start time hint) and from a pasted link (without it).
func BenchmarkTracePage(b *testing.B) {
	c, ck := benchConsole(b)
	rng := rand.New(rand.NewPCG(3, 4))
	for _, hint := range []bool{true, false} {
		b.Run(fmt.Sprintf("hint %v", hint), func(b *testing.B) {
			var durations []time.Duration
			bytes := 0
			cpu0 := synthspans.CPUTime()
			for b.Loop() {
				chat := benchTraced[rng.IntN(len(benchTraced))]
				path := "/ui/traces/" + chat.TraceID + "?span=" + chat.SpanID
				if hint {
					path += "&ts=" + strconv.FormatInt(chat.Timestamp, 10)
				}
				d, rec := serve(b, c, ck, path)
				if !strings.Contains(rec.Body.String(), "quick brown fox") {
					b.Fatal("trace page without its messages")
				}
				durations = append(durations, d)
				bytes = rec.Body.Len()
			}
			report(b, durations, bytes, cpu0)
		})
	}
}

// BenchmarkV2SpansBaseline is the baseline of the same run: the /v2 API's
// span query for the last hour, 50 spans (GET /v2/warehouse/spans), over
// the same warehouse.
func BenchmarkV2SpansBaseline(b *testing.B) {
	st := openBenchStore(b)
	keys := tenant.NewKeyring([]tenant.Key{{Secret: "bench-key-0001", Tenant: tenant.Tenant{Environment: benchEnv}}})
	api := httpapi.New(httpapi.Options{Keys: keys, Store: st})
	path := fmt.Sprintf("/v2/warehouse/spans?from_timestamp_sec=%d&to_timestamp_sec=%d&sort_order=DESC&limit=50",
		(benchEnd-synthspans.Hour)/1000, benchEnd/1000)
	var durations []time.Duration
	bytes := 0
	cpu0 := synthspans.CPUTime()
	for b.Loop() {
		req := httptest.NewRequest("GET", path, nil)
		req.Header.Set("Authorization", "Bearer bench-key-0001")
		rec := httptest.NewRecorder()
		start := time.Now()
		api.ServeHTTP(rec, req)
		durations = append(durations, time.Since(start))
		if rec.Code != http.StatusOK {
			b.Fatalf("GET %s = %d %s", path, rec.Code, rec.Body.String())
		}
		bytes = rec.Body.Len()
	}
	report(b, durations, bytes, cpu0)
}
