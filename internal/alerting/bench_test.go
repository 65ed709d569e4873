package alerting_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/evalcol/evalcol/evaluators"
	"github.com/evalcol/evalcol/internal/alerting"
	"github.com/evalcol/evalcol/internal/warehouse"
	"github.com/evalcol/evalcol/internal/warehouse/sqlite"
)

// BenchmarkMeasure times one evaluation of a pass-rate rule (15 minutes
// of one evaluator and workflow) and of the scores page's whole-day query
// shape on a SQLite warehouse holding EVALCOL_BENCH_POINTS evaluation
// points (default 200 000) spread over a day, 5 evaluators and 20
// workflows: the cost the runner adds per rule and minute.
func BenchmarkMeasure(b *testing.B) {
	n := 200_000
	if s := os.Getenv("EVALCOL_BENCH_POINTS"); s != "" {
		n, _ = strconv.Atoi(s)
	}
	ctx := context.Background()
	st, err := sqlite.Open(ctx, filepath.Join(b.TempDir(), "w.db"), sqlite.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	now := time.Now().Truncate(time.Minute)
	slugs := []string{"toxicity-detector", "pii-detector", "secrets-detector", "prompt-injection", "char-count"}
	batch := make([]warehouse.MetricPoint, 0, 5000)
	for i := range n {
		d, _ := evaluators.Lookup(slugs[i%len(slugs)])
		v := float64(i % 2)
		verdict := "pass"
		if i%10 == 0 {
			verdict = "fail"
		}
		batch = append(batch, warehouse.MetricPoint{Environment: "prod", MetricName: d.Slug + "." + d.Score, Source: warehouse.SourceEvaluator,
			EventTime: now.Add(-time.Duration(i%86400) * time.Second).UnixMilli(), SpanID: fmt.Sprintf("%016x", i), NumericValue: &v,
			Labels: map[string]string{"evaluator_name": d.Slug, "verdict": verdict, "workflow": fmt.Sprintf("wf-%d", i%20)}})
		if len(batch) == cap(batch) || i == n-1 {
			if err := st.WriteMetricPoints(ctx, batch); err != nil {
				b.Fatal(err)
			}
			batch = batch[:0]
		}
	}
	for _, tc := range []struct {
		name string
		rule alerting.Rule
	}{
		{"pass_rate_15m_workflow", alerting.Rule{Kind: alerting.KindPassRate, Evaluator: "toxicity-detector", Workflow: "wf-3", WindowMinutes: 15, MinEvaluations: 1}},
		{"pass_rate_24h", alerting.Rule{Kind: alerting.KindPassRate, Evaluator: "toxicity-detector", WindowMinutes: 1440, MinEvaluations: 1}},
		{"no_spans_5m", alerting.Rule{Kind: alerting.KindNoSpans, WindowMinutes: 5}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			for b.Loop() {
				if _, err := alerting.Measure(ctx, st, "prod", tc.rule, now); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
