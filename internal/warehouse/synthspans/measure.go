package synthspans

import (
	"fmt"
	"math/rand/v2"
	"syscall"
	"testing"
	"time"

	"github.com/evalcol/evalcol/internal/warehouse"
)

// CPUTime is the CPU time (user + system) this process has used.
func CPUTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkWrites runs write on batches of 1 000 generated spans (each
// batch a minute later than the last) and reports spans/s and spans per
// CPU-second. On a shared machine wall time varies with the neighbours;
// CPU time (a lower bound: it includes making the spans) varies less.
func BenchmarkWrites(b *testing.B, write func([]warehouse.Span) error) {
	const batch = 1000
	g := New("bench", 1)
	ts := int64(1_790_000_000_000)
	b.ReportAllocs()
	n := 0
	cpu0 := CPUTime()
	for b.Loop() {
		b.StopTimer()
		spans := g.Batch(batch, ts, ts+60_000)
		ts += 60_000
		b.StartTimer()
		if err := write(spans); err != nil {
			b.Fatal(err)
		}
		n += batch
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "spans/s")
	b.ReportMetric(float64(n)/(CPUTime()-cpu0).Seconds(), "spans/cpu-s")
}

// Query is a named span query shape of the load tests; Make draws one
// query of the shape.
type Query struct {
	Name string
	Make func() warehouse.SpanQuery
}

// Time spans of the query windows, in ms.
const (
	Hour = int64(3600 * 1000)
	Day  = 24 * Hour
)

// Window draws a window of width ms within [start, end), starting on a
// whole second.
func Window(rng *rand.Rand, start, end, width int64) (from, to int64) {
	from = start + rng.Int64N(end-start-width)
	from -= from % 1000
	return from, from + width - 1
}

// TargetQueries are the span query shapes (a)–(d) and (g) that every backend's
// load test measures, with windows drawn by rng within [start, end) and
// traces taken from sample.
func TargetQueries(rng *rand.Rand, start, end int64, sample []warehouse.Span) []Query {
	return []Query{
		{"(a) 1h range, sort timestamp", func() warehouse.SpanQuery {
			from, to := Window(rng, start, end, Hour)
			return warehouse.SpanQuery{FromMs: from, ToMs: to, SortBy: warehouse.SortTimestamp}
		}},
		{"(b) 1d range, user.id equals (~1%), sort duration DESC", func() warehouse.SpanQuery {
			from, to := Window(rng, start, end, Day)
			return warehouse.SpanQuery{FromMs: from, ToMs: to, SortBy: warehouse.SortDuration, Desc: true,
				Filters: []warehouse.Filter{{Field: "user.id", Operator: warehouse.OpEquals, Value: UserID(rng.IntN(Users))}}}
		}},
		{"(c) 1d range, span_name contains", func() warehouse.SpanQuery {
			from, to := Window(rng, start, end, Day)
			return warehouse.SpanQuery{FromMs: from, ToMs: to,
				Filters: []warehouse.Filter{{Field: "span_name", Operator: warehouse.OpContains, Value: fmt.Sprintf("operation.%02d", rng.IntN(100))}}}
		}},
		{"(d) 1d range around the trace, trace_id equals", func() warehouse.SpanQuery {
			sp := sample[rng.IntN(len(sample))]
			return warehouse.SpanQuery{FromMs: sp.Timestamp - Day/2, ToMs: sp.Timestamp + Day/2,
				Filters: []warehouse.Filter{{Field: "trace_id", Operator: warehouse.OpEquals, Value: sp.TraceID}}}
		}},
		{"(g) 7d range, sort timestamp DESC, no filter", func() warehouse.SpanQuery {
			return warehouse.SpanQuery{FromMs: start, Desc: true}
		}},
	}
}

// SearchQueries are the full-text search shapes of the load tests (their
// -text fill, WithText): a common word
// (~8 % of the spans hold it), two words that seldom meet (~0.6 %), a
// rare phrase, each over a week, a day, with a filter and another sort.
func SearchQueries(rng *rand.Rand, start, end int64) []Query {
	day := func() (int64, int64) { return Window(rng, start, end, Day) }
	week := func(text string, sort warehouse.SortKey) func() warehouse.SpanQuery {
		return func() warehouse.SpanQuery {
			return warehouse.SpanQuery{FromMs: start, ToMs: end, Text: text, SortBy: sort, Desc: true}
		}
	}
	return []Query{
		{Name: "(s1) 7d range, q word (common), sort timestamp DESC", Make: week("invoice", warehouse.SortTimestamp)},
		{Name: "(s2) 7d range, q two words (~0.6%), sort timestamp DESC", Make: week("invoice weather", warehouse.SortTimestamp)},
		{Name: "(s3) 7d range, q rare phrase, sort timestamp DESC", Make: week(`"invoice and the weather"`, warehouse.SortTimestamp)},
		{Name: "(s4) 7d range, q word (common), sort total_tokens DESC", Make: week("invoice", warehouse.SortTotalTokens)},
		{Name: "(s5) 1d range, q word (common), sort timestamp DESC", Make: func() warehouse.SpanQuery {
			from, to := day()
			return warehouse.SpanQuery{FromMs: from, ToMs: to, Text: "invoice", Desc: true}
		}},
		{Name: "(s6) 1d range, q word + llm.request.model equals, sort duration DESC", Make: func() warehouse.SpanQuery {
			from, to := day()
			return warehouse.SpanQuery{FromMs: from, ToMs: to, Text: "invoice", SortBy: warehouse.SortDuration, Desc: true,
				Filters: []warehouse.Filter{{Field: "llm.request.model", Operator: warehouse.OpEquals, Value: "gpt-4o"}}}
		}},
	}
}
