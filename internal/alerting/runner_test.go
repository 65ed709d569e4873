package alerting_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/evalcol/evalcol/evaluators"
	"github.com/evalcol/evalcol/internal/alerting"
	"github.com/evalcol/evalcol/internal/alerting/alertingtest"
	"github.com/evalcol/evalcol/internal/warehouse"
	"github.com/evalcol/evalcol/internal/warehouse/clickhouse"
	"github.com/evalcol/evalcol/internal/warehouse/sqlite"
)

// events lists the notifications rc accepted as environment:event.
func events(rc *alertingtest.Receiver) []string {
	var out []string
	for _, p := range rc.Payloads() {
		out = append(out, p.Environment+":"+p.Event)
	}
	return out
}

// writeResults stores n evaluation results of toxicity-detector in env at
// t, pass of them passing.
func writeResults(t *testing.T, st warehouse.Store, env string, at time.Time, n, pass int) {
	t.Helper()
	d, _ := evaluators.Lookup("toxicity-detector")
	var pts []warehouse.MetricPoint
	for i := range n {
		verdict, v := "fail", 0.0
		if i < pass {
			verdict, v = "pass", 1.0
		}
		pts = append(pts, warehouse.MetricPoint{Environment: env, MetricName: d.Slug + "." + d.Score, Source: warehouse.SourceEvaluator,
			EventTime: at.UnixMilli() + int64(i), SpanID: fmt.Sprintf("%016x", at.UnixNano()+int64(i)), NumericValue: &v,
			Labels: map[string]string{"evaluator_name": d.Slug, "verdict": verdict, "workflow": "chat"}})
	}
	if err := st.WriteMetricPoints(context.Background(), pts); err != nil {
		t.Fatal(err)
	}
}

func putRule(t *testing.T, st warehouse.Store, env, id string, r alerting.Rule) {
	t.Helper()
	body, _ := json.Marshal(r)
	if err := st.CreateDocument(context.Background(), warehouse.Document{Kind: alerting.RuleKind, Scope: env, ID: id, Body: body}); err != nil {
		t.Fatal(err)
	}
}

func stores(t *testing.T) map[string]warehouse.Store {
	out := map[string]warehouse.Store{}
	sq, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "w.db"), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = sq.Close() })
	out["sqlite"] = sq
	if addr := os.Getenv("EVALCOL_CLICKHOUSE_ADDR"); addr != "" {
		opts := clickhouse.Options{Addr: addr, Database: fmt.Sprintf("evalcol_alerts_%x", time.Now().UnixNano())}
		t.Cleanup(func() { _ = clickhouse.DropDatabase(context.Background(), opts) })
		ch, err := clickhouse.Open(context.Background(), opts)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = ch.Close() })
		out["clickhouse"] = ch
	}
	return out
}

// TestRunnerFiresRepeatsResolves drives a pass-rate rule of one
// environment through fired → repeated → resolved against a real
// receiver (signature checked, one 503 retried), while the same rule in
// another environment, whose traffic is fine, stays quiet.
func TestRunnerFiresRepeatsResolves(t *testing.T) {
	for name, st := range stores(t) {
		t.Run(name, func(t *testing.T) {
			rc := alertingtest.NewReceiver(t, "s3cret")
			clock := time.Now().Add(-time.Hour).Truncate(time.Minute)
			rn := &alerting.Runner{Store: st.(alerting.Store), Holder: "c1", Interval: time.Minute, Settle: time.Millisecond,
				Now:      func() time.Time { return clock },
				Notifier: &alerting.Notifier{Webhooks: map[string]alerting.Webhook{"ops": {URL: rc.URL, Secret: "s3cret"}}, Backoff: time.Millisecond}}
			rule := alerting.Rule{Name: "toxicity drops", Kind: alerting.KindPassRate, Evaluator: "toxicity-detector", Workflow: "chat",
				Threshold: 90, WindowMinutes: 10, MinEvaluations: 5, RepeatMinutes: 20, Notify: []string{"ops"}}
			putRule(t, st, "prod", "r1", rule)
			putRule(t, st, "staging", "r2", rule)
			step := func(minutes int) {
				t.Helper()
				clock = clock.Add(time.Duration(minutes) * time.Minute)
				if err := rn.Tick(context.Background()); err != nil {
					t.Fatal(err)
				}
			}
			writeResults(t, st, "staging", clock.Add(-time.Minute), 10, 10)
			writeResults(t, st, "prod", clock.Add(-time.Minute), 10, 5) // 50 %
			rc.FailNext(1)
			step(0)  // fired (after one 503)
			step(5)  // still firing, no repeat
			step(16) // 21 min: repeat... but the window (10 min) is empty now: stays firing, no decision
			writeResults(t, st, "prod", clock.Add(-time.Minute), 10, 6)
			step(1) // 60 %: repeats (22 min since fired)
			writeResults(t, st, "prod", clock.Add(time.Second), 20, 20)
			step(2) // 26 of 30 pass = 86.7 %: still below 90
			clock = clock.Add(15 * time.Minute)
			writeResults(t, st, "prod", clock.Add(-time.Minute), 10, 10)
			step(0) // only the last 10 in the window: 100 %: resolved
			step(1)
			got := events(rc)
			want := []string{"prod:fired", "prod:repeated", "prod:resolved"}
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("notifications %v, want %v", got, want)
			}
			if n := rc.BadSignatures(); n > 0 {
				t.Errorf("%d notifications with a bad signature", n)
			}
			_, s, err := alerting.LoadState(context.Background(), st, "prod", "r1")
			if err != nil || s.Status != alerting.StatusOK || len(s.History) != 3 {
				t.Fatalf("prod state %+v, %v", s, err)
			}
			if d := s.History[0].Deliveries; len(d) != 1 || d[0].Attempts != 2 || d[0].Status != 200 {
				t.Errorf("the first delivery: %+v (want 200 after a retried 503)", d)
			}
			if _, s, _ := alerting.LoadState(context.Background(), st, "staging", "r2"); s.Status != alerting.StatusOK || len(s.History) != 0 {
				t.Errorf("staging state %+v", s)
			}
		})
	}
}

// TestTwoRunnersFireOnce: two collectors on one warehouse tick at once;
// each alert is delivered once.
func TestTwoRunnersFireOnce(t *testing.T) {
	for name, st := range stores(t) {
		t.Run(name, func(t *testing.T) {
			rc := alertingtest.NewReceiver(t, "k")
			now := time.Now()
			for i := range 3 {
				env := fmt.Sprintf("env-%d", i)
				putRule(t, st, env, "r", alerting.Rule{Name: "no traffic", Kind: alerting.KindNoSpans, WindowMinutes: 5, Notify: []string{"ops"}})
			}
			runner := func(holder string) *alerting.Runner {
				return &alerting.Runner{Store: st.(alerting.Store), Holder: holder, Interval: time.Minute, Settle: 300 * time.Millisecond,
					Now:      func() time.Time { return now },
					Notifier: &alerting.Notifier{Webhooks: map[string]alerting.Webhook{"ops": {URL: rc.URL, Secret: "k"}}}}
			}
			a, b := runner("collector-a"), runner("collector-b")
			for range 3 {
				var wg sync.WaitGroup
				for _, rn := range []*alerting.Runner{a, b} {
					wg.Add(1)
					go func() {
						defer wg.Done()
						if err := rn.Tick(context.Background()); err != nil {
							t.Error(err)
						}
					}()
				}
				wg.Wait()
				now = now.Add(time.Minute)
			}
			got := events(rc)
			if len(got) != 3 {
				t.Errorf("deliveries %v, want one fired per environment", got)
			}
			seen := map[string]bool{}
			for _, e := range got {
				if seen[e] {
					t.Errorf("%s delivered twice", e)
				}
				seen[e] = true
			}
		})
	}
}
