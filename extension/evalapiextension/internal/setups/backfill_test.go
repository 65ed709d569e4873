package setups

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/evalcol/evalcol/internal/monitor"
	"github.com/evalcol/evalcol/internal/spanconv"
	"github.com/evalcol/evalcol/internal/tenant"
	"github.com/evalcol/evalcol/internal/warehouse"
	"github.com/evalcol/evalcol/internal/warehouse/sqlite"
)

var prod = tenant.Tenant{Environment: "prod", OrganizationID: "acme", ProjectID: "web"}

// storedSpan describes one ingested span.
type storedSpan struct {
	env, workflow, completion string
	age                       time.Duration // start time before now
}

// ingest writes spans the way the warehouse exporter does: pdata through
// spanconv. Span i gets span id i+1 and its own trace.
func ingest(t *testing.T, st warehouse.Store, spans []storedSpan) {
	t.Helper()
	td := ptrace.NewTraces()
	for i, s := range spans {
		rs := td.ResourceSpans().AppendEmpty()
		rs.Resource().Attributes().PutStr("service.name", "jokes")
		rs.Resource().Attributes().PutStr("deployment.environment.name", s.env)
		sp := rs.ScopeSpans().AppendEmpty().Spans().AppendEmpty()
		sp.SetTraceID(pcommon.TraceID{0xaa, byte(i + 1)})
		sp.SetSpanID(pcommon.SpanID{0, 0, 0, 0, 0, 0, 0, byte(i + 1)})
		sp.SetName("openai.chat")
		start := time.Now().Add(-s.age)
		sp.SetStartTimestamp(pcommon.NewTimestampFromTime(start))
		sp.SetEndTimestamp(pcommon.NewTimestampFromTime(start.Add(time.Second)))
		a := sp.Attributes()
		a.PutStr("traceloop.workflow.name", s.workflow)
		a.PutStr("gen_ai.prompt.0.role", "user")
		a.PutStr("gen_ai.prompt.0.content", "Tell me a joke")
		a.PutStr("gen_ai.completion.0.role", "assistant")
		a.PutStr("gen_ai.completion.0.content", s.completion)
	}
	if err := st.WriteSpans(context.Background(), spanconv.Traces(td, spanconv.Options{}).Spans); err != nil {
		t.Fatal(err)
	}
}

// fixture is the standard warehouse content: three spans of workflow
// "jokes" in prod inside the window, and spans the backfill must not touch.
var fixture = []storedSpan{
	{"prod", "jokes", "a", 10 * time.Minute},           // span 1
	{"prod", "jokes", "bb", 20 * time.Minute},          // span 2
	{"prod", "jokes", "ccc", 30 * time.Minute},         // span 3
	{"prod", "jokes", "too old", 3 * time.Hour},        // span 4: before the window
	{"prod", "weather", "other workflow", time.Minute}, // span 5
	{"staging", "jokes", "other env", time.Minute},     // span 6
}

func openStore(t *testing.T) *sqlite.Store {
	t.Helper()
	st, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "w.db"), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

func newBackfillService(t *testing.T, st warehouse.SetupStore, opts BackfillOptions) *Service {
	t.Helper()
	compiler, err := monitor.NewCompiler(componenttest.NewNopTelemetrySettings())
	if err != nil {
		t.Fatal(err)
	}
	opts.RetryDelay = time.Millisecond
	svc := NewService(Options{Store: st, Compiler: compiler, Monitors: &monitor.Set{}, Poll: 20 * time.Millisecond, Backfill: opts})
	svc.Start(context.Background())
	t.Cleanup(svc.Shutdown)
	return svc
}

func request(t *testing.T, externalID string, backfillFrom time.Time) Request {
	t.Helper()
	r, err := ParseRequest(fmt.Appendf(nil, `{"entity_type":"workflow","entity_value":"jokes","external_id":%q,
		"evaluators":["char-count"],"backfill_from_timestamp_sec":%d}`, externalID, backfillFrom.Unix()))
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// waitSetup polls the setup until cond holds and returns it.
func waitSetup(t *testing.T, st warehouse.SetupStore, id, what string, cond func(warehouse.MonitorSetup) bool) warehouse.MonitorSetup {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		s, err := st.GetSetup(context.Background(), "prod", id)
		if err == nil && cond(s) {
			return s
		}
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s; setup %+v backfill %+v (err %v)", what, s, s.Backfill, err)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func backfillIs(status string) func(warehouse.MonitorSetup) bool {
	return func(s warehouse.MonitorSetup) bool { return s.Backfill != nil && s.Backfill.Status == status }
}

// evaluationsBySpan returns the evaluations of every stored span, keyed
// env/span id.
func evaluationsBySpan(t *testing.T, st warehouse.Store) map[string][]warehouse.Evaluation {
	t.Helper()
	out := map[string][]warehouse.Evaluation{}
	for _, env := range []string{"prod", "staging"} {
		page, err := st.QuerySpans(context.Background(), warehouse.SpanQuery{Environments: []string{env}, Limit: 100})
		if err != nil {
			t.Fatal(err)
		}
		for _, sp := range page.Spans {
			out[env+"/"+sp.SpanID] = sp.Evaluations
		}
	}
	return out
}

// monitorPoints returns the char-count points labelled with monitor id.
func monitorPoints(t *testing.T, st warehouse.Store, id string) []warehouse.MetricPoint {
	t.Helper()
	page, err := st.QueryMetrics(context.Background(), warehouse.MetricQuery{
		Environments: []string{"prod"}, FromMs: time.Now().Add(-5 * time.Hour).UnixMilli(), ToMs: time.Now().Add(time.Hour).UnixMilli(),
		Filters: []warehouse.Filter{{Field: "labels.monitor_id", Operator: warehouse.OpEquals, Value: id}}, Limit: 100,
	})
	if err != nil {
		t.Fatal(err)
	}
	var pts []warehouse.MetricPoint
	for _, g := range page.Groups {
		pts = append(pts, g.Points...)
	}
	return pts
}

func TestBackfillEvaluatesStoredSpans(t *testing.T) {
	st := openStore(t)
	ingest(t, st, fixture)
	svc := newBackfillService(t, st, BackfillOptions{PageSize: 2, Pause: time.Millisecond})
	ctx := context.Background()
	setup, err := svc.Create(ctx, prod, request(t, "jokes-1", time.Now().Add(-time.Hour)))
	if err != nil {
		t.Fatal(err)
	}
	if setup.Backfill == nil || setup.Backfill.Status != BackfillPending {
		t.Fatalf("created backfill = %+v, want pending", setup.Backfill)
	}
	got := waitSetup(t, st, setup.ID, "backfill done", backfillIs(BackfillDone))
	if b := got.Backfill; b.Scanned != 3 || b.Evaluated != 3 || b.Error != "" || b.FinishedAt == nil {
		t.Errorf("backfill = %+v, want 3 scanned, 3 evaluated, finished, no error", b)
	}
	waitSetup(t, st, setup.ID, "status in_progress", func(s warehouse.MonitorSetup) bool { return s.Status == StatusInProgress })

	evals := evaluationsBySpan(t, st)
	wantCount := map[string]float64{"prod/0000000000000001": 1, "prod/0000000000000002": 2, "prod/0000000000000003": 3}
	for key, ev := range evals {
		want, evaluated := wantCount[key]
		switch {
		case !evaluated && len(ev) != 0:
			t.Errorf("%s: evaluations %+v, want none", key, ev)
		case evaluated && (len(ev) != 1 || ev[0].MonitorID != setup.ID || ev[0].Name != "char-count" || ev[0].Output["char_count"] != want):
			t.Errorf("%s: evaluations %+v, want one char-count of %v by %s", key, ev, want, setup.ID)
		}
	}
	pts := monitorPoints(t, st, setup.ID)
	if len(pts) != 3 {
		t.Fatalf("got %d metric points for monitor %s, want 3: %+v", len(pts), setup.ID, pts)
	}
	for _, p := range pts {
		if p.NumericValue == nil || p.Labels["evaluator_name"] != "char-count" || p.Labels["workflow"] != "jokes" {
			t.Errorf("point %+v lacks the value or labels", p)
		}
	}

	// Asking again (PUT with a backfill) evaluates the same spans again
	// without duplicating evaluations or points.
	if _, err := svc.Update(ctx, prod, setup.ID, request(t, "jokes-1", time.Now().Add(-time.Hour))); err != nil {
		t.Fatal(err)
	}
	waitSetup(t, st, setup.ID, "second backfill done", func(s warehouse.MonitorSetup) bool {
		return s.Version > got.Version && s.Backfill != nil && s.Backfill.Status == BackfillDone
	})
	again := evaluationsBySpan(t, st)
	for key := range wantCount {
		if len(again[key]) != 1 {
			t.Errorf("%s after the second backfill: %d evaluations, want 1", key, len(again[key]))
		}
	}
	if n := len(monitorPoints(t, st, setup.ID)); n != 3 {
		t.Errorf("after the second backfill: %d points, want 3", n)
	}
}

// plainStore hides the SQLite store's AppendEvaluations, as a backend
// without it would.
// plainStore keeps setups only: a store that can neither read spans nor
// append evaluations (every warehouse.Store can, so only a setup store
// narrower than it can be such a backend).
type plainStore struct{ warehouse.SetupStore }

func TestBackfillFailures(t *testing.T) {
	tests := []struct {
		name      string
		store     func(*sqlite.Store) warehouse.SetupStore
		body      string
		wantError string
	}{
		{"backend cannot append", func(s *sqlite.Store) warehouse.SetupStore { return plainStore{s} },
			`{"entity_type":"workflow","entity_value":"jokes","external_id":"x","evaluators":["char-count"],"backfill_from_timestamp_sec":%d}`,
			"backfill is not supported by the plain warehouse"},
		{"no valid evaluator", func(s *sqlite.Store) warehouse.SetupStore { return s },
			`{"entity_type":"workflow","entity_value":"jokes","external_id":"x","evaluators":["no-such-evaluator"],"backfill_from_timestamp_sec":%d}`,
			"the setup has no valid evaluator"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sq := openStore(t)
			ingest(t, sq, fixture)
			st := tt.store(sq)
			svc := newBackfillService(t, st, BackfillOptions{Backend: "plain"})
			r, err := ParseRequest(fmt.Appendf(nil, tt.body, time.Now().Add(-time.Hour).Unix()))
			if err != nil {
				t.Fatal(err)
			}
			setup, err := svc.Create(context.Background(), prod, r)
			if err != nil {
				t.Fatal(err)
			}
			got := waitSetup(t, st, setup.ID, "backfill failed", backfillIs(BackfillFailed))
			if got.Backfill.Error != tt.wantError || got.Backfill.FinishedAt == nil || got.Backfill.Evaluated != 0 {
				t.Errorf("backfill = %+v, want failed with %q", got.Backfill, tt.wantError)
			}
			for key, ev := range evaluationsBySpan(t, sq) {
				if len(ev) != 0 {
					t.Errorf("%s got evaluations %+v", key, ev)
				}
			}
		})
	}
}

// TestBackfillOneAtATimeAndRestart checks that a collector runs one
// backfill at a time, and that a backfill interrupted by shutdown goes back
// to pending and runs to the end under the next collector.
func TestBackfillOneAtATimeAndRestart(t *testing.T) {
	st := openStore(t)
	ingest(t, st, fixture)
	ctx := context.Background()
	compiler, err := monitor.NewCompiler(componenttest.NewNopTelemetrySettings())
	if err != nil {
		t.Fatal(err)
	}
	// One span per page and an hour between pages: the first backfill
	// stays running after its first page.
	slow := NewService(Options{Store: st, Compiler: compiler, Monitors: &monitor.Set{}, Poll: 20 * time.Millisecond,
		Backfill: BackfillOptions{PageSize: 1, Pause: time.Hour}})
	slow.Start(ctx)
	first, err := slow.Create(ctx, prod, request(t, "first", time.Now().Add(-time.Hour)))
	if err != nil {
		t.Fatal(err)
	}
	waitSetup(t, st, first.ID, "first backfill past its first page", func(s warehouse.MonitorSetup) bool {
		return s.Backfill.Status == BackfillRunning && s.Backfill.Scanned == 1
	})
	second, err := slow.Create(ctx, prod, request(t, "second", time.Now().Add(-time.Hour)))
	if err != nil {
		t.Fatal(err)
	}
	waitSetup(t, st, second.ID, "second setup loaded", func(s warehouse.MonitorSetup) bool { return s.Status == StatusWaitingForSpans })
	time.Sleep(50 * time.Millisecond) // a few reloads
	if s, _ := st.GetSetup(ctx, "prod", second.ID); s.Backfill.Status != BackfillPending {
		t.Errorf("second backfill %q while the first runs, want pending", s.Backfill.Status)
	}

	slow.Shutdown()
	for _, id := range []string{first.ID, second.ID} {
		s, _ := st.GetSetup(ctx, "prod", id)
		if s.Backfill.Status != BackfillPending || s.Backfill.Scanned != 0 {
			t.Errorf("after shutdown backfill of %s = %+v, want pending from scratch", id, s.Backfill)
		}
	}

	newBackfillService(t, st, BackfillOptions{})
	for _, id := range []string{first.ID, second.ID} {
		got := waitSetup(t, st, id, "backfill done after restart", backfillIs(BackfillDone))
		if got.Backfill.Scanned != 3 || got.Backfill.Evaluated != 3 {
			t.Errorf("backfill of %s after restart = %+v, want 3 scanned and evaluated", id, got.Backfill)
		}
	}
	for key, ev := range evaluationsBySpan(t, st) {
		if strings.HasPrefix(key, "prod/000000000000000") && key <= "prod/0000000000000003" && len(ev) != 2 {
			t.Errorf("%s: %d evaluations, want 2 (one per setup)", key, len(ev))
		}
	}
}

func TestEntityFilters(t *testing.T) {
	tests := []struct {
		entityType string
		want       string
	}{
		{monitor.EntityWorkflow, "span_attributes.traceloop.workflow.name"},
		{monitor.EntityEntity, "span_attributes.traceloop.entity.name"},
		{monitor.EntitySpan, "span_name"},
		{monitor.EntityService, "service_name"},
		{monitor.EntityAgent, ""},
		{monitor.EntityModel, ""},
	}
	for _, tt := range tests {
		t.Run(tt.entityType, func(t *testing.T) {
			fs := entityFilters(tt.entityType, "v")
			got := ""
			if len(fs) == 1 && fs[0].Operator == warehouse.OpEquals && fs[0].Value == "v" {
				got = fs[0].Field
			} else if len(fs) != 0 {
				t.Fatalf("filters = %+v", fs)
			}
			if got != tt.want {
				t.Errorf("filter field = %q, want %q", got, tt.want)
			}
		})
	}
}
