package storetest

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/evalcol/evalcol/internal/warehouse"
)

// verdictFixture: spans with evaluation results of several verdicts, one
// without any, one of another environment.
func verdictFixture() []warehouse.Span {
	ev := func(name, verdict string) warehouse.Evaluation {
		e := warehouse.Evaluation{Name: name, Verdict: verdict, MonitorID: "m"}
		if verdict == warehouse.VerdictError {
			e.Error = "timeout: evaluation timed out"
		}
		return e
	}
	v1 := span("v", "v1", 1)
	v1.Evaluations = []warehouse.Evaluation{ev("toxicity-detector", "fail"), ev("pii-detector", "pass")}
	v2 := span("v", "v2", 2)
	v2.Evaluations = []warehouse.Evaluation{ev("toxicity-detector", "pass"), ev("pii-detector", "fail")}
	v3 := span("v", "v3", 3)
	v3.Evaluations = []warehouse.Evaluation{ev("toxicity-detector", "pass"), ev("secrets-detector", "error")}
	v4 := span("v", "v4", 4) // no evaluation
	v5 := span("v", "v5", 5)
	// An application's own result: no verdict; a name with the index's
	// separators and one that ends like another's.
	v5.Evaluations = []warehouse.Evaluation{ev("my judge\x1fpass\x1e", ""), ev("x-toxicity-detector", "fail")}
	other := span("other", "o1", 1)
	other.Evaluations = []warehouse.Evaluation{ev("toxicity-detector", "fail")}
	return []warehouse.Span{v1, v2, v3, v4, v5, other}
}

func testVerdictFilters(t *testing.T, open Opener) {
	st := openStore(t, open)
	writeSpans(t, st, verdictFixture()...)
	type F = warehouse.Filter
	for _, tc := range []struct {
		name   string
		filter F
		want   []string
	}{
		{"failed evaluator", F{Field: "verdict.toxicity-detector", Operator: warehouse.OpEquals, Value: "fail"}, []string{"v1"}},
		{"passed evaluator", F{Field: "verdict.toxicity-detector", Operator: warehouse.OpEquals, Value: "pass"}, []string{"v2", "v3"}},
		{"any failing evaluation", F{Field: "verdict", Operator: warehouse.OpEquals, Value: "fail"}, []string{"v1", "v2", "v5"}},
		{"any error", F{Field: "verdict", Operator: warehouse.OpEquals, Value: "error"}, []string{"v3"}},
		{"fail or error", F{Field: "verdict", Operator: warehouse.OpIn, Values: []string{"fail", "error"}}, []string{"v1", "v2", "v3", "v5"}},
		{"no failing evaluation", F{Field: "verdict", Operator: warehouse.OpNotEquals, Value: "fail"}, []string{"v3", "v4"}},
		{"evaluator not failed", F{Field: "verdict.pii-detector", Operator: warehouse.OpNotIn, Values: []string{"fail"}}, []string{"v1", "v3", "v4", "v5"}},
		{"has a result of evaluator", F{Field: "verdict.secrets-detector", Operator: warehouse.OpExists}, []string{"v3"}},
		{"has no result of evaluator", F{Field: "verdict.pii-detector", Operator: warehouse.OpNotExists}, []string{"v3", "v4", "v5"}},
		{"has any result", F{Field: "verdict", Operator: warehouse.OpExists}, []string{"v1", "v2", "v3", "v5"}},
		{"has no result", F{Field: "verdict", Operator: warehouse.OpNotExists}, []string{"v4"}},
		{"name with separators has no verdict", F{Field: "verdict.my judgepass", Operator: warehouse.OpEquals, Value: "pass"}, []string{}},
		{"name with separators has a result", F{Field: "verdict.my judgepass", Operator: warehouse.OpExists}, []string{"v5"}},
		{"unknown evaluator", F{Field: "verdict.nope", Operator: warehouse.OpEquals, Value: "fail"}, []string{}},
		{"span attribute named verdict", F{Field: "span_attributes.verdict", Operator: warehouse.OpExists}, []string{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := ids(allPages(t, st, warehouse.SpanQuery{Environments: []string{"v"}, Filters: []F{tc.filter}}))
			if !equalSets(got, tc.want) {
				t.Errorf("%+v: got %v, want %v", tc.filter, got, tc.want)
			}
		})
	}
	t.Run("read back", func(t *testing.T) {
		page := querySpans(t, st, warehouse.SpanQuery{Environments: []string{"v"},
			Filters: []F{{Field: "span_id", Operator: warehouse.OpEquals, Value: "v1"}}})
		if len(page.Spans) != 1 || len(page.Spans[0].Evaluations) != 2 || page.Spans[0].Evaluations[0].Verdict != "fail" {
			t.Fatalf("v1 read back as %+v", page.Spans)
		}
	})
	t.Run("bad filters", func(t *testing.T) {
		for _, f := range []F{
			{Field: "verdict", Operator: warehouse.OpContains, Value: "fail"},
			{Field: "verdict.toxicity-detector", Operator: warehouse.OpEquals, Value: "maybe"},
			{Field: "verdict", Operator: warehouse.OpIn, Values: []string{"fail", "FAIL"}},
			{Field: "verdict", Operator: warehouse.OpGreaterThan, Value: "1"},
		} {
			_, err := st.QuerySpans(context.Background(), warehouse.SpanQuery{Environments: []string{"v"}, Filters: []F{f}})
			var qe *warehouse.QueryError
			if !errors.As(err, &qe) || qe.Field != "filters[0]" || !strings.Contains(qe.Msg, "verdict") && !strings.Contains(qe.Msg, "operator") {
				t.Errorf("%+v: error %v, want a QueryError on filters[0]", f, err)
			}
		}
	})
	app, ok := st.(warehouse.EvaluationAppender)
	if !ok {
		return
	}
	t.Run("appended evaluations", func(t *testing.T) {
		// v4 gets a failing result, v1's toxicity result is replaced by a
		// passing one of the same monitor.
		if err := app.AppendEvaluations(context.Background(), "v", []warehouse.SpanEvaluations{
			{TraceID: "trace-v4", SpanID: "v4", Timestamp: base + 4, Evaluations: []warehouse.Evaluation{{Name: "toxicity-detector", Verdict: "fail", MonitorID: "m"}}},
			{TraceID: "trace-v1", SpanID: "v1", Timestamp: base + 1, Evaluations: []warehouse.Evaluation{{Name: "toxicity-detector", Verdict: "pass", MonitorID: "m"}}},
		}); err != nil {
			t.Fatal(err)
		}
		got := ids(allPages(t, st, warehouse.SpanQuery{Environments: []string{"v"},
			Filters: []F{{Field: "verdict.toxicity-detector", Operator: warehouse.OpEquals, Value: "fail"}}}))
		if !equalSets(got, []string{"v4"}) {
			t.Errorf("failed toxicity after the append: %v, want [v4]", got)
		}
	})
}

func equalSets(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	seen := map[string]int{}
	for _, s := range a {
		seen[s]++
	}
	for _, s := range b {
		seen[s]--
	}
	for _, n := range seen {
		if n != 0 {
			return false
		}
	}
	return true
}
