package clickhouse

import (
	"context"
	"reflect"
	"slices"
	"testing"

	"github.com/evalcol/evalcol/internal/warehouse"
)

// TestAppendedEvaluationsAcrossReadPaths checks that the row
// AppendEvaluations adds wins on every read path: unmerged parts (FINAL),
// filters read outside FINAL, the trace index, paging with limit 1, and
// after a merge (a settled week, read without FINAL), with a retried
// copy of the span written before and after the append.
func TestAppendedEvaluationsAcrossReadPaths(t *testing.T) {
	st := openTestStore(t, serverAddr(t))
	defer st.Close()
	ctx := context.Background()
	ts := int64(6*weekMs + 3_600_000)
	live := warehouse.Evaluation{Name: "char-count", MonitorID: "live", ScoreValue: 3}
	backfilled := warehouse.Evaluation{Name: "toxicity-detector", MonitorID: "setup-1", ScoreValue: 1, ScoreLabel: "safe"}
	target := warehouse.Span{Environment: "e", TraceID: "t", SpanID: "s", Timestamp: ts, SpanName: "chat",
		SpanAttributes: map[string]string{"user.id": "u1"}, Evaluations: []warehouse.Evaluation{live}}
	other := warehouse.Span{Environment: "e", TraceID: "t", SpanID: "o", Timestamp: ts + 1, SpanName: "tool",
		SpanAttributes: map[string]string{"user.id": "u1"}}
	for _, b := range [][]warehouse.Span{{target, other}, {target}} { // the second: a retried export
		if err := st.WriteSpans(ctx, b); err != nil {
			t.Fatal(err)
		}
	}
	if err := st.AppendEvaluations(ctx, "e", []warehouse.SpanEvaluations{{TraceID: "t", SpanID: "s", Timestamp: ts,
		Evaluations: []warehouse.Evaluation{backfilled}}}); err != nil {
		t.Fatal(err)
	}
	if err := st.WriteSpans(ctx, []warehouse.Span{target}); err != nil { // retried again after the append
		t.Fatal(err)
	}
	want := []warehouse.Evaluation{live, backfilled}
	week := warehouse.SpanQuery{Environments: []string{"e"}, FromMs: 6 * weekMs, ToMs: 7*weekMs - 1}
	queries := map[string]warehouse.SpanQuery{
		"week":           week,
		"user.id equals": withFilter(week, warehouse.Filter{Field: "user.id", Operator: warehouse.OpEquals, Value: "u1"}),
		"trace_id":       withFilter(week, warehouse.Filter{Field: "trace_id", Operator: warehouse.OpEquals, Value: "t"}),
		"limit 1":        func() warehouse.SpanQuery { q := week; q.Limit = 1; return q }(),
	}
	check := func(t *testing.T) {
		for name, q := range queries {
			var got []warehouse.Span
			var total int64
			for page := 0; ; page++ {
				p, err := st.QuerySpans(ctx, q)
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				if page == 0 {
					total = p.TotalResults
				}
				got = append(got, p.Spans...)
				if p.NextCursor == "" || page > 5 {
					break
				}
				q.Cursor = p.NextCursor
			}
			ids := make([]string, len(got))
			for i, sp := range got {
				ids[i] = sp.SpanID
				if sp.SpanID == "s" && !reflect.DeepEqual(sp.Evaluations, want) {
					t.Errorf("%s: span s evaluations %+v, want %+v", name, sp.Evaluations, want)
				}
				if sp.SpanID == "o" && len(sp.Evaluations) != 0 {
					t.Errorf("%s: span o gained evaluations %+v", name, sp.Evaluations)
				}
			}
			slices.Sort(ids)
			if !slices.Equal(ids, []string{"o", "s"}) || total != 2 {
				t.Errorf("%s: spans %v (total %d), want [o s] (total 2)", name, ids, total)
			}
		}
	}
	t.Run("unmerged", check)
	if err := st.conn.Exec(ctx, "OPTIMIZE TABLE "+st.schema.table("spans")+" FINAL"); err != nil {
		t.Fatal(err)
	}
	t.Run("merged", check)
}

func withFilter(q warehouse.SpanQuery, f warehouse.Filter) warehouse.SpanQuery {
	q.Filters = append(slices.Clone(q.Filters), f)
	return q
}
