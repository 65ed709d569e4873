package console

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/evalcol/evalcol/internal/warehouse"
	"github.com/evalcol/evalcol/internal/warehouse/sqlite"
	"github.com/evalcol/evalcol/internal/warehouse/synthspans"
)

// The dashboards' benchmark warehouse: benchSpans() synthspans spans over 7
// days, each with a toxicity and a PII result (monitor "safety"), and the
// two score points per span the exporter writes for them (2 000 000 at
// the default size), labelled as spanconv labels them. Kept in the
// temporary directory and reused by later runs of the same size.
var (
	rollupOnce  sync.Once
	rollupErr   error
	rollupStore warehouse.Store
)

// evaluationPoints are the score points of sp's results, shaped like
// spanconv's (the labels the scores page and the monitors page read).
func evaluationPoints(sp *warehouse.Span) []warehouse.MetricPoint {
	var out []warehouse.MetricPoint
	end := sp.Timestamp + sp.Duration
	for _, ev := range sp.Evaluations {
		labels := map[string]string{"evaluator_name": ev.Name, "metric_source": warehouse.SourceEvaluator, "monitor_id": ev.MonitorID,
			"trace_id": sp.TraceID, "span_id": sp.SpanID, "service_name": sp.ServiceName, "environment": sp.Environment,
			"workflow": sp.WorkflowName, "model": sp.ResponseModel, "verdict": ev.Verdict}
		p := warehouse.MetricPoint{Environment: sp.Environment, Source: warehouse.SourceEvaluator, EventTime: end,
			TraceID: sp.TraceID, SpanID: sp.SpanID, Labels: labels, Attributes: sp.SpanAttributes}
		switch v := ev.Output[map[string]string{"toxicity-detector": "is_safe", "pii-detector": "has_pii"}[ev.Name]].(type) {
		case string:
			p.MetricName, p.EnumValue = ev.Name+".is_safe", &v
		case bool:
			p.MetricName, p.BoolValue = ev.Name+".has_pii", &v
		}
		out = append(out, p)
	}
	return out
}

func openRollupStore(b *testing.B) warehouse.Store {
	b.Helper()
	rollupOnce.Do(func() {
		n := benchSpans()
		path := filepath.Join(os.TempDir(), fmt.Sprintf("evalcol-console-rollups-bench-%d.db", n))
		_, statErr := os.Stat(path)
		ctx := context.Background()
		st, err := sqlite.Open(ctx, path, sqlite.Options{})
		if err != nil {
			rollupErr = err
			return
		}
		rollupStore = st
		if statErr == nil {
			return
		}
		g := synthspans.New(benchEnv, 7)
		rng := rand.New(rand.NewPCG(7, 11))
		start := time.Now()
		const batch = 10_000
		for done := 0; done < n; done += batch {
			k := min(batch, n-done)
			from := benchStart + (benchEnd-benchStart)*int64(done)/int64(n)
			to := benchStart + (benchEnd-benchStart)*int64(done+k)/int64(n)
			spans := g.Batch(k, from, to)
			var pts []warehouse.MetricPoint
			for i := range spans {
				spans[i].Evaluations = benchEvaluations(rng)
				pts = append(pts, evaluationPoints(&spans[i])...)
			}
			if err := st.WriteSpans(ctx, spans); err != nil {
				rollupErr = err
				return
			}
			if err := st.WriteMetricPoints(ctx, pts); err != nil {
				rollupErr = err
				return
			}
		}
		fmt.Fprintf(os.Stderr, "filled %s with %d spans and %d points in %s\n", path, n, 2*n, time.Since(start).Round(time.Second))
	})
	if rollupErr != nil {
		b.Fatal(rollupErr)
	}
	return rollupStore
}

func rollupConsole(b *testing.B) (*Console, *http.Cookie) {
	b.Helper()
	return consoleOver(b, openRollupStore(b))
}

// oldScores is what the scores page read before the counts: the same
// aggregates over the metric points (workflows, then evaluator × workflow
// × verdict by bucket).
func oldScores(ctx context.Context, st warehouse.Store, from, to, bucketMs int64) error {
	base := warehouse.MetricAggregateQuery{Environments: []string{benchEnv}, FromMs: from, ToMs: to, MetricSource: warehouse.SourceEvaluator,
		Filters: []warehouse.Filter{{Field: "metric_name", Operator: warehouse.OpIn, Values: []string{"toxicity-detector.is_safe", "pii-detector.has_pii"}}}}
	wq := base
	wq.GroupBy = []string{"workflow"}
	if _, err := st.AggregateMetrics(ctx, wq); err != nil {
		return err
	}
	q := base
	q.BucketMs, q.GroupBy = bucketMs, []string{"evaluator_name", "workflow", "verdict"}
	_, err := st.AggregateMetrics(ctx, q)
	return err
}

// oldLastEvaluation is the monitors page's lookup before the counts: the
// newest point labelled with the monitor id, over 7 days.
func oldLastEvaluation(ctx context.Context, st warehouse.Store, id string) error {
	_, err := st.QueryMetrics(ctx, warehouse.MetricQuery{
		Environments: []string{benchEnv}, FromMs: benchEnd - lastEvaluationWindow.Milliseconds(), MetricSource: warehouse.SourceEvaluator,
		Filters: []warehouse.Filter{{Field: warehouse.PrefixLabel + "monitor_id", Operator: warehouse.OpEquals, Value: id}},
		Desc:    true, Limit: 1,
	})
	return err
}

// BenchmarkDashboards measures, back to back over the same warehouse, the
// scores page's reads before the counts (old: aggregates over the points)
// and the whole scores page now (new: counts, rendering included), and
// the monitors page's last-evaluation lookup before and now:
//
//	go test -run '^$' -bench BenchmarkDashboards -benchtime 5x ./extension/evalapiextension/internal/console/
func BenchmarkDashboards(b *testing.B) {
	c, ck := rollupConsole(b)
	st := c.opts.Store
	ctx := context.Background()
	for _, r := range []struct {
		name     string
		from     int64
		bucketMs int64
	}{{"24h", benchEnd - 24*3600_000, 3600_000}, {"7d", benchEnd - 7*24*3600_000, 6 * 3600_000}} {
		from := r.from - r.from%r.bucketMs
		b.Run("scores "+r.name+"/old", func(b *testing.B) {
			var durations []time.Duration
			cpu0 := synthspans.CPUTime()
			for b.Loop() {
				start := time.Now()
				if err := oldScores(ctx, st, from, benchEnd, r.bucketMs); err != nil {
					b.Fatal(err)
				}
				durations = append(durations, time.Since(start))
			}
			report(b, durations, 0, cpu0)
		})
		b.Run("scores "+r.name+"/new", func(b *testing.B) {
			var durations []time.Duration
			bytes := 0
			cpu0 := synthspans.CPUTime()
			for b.Loop() {
				d, rec := serve(b, c, ck, "/ui/scores?range="+r.name)
				durations = append(durations, d)
				bytes = rec.Body.Len()
			}
			report(b, durations, bytes, cpu0)
		})
	}
	b.Run("monitors last evaluation/old", func(b *testing.B) {
		var durations []time.Duration
		cpu0 := synthspans.CPUTime()
		for b.Loop() {
			start := time.Now()
			if err := oldLastEvaluation(ctx, st, "safety"); err != nil {
				b.Fatal(err)
			}
			durations = append(durations, time.Since(start))
		}
		report(b, durations, 0, cpu0)
	})
	b.Run("monitors last evaluation/new", func(b *testing.B) {
		var durations []time.Duration
		cpu0 := synthspans.CPUTime()
		for b.Loop() {
			start := time.Now()
			last, err := c.lastEvaluations(ctx, benchEnv, []string{"safety"})
			if err != nil || last["safety"] == 0 {
				b.Fatalf("last evaluations %v, %v", last, err)
			}
			durations = append(durations, time.Since(start))
		}
		report(b, durations, 0, cpu0)
	})
}
