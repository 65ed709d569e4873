package storetest

import (
	"context"
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/evalcol/evalcol/internal/warehouse"
)

// statKey is a row of a span stats comparison: bucket and key.
type statKey struct {
	bucket int64
	warehouse.SpanStatKey
}

// statsOf reads q's span stats into a map.
func statsOf(t *testing.T, st warehouse.Store, q warehouse.SpanStatQuery) map[statKey]warehouse.SpanStatValues {
	t.Helper()
	rows, err := st.SpanStats(context.Background(), q)
	if err != nil {
		t.Fatalf("SpanStats(%+v): %v", q, err)
	}
	out := map[statKey]warehouse.SpanStatValues{}
	for _, r := range rows {
		k := statKey{r.Bucket, r.SpanStatKey}
		v := out[k]
		v.N, v.Errors = v.N+r.N, v.Errors+r.Errors
		v.InputTokens, v.OutputTokens = v.InputTokens+r.InputTokens, v.OutputTokens+r.OutputTokens
		out[k] = v
	}
	return out
}

// statsGroupBy is the reference: a GROUP BY over the spans stored in q's
// environment (read back through QuerySpans), bucketed as q asks.
func statsGroupBy(t *testing.T, st warehouse.Store, q warehouse.SpanStatQuery) map[statKey]warehouse.SpanStatValues {
	t.Helper()
	out := map[statKey]warehouse.SpanStatValues{}
	sq := warehouse.SpanQuery{Environments: []string{q.Environment}, FromMs: q.FromMs, ToMs: q.ToMs, Limit: 1000}
	for {
		page := querySpans(t, st, sq)
		for i := range page.Spans {
			sp := &page.Spans[i]
			k, v := warehouse.SpanStatOf(sp)
			if q.Workflow != "" && k.Workflow != q.Workflow || q.Model != "" && k.Model != q.Model {
				continue
			}
			sk := statKey{q.BucketOf(sp.Timestamp), k}
			a := out[sk]
			a.N, a.Errors = a.N+v.N, a.Errors+v.Errors
			a.InputTokens, a.OutputTokens = a.InputTokens+v.InputTokens, a.OutputTokens+v.OutputTokens
			out[sk] = a
		}
		if page.NextCursor == "" {
			return out
		}
		sq.Cursor = page.NextCursor
	}
}

// sameStats fails unless the stats equal the reference.
func sameStats(t *testing.T, what string, got, want map[statKey]warehouse.SpanStatValues) {
	t.Helper()
	if len(want) == 0 {
		t.Fatalf("%s: the reference is empty (a broken fixture)", what)
	}
	for k, w := range want {
		if g := got[k]; g != w {
			t.Errorf("%s: %+v: counted %+v, stored %+v", what, k, g, w)
		}
	}
	for k, g := range got {
		if _, ok := want[k]; !ok {
			t.Errorf("%s: %+v: counted %+v, none stored", what, k, g)
		}
	}
}

// statsFixture writes n spans over three hours of env: two workflows,
// three models (one a dated response model, one only requested, none),
// durations spread over many latency bins, some errors, tokens in the
// attribute conventions genai reads; it returns the spans.
func statsFixture(t *testing.T, st warehouse.Store, env string, start int64, n int) []warehouse.Span {
	t.Helper()
	var spans []warehouse.Span
	for i := range n {
		sp := span(env, fmt.Sprintf("s-%d-%d", start, i), 0)
		sp.TraceID = fmt.Sprintf("st-%s-%d-%d", env, start, i)
		sp.Timestamp = start + int64(i)*(3*3600_000)/int64(n)
		sp.Duration = int64(i*i) % 40000
		sp.WorkflowName = []string{"checkout", "search"}[i%2]
		if i%7 == 0 {
			sp.StatusCode = "STATUS_CODE_ERROR"
		}
		switch i % 3 {
		case 0:
			sp.RequestModel, sp.ResponseModel = "gpt-4o", "gpt-4o-2024-08-06"
			sp.SpanAttributes = map[string]string{"gen_ai.usage.input_tokens": strconv.Itoa(100 + i), "gen_ai.usage.output_tokens": strconv.Itoa(i)}
		case 1:
			sp.RequestModel = "claude-3-5-haiku"
			sp.SpanAttributes = map[string]string{"llm.usage.prompt_tokens": strconv.Itoa(3 * i), "llm.usage.completion_tokens": "7",
				"llm.usage.total_tokens": strconv.Itoa(3*i + 7)}
		default:
			sp.SpanAttributes = map[string]string{"http.method": "GET"}
		}
		spans = append(spans, sp)
	}
	writeSpans(t, st, spans...)
	return spans
}

// statsQueries are the shapes the dashboard asks: minute, hour and
// six-hour rows (each row a bucket, or summed into wider ones), one
// bucket, a workflow, a model.
func statsQueries(env string, from, to int64) []warehouse.SpanStatQuery {
	six := warehouse.StatSixHours
	day := from - from%(4*six)
	return []warehouse.SpanStatQuery{
		{Environment: env, FromMs: day, ToMs: to, BucketMs: six},
		{Environment: env, FromMs: day, ToMs: to, BucketMs: 2 * six, Workflow: "checkout"},
		{Environment: env, FromMs: day, ToMs: to, BucketMs: 4 * six, Model: "gpt-4o-2024-08-06"},
		{Environment: env, FromMs: day + six, ToMs: to, BucketMs: six},
		{Environment: env, FromMs: from, ToMs: to, BucketMs: six}, // not on six hours: hour rows
		{Environment: env, FromMs: from, ToMs: to, BucketMs: warehouse.CountHour},
		{Environment: env, FromMs: from, ToMs: to, BucketMs: 15 * warehouse.CountMinute},
		{Environment: env, FromMs: from + 7*warehouse.CountMinute, ToMs: to, BucketMs: 5 * warehouse.CountMinute},
		{Environment: env, FromMs: from, ToMs: to},
		{Environment: env, FromMs: from, ToMs: to, BucketMs: 3 * warehouse.CountHour, Workflow: "search"},
		{Environment: env, FromMs: from, ToMs: to, BucketMs: warehouse.CountHour, Model: "gpt-4o-2024-08-06"},
	}
}

// testSpanStats checks warehouse.SpanStatter: after writes and a resent
// write the stats equal a GROUP BY over the stored spans; environments
// never see each other's stats; a bad bucket is a query error.
func testSpanStats(t *testing.T, open Opener) {
	ctx := context.Background()
	st := openStore(t, open)
	start := base + 7*3600_000 // on an hour
	spans := statsFixture(t, st, "prod", start, 120)
	statsFixture(t, st, "staging", start, 30)
	from, to := start, start+4*3600_000
	// Later spans of prod, in two more six-hour rows (12:00 and 18:00).
	later := statsFixture(t, st, "prod", start+9*3600_000, 45)
	check := func(stage string) {
		t.Helper()
		for _, q := range statsQueries("prod", from, later[len(later)-1].Timestamp+1) {
			sameStats(t, fmt.Sprintf("%s, %+v", stage, q), statsOf(t, st, q), statsGroupBy(t, st, q))
		}
	}
	check("after writes")
	var total warehouse.SpanStatValues
	for _, v := range statsOf(t, st, warehouse.SpanStatQuery{Environment: "prod", FromMs: from, ToMs: to}) {
		total.N += v.N
		total.Errors += v.Errors
		total.InputTokens += v.InputTokens
	}
	if total.N != 120 || total.Errors != 18 || total.InputTokens == 0 {
		t.Errorf("stats of 120 spans (18 errors, with tokens) = %+v", total)
	}

	// A resent write counts nothing twice, nor a batch mixing stored and
	// new spans.
	writeSpans(t, st, spans[:10]...)
	check("after a resend")
	batch := append([]warehouse.Span(nil), spans[10:20]...)
	for _, sp := range spans[20:30] {
		sp.SpanID, sp.Timestamp = sp.SpanID+"-new", sp.Timestamp+17
		batch = append(batch, sp)
	}
	writeSpans(t, st, batch...)
	check("after a partial resend")

	// Tenancy.
	for k := range statsOf(t, st, warehouse.SpanStatQuery{Environment: "staging", FromMs: from, ToMs: to}) {
		if k.Environment != "staging" {
			t.Errorf("staging sees %+v", k)
		}
	}
	if got := statsOf(t, st, warehouse.SpanStatQuery{Environment: "nobody", FromMs: from - from%warehouse.StatSixHours, ToMs: to,
		BucketMs: warehouse.StatSixHours}); len(got) != 0 {
		t.Errorf("an environment without spans has stats %v", got)
	}

	// Bad input.
	if _, err := st.SpanStats(ctx, warehouse.SpanStatQuery{Environment: "prod", FromMs: from, ToMs: to, BucketMs: 1000}); !warehouse.IsQueryError(err) {
		t.Errorf("a bucket of one second: %v, want a query error", err)
	}
	if _, err := st.SpanStats(ctx, warehouse.SpanStatQuery{Environment: "prod", FromMs: to, ToMs: from}); !warehouse.IsQueryError(err) {
		t.Errorf("a reversed range: %v, want a query error", err)
	}
}

// testRetentionSpanStats: spans pruned by retention leave the stats too;
// the stats of what stays equal a GROUP BY over it.
func testRetentionSpanStats(t *testing.T, open RetentionOpener) {
	st, p := retentionFixture(t, open, warehouse.Retention{Spans: week, Grace: -1}, 0)
	now := time.Now().UnixMilli()
	oldStart := now - 30*day
	oldStart -= oldStart % 3600_000
	newStart := now - 5*3600_000
	newStart -= newStart % 3600_000
	statsFixture(t, st, "prod", oldStart, 40)
	statsFixture(t, st, "prod", newStart, 40)
	q := warehouse.SpanStatQuery{Environment: "prod", FromMs: oldStart, ToMs: now, BucketMs: warehouse.CountHour}
	if before := statsOf(t, st, q); len(before) == 0 {
		t.Fatal("no stats before pruning")
	}
	// The trace stats: a trace whose spans all left is neither listed nor
	// counted.
	traces := func(stage string) {
		t.Helper()
		tq := warehouse.TraceQuery{Environments: []string{"prod"}, FromMs: oldStart, ToMs: now, SortBy: warehouse.TraceSortLatency, Limit: 200}
		page, err := st.QueryTraces(context.Background(), tq)
		if err != nil {
			t.Fatalf("%s: QueryTraces: %v", stage, err)
		}
		stored := map[string]bool{}
		for _, sp := range allPages(t, st, warehouse.SpanQuery{Environments: []string{"prod"}, FromMs: oldStart, ToMs: now, Limit: 1000}) {
			stored[sp.TraceID] = true
		}
		if page.Total != int64(len(stored)) || len(page.Traces) != len(stored) {
			t.Errorf("%s: %d traces listed, %d counted; %d stored", stage, len(page.Traces), page.Total, len(stored))
		}
	}
	traces("before pruning")
	if _, err := p.Prune(context.Background()); err != nil {
		t.Fatalf("Prune: %v", err)
	}
	traces("after pruning")
	got := statsOf(t, st, q)
	for k := range got {
		if k.bucket < now-8*day {
			t.Errorf("pruned spans still counted: %+v", k)
		}
	}
	sameStats(t, "after pruning", got, statsGroupBy(t, st, q))
}

// WriteStatsFixture writes spans of several workflows, models, durations
// and statuses to environment prod of st, in two six-hour rows (for a backend's own tests of
// its stats migration).
func WriteStatsFixture(t *testing.T, st warehouse.Store) {
	t.Helper()
	statsFixture(t, st, "prod", base+7*3600_000, 50)
	statsFixture(t, st, "prod", base+13*3600_000, 20) // another six hours
}

// SameStatRows fails unless got and want hold the same stats.
func SameStatRows(t *testing.T, got, want []warehouse.SpanStat) {
	t.Helper()
	index := func(rows []warehouse.SpanStat) map[statKey]warehouse.SpanStatValues {
		out := map[statKey]warehouse.SpanStatValues{}
		for _, r := range rows {
			k := statKey{r.Bucket, r.SpanStatKey}
			v := out[k]
			v.N, v.Errors = v.N+r.N, v.Errors+r.Errors
			v.InputTokens, v.OutputTokens = v.InputTokens+r.InputTokens, v.OutputTokens+r.OutputTokens
			out[k] = v
		}
		return out
	}
	sameStats(t, "stats", index(got), index(want))
}
