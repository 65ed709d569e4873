package storetest

import (
	"context"
	"fmt"
	"maps"
	"testing"
	"time"

	"github.com/evalcol/evalcol/internal/warehouse"
)

// countKey is a row of a count comparison: bucket and key.
type countKey struct {
	bucket int64
	warehouse.EvaluationCountKey
}

type countVal struct {
	n   int64
	sum float64
}

// countsOf reads q's counts into a map.
func countsOf(t *testing.T, st warehouse.Store, q warehouse.EvaluationCountQuery) map[countKey]countVal {
	t.Helper()
	rows, err := st.CountEvaluations(context.Background(), q)
	if err != nil {
		t.Fatalf("CountEvaluations(%+v): %v", q, err)
	}
	out := map[countKey]countVal{}
	for _, r := range rows {
		k := countKey{r.Bucket, r.EvaluationCountKey}
		v := out[k]
		v.n += r.N
		v.sum += r.Sum
		out[k] = v
	}
	return out
}

// groupByStored is the reference: a GROUP BY over the evaluations of the
// spans stored in env (read back through QuerySpans), bucketed as q asks.
func groupByStored(t *testing.T, st warehouse.Store, q warehouse.EvaluationCountQuery) map[countKey]countVal {
	t.Helper()
	out := map[countKey]countVal{}
	sq := warehouse.SpanQuery{Environments: []string{q.Environment}, FromMs: q.FromMs, ToMs: q.ToMs, Limit: 1000}
	for {
		page := querySpans(t, st, sq)
		for i := range page.Spans {
			sp := &page.Spans[i]
			for j := range sp.Evaluations {
				k, score, ok := warehouse.CountedEvaluation(sp, &sp.Evaluations[j])
				if !ok || q.Workflow != "" && k.Workflow != q.Workflow {
					continue
				}
				ck := countKey{q.BucketOf(sp.Timestamp), k}
				v := out[ck]
				v.n++
				v.sum += score
				out[ck] = v
			}
		}
		if page.NextCursor == "" {
			return out
		}
		sq.Cursor = page.NextCursor
	}
}

// sameCounts fails unless the counts equal the reference (sums to 1e-9).
func sameCounts(t *testing.T, what string, got, want map[countKey]countVal) {
	t.Helper()
	if len(want) == 0 {
		t.Fatalf("%s: the reference is empty (a broken fixture)", what)
	}
	for k, w := range want {
		g := got[k]
		if g.n != w.n || g.sum-w.sum > 1e-9 || w.sum-g.sum > 1e-9 {
			t.Errorf("%s: %+v: counted %+v, stored %+v", what, k, g, w)
		}
	}
	for k, g := range got {
		if _, ok := want[k]; !ok {
			t.Errorf("%s: %+v: counted %+v, none stored", what, k, g)
		}
	}
}

// evalOf builds a result of a catalogue evaluator.
func evalOf(name, monitor, verdict string, output map[string]any) warehouse.Evaluation {
	return warehouse.Evaluation{Name: name, MonitorID: monitor, Verdict: verdict, Output: output}
}

// countFixture writes spans over three hours of env with results of a
// boolean, an enumerated and a numeric evaluator (and results that are not
// counted: an error, an unknown evaluator), two workflows and two
// monitors; it returns the spans.
func countFixture(t *testing.T, st warehouse.Store, env string, start int64, n int) []warehouse.Span {
	t.Helper()
	var spans []warehouse.Span
	for i := range n {
		sp := span(env, fmt.Sprintf("c-%d-%d", start, i), 0)
		sp.TraceID = fmt.Sprintf("ct-%s-%d-%d", env, start, i)
		sp.Timestamp = start + int64(i)*(3*3600_000)/int64(n)
		sp.Duration = int64(i % 7)
		sp.WorkflowName = []string{"checkout", "search"}[i%2]
		tox := evalOf("toxicity-detector", "safety", "pass", map[string]any{"is_safe": "safe"})
		if i%5 == 0 {
			tox = evalOf("toxicity-detector", "safety", "fail", map[string]any{"is_safe": "unsafe"})
		}
		sp.Evaluations = []warehouse.Evaluation{tox,
			evalOf("pii-detector", "safety", []string{"pass", "fail"}[i%3/2], map[string]any{"has_pii": i%3 == 2}),
			evalOf("char-count", "lengths", "pass", map[string]any{"char_count": float64(10 * i)}),
			{Name: "pii-detector", MonitorID: "broken", Error: "timeout", Verdict: "error"},
			{Name: "my-own-evaluator", MonitorID: "safety", Output: map[string]any{"x": 1.0}},
			// A custom evaluator's (an LLM judge's) result: counted by its verdict.
			{Name: "no-refund-promise", MonitorID: "refunds", Verdict: []string{"pass", "fail"}[i%2], Output: map[string]any{"passed": i%2 == 0}},
		}
		spans = append(spans, sp)
	}
	writeSpans(t, st, spans...)
	return spans
}

// countQueries are the shapes the console asks: minute and hour rows,
// one bucket, a workflow.
func countQueries(env string, from, to int64) []warehouse.EvaluationCountQuery {
	return []warehouse.EvaluationCountQuery{
		{Environment: env, FromMs: from, ToMs: to, BucketMs: warehouse.CountHour},
		{Environment: env, FromMs: from, ToMs: to, BucketMs: 15 * warehouse.CountMinute},
		{Environment: env, FromMs: from, ToMs: to, BucketMs: 5 * warehouse.CountMinute},
		{Environment: env, FromMs: from, ToMs: to},
		{Environment: env, FromMs: from, ToMs: to, BucketMs: 3 * warehouse.CountHour, Workflow: "search"},
	}
}

// testEvaluationCounts checks warehouse.EvaluationCounter: after writes,
// a resent write, appends of new results and appends that replace stored
// ones, the counts equal a GROUP BY over the stored results; environments
// never see each other's counts; the last evaluation of each monitor.
func testEvaluationCounts(t *testing.T, open Opener) {
	ctx := context.Background()
	st := openStore(t, open)
	start := base + 7*3600_000 // on an hour
	spans := countFixture(t, st, "prod", start, 120)
	countFixture(t, st, "staging", start, 30)
	from, to := start, start+4*3600_000
	check := func(stage string) {
		t.Helper()
		for _, q := range countQueries("prod", from, to) {
			sameCounts(t, fmt.Sprintf("%s, %+v", stage, q), countsOf(t, st, q), groupByStored(t, st, q))
		}
	}
	check("after writes")
	all := countsOf(t, st, warehouse.EvaluationCountQuery{Environment: "prod", FromMs: from, ToMs: to})
	var n int64
	for _, v := range all {
		n += v.n
	}
	if n != 4*120 { // four counted results per span
		t.Errorf("%d results counted, want %d", n, 4*120)
	}

	// A resent write counts nothing twice.
	writeSpans(t, st, spans[:10]...)
	check("after a resend")

	// Appends: a new monitor's results, and results replacing stored ones
	// (toxicity turning to fail, a new char count) of the same monitors.
	var adds []warehouse.SpanEvaluations
	for i, sp := range spans {
		e := warehouse.SpanEvaluations{TraceID: sp.TraceID, SpanID: sp.SpanID}
		if i%2 == 0 {
			e.Timestamp = sp.Timestamp
		}
		switch i % 3 {
		case 0:
			e.Evaluations = []warehouse.Evaluation{evalOf("toxicity-detector", "backfill", "pass", map[string]any{"is_safe": "safe"})}
		case 1:
			e.Evaluations = []warehouse.Evaluation{evalOf("toxicity-detector", "safety", "fail", map[string]any{"is_safe": "unsafe"}),
				evalOf("char-count", "lengths", "pass", map[string]any{"char_count": float64(3000 + i)})}
		default:
			continue
		}
		adds = append(adds, e)
	}
	if err := st.AppendEvaluations(ctx, "prod", adds); err != nil {
		t.Fatalf("AppendEvaluations: %v", err)
	}
	check("after appends")
	// The same appends again change nothing.
	if err := st.AppendEvaluations(ctx, "prod", adds); err != nil {
		t.Fatalf("AppendEvaluations: %v", err)
	}
	check("after repeated appends")
	after := countsOf(t, st, warehouse.EvaluationCountQuery{Environment: "prod", FromMs: from, ToMs: to})
	n = 0
	for _, v := range after {
		n += v.n
	}
	if want := int64(4*120 + 40); n != want { // only the 40 new monitor results add
		t.Errorf("%d results counted after replacing appends, want %d", n, want)
	}

	// Tenancy.
	staging := countsOf(t, st, warehouse.EvaluationCountQuery{Environment: "staging", FromMs: from, ToMs: to})
	for k := range staging {
		if k.Environment != "staging" {
			t.Errorf("staging sees %+v", k)
		}
	}
	if got := countsOf(t, st, warehouse.EvaluationCountQuery{Environment: "nobody", FromMs: from, ToMs: to}); len(got) != 0 {
		t.Errorf("an environment without spans counts %v", got)
	}

	// Last evaluations: the latest end of a span each monitor evaluated.
	want := map[string]int64{}
	for _, sp := range spans {
		for _, m := range []string{"safety", "lengths"} {
			want[m] = max(want[m], sp.Timestamp+sp.Duration)
		}
	}
	for i, sp := range spans {
		if i%3 == 0 {
			want["backfill"] = max(want["backfill"], sp.Timestamp+sp.Duration)
		}
	}
	last, err := st.LastEvaluations(ctx, "prod", []string{"safety", "lengths", "backfill", "never"})
	if err != nil {
		t.Fatalf("LastEvaluations: %v", err)
	}
	if !maps.Equal(last, want) {
		t.Errorf("LastEvaluations = %v, want %v", last, want)
	}
	if last, err := st.LastEvaluations(ctx, "nobody", []string{"safety"}); err != nil || len(last) != 0 {
		t.Errorf("LastEvaluations of another environment = %v, %v; want none", last, err)
	}

	// Bad input.
	if _, err := st.CountEvaluations(ctx, warehouse.EvaluationCountQuery{Environment: "prod", FromMs: from, ToMs: to, BucketMs: 1000}); !warehouse.IsQueryError(err) {
		t.Errorf("a bucket of one second: %v, want a query error", err)
	}
}

// testRetentionEvaluationCounts: spans pruned by retention leave the
// counts too; the counts of what stays equal a GROUP BY over it.
func testRetentionEvaluationCounts(t *testing.T, open RetentionOpener) {
	st, p := retentionFixture(t, open, warehouse.Retention{Spans: week, Grace: -1}, 0)
	now := time.Now().UnixMilli()
	oldStart := now - 30*day
	oldStart -= oldStart % 3600_000
	newStart := now - 5*3600_000
	newStart -= newStart % 3600_000
	countFixture(t, st, "prod", oldStart, 40)
	countFixture(t, st, "prod", newStart, 40)
	q := warehouse.EvaluationCountQuery{Environment: "prod", FromMs: oldStart, ToMs: now, BucketMs: warehouse.CountHour}
	if before := countsOf(t, st, q); len(before) == 0 {
		t.Fatal("nothing counted before pruning")
	}
	if _, err := p.Prune(context.Background()); err != nil {
		t.Fatalf("Prune: %v", err)
	}
	got := countsOf(t, st, q)
	for k := range got {
		if k.bucket < now-8*day {
			t.Errorf("pruned spans still counted: %+v", k)
		}
	}
	sameCounts(t, "after pruning", got, groupByStored(t, st, q))
}

// WriteCountFixture writes spans with counted results to environment
// prod of st (for a backend's own tests of its count migration).
func WriteCountFixture(t *testing.T, st warehouse.Store) {
	t.Helper()
	countFixture(t, st, "prod", base+7*3600_000, 50)
}

// SameCountRows fails unless got and want hold the same counts.
func SameCountRows(t *testing.T, got, want []warehouse.EvaluationCount) {
	t.Helper()
	index := func(rows []warehouse.EvaluationCount) map[countKey]countVal {
		out := map[countKey]countVal{}
		for _, r := range rows {
			k := countKey{r.Bucket, r.EvaluationCountKey}
			v := out[k]
			v.n += r.N
			v.sum += r.Sum
			out[k] = v
		}
		return out
	}
	sameCounts(t, "counts", index(got), index(want))
}
