package setups

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/collector/component/componenttest"

	"github.com/evalcol/evalcol/extension/evalapiextension/internal/customevaluators"
	"github.com/evalcol/evalcol/internal/judge"
	"github.com/evalcol/evalcol/internal/monitor"
	"github.com/evalcol/evalcol/internal/tenant"
	"github.com/evalcol/evalcol/internal/warehouse"
	"github.com/evalcol/evalcol/internal/warehouse/sqlite"
)

// projectEvaluators is the custom evaluators of one project.
type projectEvaluators struct {
	project string
	byName  map[string]customevaluators.Version
	err     error
}

func (p projectEvaluators) Resolve(_ context.Context, t tenant.Tenant, ref string) (customevaluators.Version, error) {
	if p.err != nil {
		return customevaluators.Version{}, p.err
	}
	if v, ok := p.byName[ref]; ok && t.ProjectScope() == p.project {
		return v, nil
	}
	return customevaluators.Version{}, warehouse.ErrNotFound
}

func TestSetupBindsCustomEvaluators(t *testing.T) {
	st, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "w.db"), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	compiler, err := monitor.NewCompiler(componenttest.NewNopTelemetrySettings())
	if err != nil {
		t.Fatal(err)
	}
	acme := tenant.Tenant{Environment: "prod", OrganizationID: "acme", ProjectID: "shop"}
	custom := projectEvaluators{project: acme.ProjectScope(), byName: map[string]customevaluators.Version{
		"no-refund-promise": {ID: "ce_0123", Slug: "no-refund-promise", Version: 2, Definition: customevaluators.Definition{
			InputSchema:  []judge.Field{{Name: "completion", Type: "string"}},
			OutputSchema: []judge.Field{{Name: "passed", Type: "boolean"}},
		}},
	}}
	svc := NewService(Options{Store: st, Compiler: compiler, Monitors: &monitor.Set{}, Poll: time.Hour, Custom: custom})
	r, err := ParseRequest([]byte(`{"entity_type":"workflow","entity_value":"support","evaluators":["no-refund-promise","word-count","refund-tone"]}`))
	if err != nil {
		t.Fatal(err)
	}
	s, err := svc.Create(context.Background(), acme, r)
	if err != nil {
		t.Fatal(err)
	}
	b := s.Evaluators
	if len(b) != 3 || b[0].EvaluatorID != "ce_0123" || b[0].EvaluatorType != "no-refund-promise" || b[0].Status == BindingFailed ||
		len(b[0].InputSchema) != 1 || b[0].InputSchema[0].Name != "completion" || len(b[0].OutputSchema) != 1 {
		t.Fatalf("bindings = %+v, want the custom evaluator bound by id with its schemas", b)
	}
	if b[2].Status != BindingFailed || !strings.Contains(b[2].ErrorMessage, `"refund-tone"`) || !strings.Contains(b[2].ErrorMessage, "custom evaluator of this project") {
		t.Errorf("unknown binding = %+v, want failed naming it", b[2])
	}
	sp, err := spec(s)
	if err != nil {
		t.Fatal(err)
	}
	if len(sp.Evaluators) != 2 || !sp.Evaluators[0].Custom || sp.Evaluators[0].Slug != "no-refund-promise" || sp.Evaluators[1].Custom {
		t.Errorf("monitor spec evaluators = %+v, want the custom one marked", sp.Evaluators)
	}
	m, err := compiler.Compile(sp)
	if err != nil || !m.Evaluators[0].Custom || m.Evaluators[0].Def != nil {
		t.Errorf("compiled = %+v, %v", m, err)
	}

	// Another project's key does not see acme's evaluator.
	other := tenant.Tenant{Environment: "prod", OrganizationID: "globex", ProjectID: "shop"}
	s2, err := svc.Create(context.Background(), other, r)
	if err != nil {
		t.Fatal(err)
	}
	if s2.Evaluators[0].Status != BindingFailed {
		t.Errorf("another organization bound acme's evaluator: %+v", s2.Evaluators[0])
	}

	// A warehouse failure while resolving fails the request, nothing stored.
	n, _ := st.CountSetups(context.Background(), "prod")
	down := NewService(Options{Store: st, Compiler: compiler, Monitors: &monitor.Set{}, Poll: time.Hour,
		Custom: projectEvaluators{err: errors.New("warehouse down")}})
	if _, err := down.Create(context.Background(), acme, r); err == nil || !strings.Contains(err.Error(), "warehouse down") {
		t.Errorf("create with the warehouse down = %v", err)
	}
	if m, _ := st.CountSetups(context.Background(), "prod"); m != n {
		t.Errorf("setups %d -> %d after a failed create", n, m)
	}
}

func TestTraceLevelSetups(t *testing.T) {
	st, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "w.db"), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	compiler, err := monitor.NewCompiler(componenttest.NewNopTelemetrySettings())
	if err != nil {
		t.Fatal(err)
	}
	svc := NewService(Options{Store: st, Compiler: compiler, Monitors: &monitor.Set{}, Poll: time.Hour})
	acme := tenant.Tenant{Environment: "prod", OrganizationID: "acme", ProjectID: "shop"}
	r, err := ParseRequest([]byte(`{"entity_type":"workflow","entity_value":"trip_agent","evaluators":["agent-efficiency"],"level":"trace","quiet_period_sec":5}`))
	if err != nil {
		t.Fatal(err)
	}
	created, err := svc.Create(context.Background(), acme, r)
	if err != nil {
		t.Fatal(err)
	}
	got, err := svc.Get(context.Background(), acme, created.ID)
	if err != nil || got.Level != LevelTrace || got.QuietPeriodSec != 5 {
		t.Fatalf("stored setup = %+v, %v; want level trace, quiet 5 s", got, err)
	}
	sp, err := spec(got)
	if err != nil || !sp.Trace || sp.QuietPeriod != 5*time.Second {
		t.Errorf("monitor spec = %+v, %v; want a trace-level monitor", sp, err)
	}
	// An update of other fields keeps the level.
	u, err := ParseUpdate([]byte(`{"sample_rate": 0.5}`))
	if err != nil {
		t.Fatal(err)
	}
	updated, err := svc.Update(context.Background(), acme, created.ID, u)
	if err != nil || updated.Level != LevelTrace || updated.QuietPeriodSec != 5 || updated.SampleRate != 0.5 {
		t.Errorf("updated = %+v, %v", updated, err)
	}
	for body, want := range map[string]string{
		`{"evaluators":["agent-efficiency"],"level":"session"}`:                                        `level: must be "span"`,
		`{"evaluators":["agent-efficiency"],"quiet_period_sec":5}`:                                     `quiet_period_sec: only a setup of level "trace"`,
		`{"evaluators":["agent-efficiency"],"level":"trace","quiet_period_sec":0}`:                     "quiet_period_sec: must be an integer between 1 and 3600",
		`{"evaluators":["agent-efficiency"],"level":"trace","backfill_from_timestamp_sec":1700000000}`: "backfill_from_timestamp_sec: a setup of level \"trace\" is not backfilled",
	} {
		if _, err := ParseRequest([]byte(body)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", body, err, want)
		}
	}
}
