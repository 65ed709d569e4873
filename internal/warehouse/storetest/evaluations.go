package storetest

import (
	"context"
	"reflect"
	"testing"

	"github.com/evalcol/evalcol/internal/warehouse"
)

// testAppendEvaluations checks warehouse.EvaluationAppender (the backfill
// of auto monitor setups): evaluations land on the right span of the
// right environment, found by timestamp or without it; appending again is
// idempotent and replaces an evaluation of the same monitor and name; a
// retried write of the span neither hides nor duplicates them; the span is
// still counted once.
func testAppendEvaluations(t *testing.T, open Opener) {
	live := warehouse.Evaluation{Name: "char-count", MonitorID: "live", ScoreValue: 3, Output: map[string]any{"char_count": 3.0}}
	tox := warehouse.Evaluation{Name: "toxicity-detector", MonitorID: "setup-1", ScoreValue: 1, ScoreLabel: "safe"}
	tox2 := warehouse.Evaluation{Name: "toxicity-detector", MonitorID: "setup-1", ScoreValue: 0, ScoreLabel: "toxic"}
	ts := base + 5000
	s1 := func(e ...warehouse.Evaluation) warehouse.SpanEvaluations {
		return warehouse.SpanEvaluations{TraceID: "t1", SpanID: "s1", Timestamp: ts, Evaluations: e}
	}
	tests := []struct {
		name    string
		appends [][]warehouse.SpanEvaluations
		// rewrite writes the spans again (an exporter retry) after the appends.
		rewrite bool
		// want are the evaluations of span s1 in environment "prod" afterwards.
		want []warehouse.Evaluation
	}{
		{"by timestamp", [][]warehouse.SpanEvaluations{{s1(tox)}}, false, []warehouse.Evaluation{live, tox}},
		{"without timestamp", [][]warehouse.SpanEvaluations{{{TraceID: "t1", SpanID: "s1", Evaluations: []warehouse.Evaluation{tox}}}},
			false, []warehouse.Evaluation{live, tox}},
		{"twice is idempotent", [][]warehouse.SpanEvaluations{{s1(tox)}, {s1(tox)}}, false, []warehouse.Evaluation{live, tox}},
		{"again replaces", [][]warehouse.SpanEvaluations{{s1(tox)}, {s1(tox2)}}, false, []warehouse.Evaluation{live, tox2}},
		{"wrong timestamp finds nothing", [][]warehouse.SpanEvaluations{{{TraceID: "t1", SpanID: "s1", Timestamp: ts + 1000,
			Evaluations: []warehouse.Evaluation{tox}}}}, false, []warehouse.Evaluation{live}},
		{"unknown span skipped", [][]warehouse.SpanEvaluations{{{TraceID: "t9", SpanID: "s9", Evaluations: []warehouse.Evaluation{tox}}, s1(tox)}},
			false, []warehouse.Evaluation{live, tox}},
		{"retried span write keeps them", [][]warehouse.SpanEvaluations{{s1(tox)}}, true, []warehouse.Evaluation{live, tox}},
		{"nothing to add", [][]warehouse.SpanEvaluations{{s1()}, nil}, false, []warehouse.Evaluation{live}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			st := openStore(t, open)
			app, ok := st.(warehouse.EvaluationAppender)
			if !ok {
				t.Skipf("%T does not implement warehouse.EvaluationAppender", st)
			}
			spans := []warehouse.Span{
				{Environment: "prod", TraceID: "t1", SpanID: "s1", Timestamp: ts, SpanName: "chat", Evaluations: []warehouse.Evaluation{live}},
				{Environment: "prod", TraceID: "t1", SpanID: "s2", Timestamp: ts, SpanName: "tool"},
				{Environment: "staging", TraceID: "t1", SpanID: "s1", Timestamp: ts, SpanName: "chat"},
			}
			writeSpans(t, st, spans...)
			for _, a := range tt.appends {
				if err := app.AppendEvaluations(ctx, "prod", a); err != nil {
					t.Fatalf("AppendEvaluations: %v", err)
				}
			}
			if tt.rewrite {
				writeSpans(t, st, spans...)
			}
			got := map[string][]warehouse.Evaluation{}
			for _, env := range []string{"prod", "staging"} {
				page := querySpans(t, st, warehouse.SpanQuery{Environments: []string{env}, FromMs: base, ToMs: base + 60_000})
				want := map[string]int{"prod": 2, "staging": 1}[env]
				if len(page.Spans) != want || page.TotalResults != int64(want) {
					t.Fatalf("%s: %d spans, total_results %d, want %d of each", env, len(page.Spans), page.TotalResults, want)
				}
				for _, sp := range page.Spans {
					got[env+"/"+sp.SpanID] = sp.Evaluations
					if sp.SpanName == "" {
						t.Errorf("%s/%s came back without its fields: %+v", env, sp.SpanID, sp)
					}
				}
			}
			if !reflect.DeepEqual(got["prod/s1"], tt.want) {
				t.Errorf("prod/s1 evaluations = %+v, want %+v", got["prod/s1"], tt.want)
			}
			if len(got["prod/s2"]) != 0 || len(got["staging/s1"]) != 0 {
				t.Errorf("other spans changed: prod/s2 %+v, staging/s1 %+v", got["prod/s2"], got["staging/s1"])
			}
		})
	}
}
