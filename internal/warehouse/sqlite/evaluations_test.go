package sqlite

import (
	"context"
	"errors"
	"reflect"
	"testing"

	"github.com/evalcol/evalcol/internal/warehouse"
)

func TestAppendEvaluations(t *testing.T) {
	live := warehouse.Evaluation{Name: "char-count", MonitorID: "live", ScoreValue: 3, Output: map[string]any{"char_count": 3.0}}
	tox := warehouse.Evaluation{Name: "toxicity-detector", MonitorID: "setup-1", ScoreValue: 1, ScoreLabel: "safe"}
	tox2 := warehouse.Evaluation{Name: "toxicity-detector", MonitorID: "setup-1", ScoreValue: 0, ScoreLabel: "toxic"}
	tests := []struct {
		name    string
		appends [][]warehouse.SpanEvaluations
		// want are the evaluations of span s1 in env "prod" afterwards.
		want []warehouse.Evaluation
	}{
		{"by timestamp", [][]warehouse.SpanEvaluations{{{TraceID: "t1", SpanID: "s1", Timestamp: 5000, Evaluations: []warehouse.Evaluation{tox}}}},
			[]warehouse.Evaluation{live, tox}},
		{"without timestamp", [][]warehouse.SpanEvaluations{{{TraceID: "t1", SpanID: "s1", Evaluations: []warehouse.Evaluation{tox}}}},
			[]warehouse.Evaluation{live, tox}},
		{"twice is idempotent", [][]warehouse.SpanEvaluations{
			{{TraceID: "t1", SpanID: "s1", Timestamp: 5000, Evaluations: []warehouse.Evaluation{tox}}},
			{{TraceID: "t1", SpanID: "s1", Timestamp: 5000, Evaluations: []warehouse.Evaluation{tox}}},
		}, []warehouse.Evaluation{live, tox}},
		{"again replaces", [][]warehouse.SpanEvaluations{
			{{TraceID: "t1", SpanID: "s1", Timestamp: 5000, Evaluations: []warehouse.Evaluation{tox}}},
			{{TraceID: "t1", SpanID: "s1", Timestamp: 5000, Evaluations: []warehouse.Evaluation{tox2}}},
		}, []warehouse.Evaluation{live, tox2}},
		{"wrong timestamp finds nothing", [][]warehouse.SpanEvaluations{{{TraceID: "t1", SpanID: "s1", Timestamp: 6000, Evaluations: []warehouse.Evaluation{tox}}}},
			[]warehouse.Evaluation{live}},
		{"unknown span skipped", [][]warehouse.SpanEvaluations{{
			{TraceID: "t9", SpanID: "s9", Evaluations: []warehouse.Evaluation{tox}},
			{TraceID: "t1", SpanID: "s1", Timestamp: 5000, Evaluations: []warehouse.Evaluation{tox}},
		}}, []warehouse.Evaluation{live, tox}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			st := openTemp(t)
			defer st.Close()
			spans := []warehouse.Span{
				{Environment: "prod", TraceID: "t1", SpanID: "s1", Timestamp: 5000, Evaluations: []warehouse.Evaluation{live}},
				{Environment: "prod", TraceID: "t1", SpanID: "s2", Timestamp: 5000},
				{Environment: "staging", TraceID: "t1", SpanID: "s1", Timestamp: 5000},
			}
			if err := st.WriteSpans(ctx, spans); err != nil {
				t.Fatal(err)
			}
			for _, a := range tt.appends {
				if err := st.AppendEvaluations(ctx, "prod", a); err != nil {
					t.Fatalf("AppendEvaluations: %v", err)
				}
			}
			got := map[string][]warehouse.Evaluation{}
			for _, env := range []string{"prod", "staging"} {
				page, err := st.QuerySpans(ctx, warehouse.SpanQuery{Environments: []string{env}})
				if err != nil {
					t.Fatal(err)
				}
				for _, sp := range page.Spans {
					got[env+"/"+sp.SpanID] = sp.Evaluations
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

func TestAppendEvaluationsClosed(t *testing.T) {
	st := openTemp(t)
	st.Close()
	err := st.AppendEvaluations(context.Background(), "prod", []warehouse.SpanEvaluations{{TraceID: "t", SpanID: "s"}})
	if !errors.Is(err, warehouse.ErrUnavailable) || err.Error() != "append evaluations: store closed: warehouse unavailable" {
		t.Errorf("err = %v, want append evaluations: store closed: warehouse unavailable", err)
	}
}
