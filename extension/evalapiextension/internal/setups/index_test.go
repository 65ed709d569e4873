package setups

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/evalcol/evalcol/internal/monitor"
	"github.com/evalcol/evalcol/internal/warehouse"
)

// values are the few strings random setups and spans draw from, so that
// they often agree.
var values = []string{"a", "b", "c", "1", "true", `q"x`}

func pick[T any](r *rand.Rand, xs []T) T { return xs[r.IntN(len(xs))] }

// randomSetup is a setup of a random environment, entity (or none) and
// selector (rules of every source, operator and value type; some invalid,
// which spec rejects).
func randomSetup(r *rand.Rand, i int) warehouse.MonitorSetup {
	s := warehouse.MonitorSetup{
		ID: fmt.Sprint("setup-", i), ExternalID: fmt.Sprint("x", i),
		Environment: pick(r, []string{"prod", "staging", "dev"}),
		EntityType:  pick(r, []string{"workflow", "agent", "entity", "span", "service", "model"}),
		EntityValue: pick(r, values), SampleRate: 1,
		Evaluators: []warehouse.SetupBinding{{EvaluatorType: "char-count", Status: BindingActive}},
	}
	if r.IntN(8) == 0 {
		// A setup selected by its selector alone.
		s.EntityType, s.EntityValue = "", ""
	} else {
		s.InitRules = append(s.InitRules, warehouse.SetupInitRule{}) // the entity rule, not read by spec
	}
	for range r.IntN(4) {
		rule := warehouse.SetupInitRule{
			Op:        pick(r, []string{"equals", "equals", "equals", "not_equals", "contains", "starts_with", "in", "not_in", "exists", "not_exists", "greater_than"}),
			Source:    pick(r, []string{"", "span_attributes", "resource_attributes", "span_name", "scope_name", "service_name", "span_kind"}),
			Key:       pick(r, []string{"k1", "k2", "traceloop.workflow.name", "gen_ai.request.model", "service.name"}),
			Value:     pick(r, values),
			ValueType: pick(r, []string{"", "", "string", "number", "boolean"}),
		}
		if rule.Op == "in" || rule.Op == "not_in" {
			rule.Value = fmt.Sprintf(`[%q, %q]`, pick(r, values), pick(r, values))
		}
		if rule.Source == "span_kind" {
			rule.Value = pick(r, []string{"client", "SPAN_KIND_SERVER", "Internal"})
		}
		s.InitRules = append(s.InitRules, rule)
	}
	return s
}

// putRandom sets key in m to a random value of a random type, or leaves
// it out.
func putRandom(r *rand.Rand, m pcommon.Map, key string) {
	switch r.IntN(8) {
	case 0, 1, 2:
		// absent
	case 3, 4, 5:
		m.PutStr(key, pick(r, values))
	case 6:
		m.PutInt(key, 1)
	default:
		switch r.IntN(3) {
		case 0:
			m.PutBool(key, true)
		case 1:
			m.PutDouble(key, 1)
		default:
			m.PutEmpty(key)
		}
	}
}

// randomTraces is n spans, each in its own resource and scope.
func randomTraces(r *rand.Rand, n int) ptrace.Traces {
	td := ptrace.NewTraces()
	for i := range n {
		rs := td.ResourceSpans().AppendEmpty()
		res := rs.Resource().Attributes()
		switch r.IntN(6) {
		case 0:
		case 1:
			res.PutInt("deployment.environment.name", 1)
		case 2:
			res.PutEmpty("deployment.environment.name")
		default:
			res.PutStr("deployment.environment.name", pick(r, []string{"prod", "staging", "dev", "other"}))
		}
		if r.IntN(2) == 0 {
			res.PutStr("deployment.environment", pick(r, []string{"prod", "staging", "dev"}))
		}
		putRandom(r, res, "service.name")
		putRandom(r, res, "k1")
		ss := rs.ScopeSpans().AppendEmpty()
		ss.Scope().SetName(pick(r, values))
		span := ss.Spans().AppendEmpty()
		span.SetName(pick(r, values))
		span.SetKind(ptrace.SpanKind(r.IntN(6)))
		span.SetTraceID(pcommon.TraceID{byte(i), byte(i >> 8), 1})
		a := span.Attributes()
		for _, k := range []string{"traceloop.workflow.name", "traceloop.entity.name", "gen_ai.agent.name", "traceloop.span.kind",
			"gen_ai.request.model", "gen_ai.response.model", "llm.request.model", "llm.response.model", "llm.model_name", "k1", "k2"} {
			putRandom(r, a, k)
		}
		if r.IntN(3) == 0 {
			a.PutStr("traceloop.span.kind", "agent")
		}
	}
	return td
}

// TestIndexMatchesLikeBruteForce compiles many random setups the way the
// service does, and checks on many random spans that the monitors the
// index finds and whose condition matches are exactly the monitors whose
// condition matches when every one is evaluated.
func TestIndexMatchesLikeBruteForce(t *testing.T) {
	compiler, err := monitor.NewCompiler(componenttest.NewNopTelemetrySettings())
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(15, 2))
	var monitors []*monitor.Monitor
	for i := 0; len(monitors) < 400; i++ {
		sp, err := spec(randomSetup(r, i))
		if err != nil {
			continue // an invalid random rule
		}
		m, err := compiler.Compile(sp)
		if err != nil {
			t.Fatalf("spec %+v does not compile: %v", sp, err)
		}
		monitors = append(monitors, m)
	}
	// Two static monitors without a selection: candidates for every span.
	for _, cond := range []string{`attributes["k1"] == "a"`, ""} {
		m, err := compiler.Compile(monitor.Spec{ID: "static " + cond, Name: "static", SampleRate: 1, Condition: cond,
			Evaluators: []monitor.EvaluatorSpec{{Slug: "char-count"}}})
		if err != nil {
			t.Fatal(err)
		}
		monitors = append(monitors, m)
	}
	idx := monitor.NewIndex(monitors)
	td := randomTraces(r, 3000)
	ctx := context.Background()
	var matches, candidates int
	var cand []int
	for i := 0; i < td.ResourceSpans().Len(); i++ {
		rs := td.ResourceSpans().At(i)
		ss := rs.ScopeSpans().At(0)
		span := ss.Spans().At(0)
		var brute, indexed []int
		for j, m := range monitors {
			if m.Matches(ctx, span, ss, rs) {
				brute = append(brute, j)
			}
		}
		rc := idx.Resource(rs.Resource().Attributes())
		cand = rc.Candidates(span, ss.Scope(), cand)
		if !slices.IsSorted(cand) || len(slices.Compact(slices.Clone(cand))) != len(cand) {
			t.Fatalf("candidates %v are not sorted and unique", cand)
		}
		for _, j := range cand {
			if monitors[j].Matches(ctx, span, ss, rs) {
				indexed = append(indexed, j)
			}
		}
		if !slices.Equal(brute, indexed) {
			t.Fatalf("span %d (resource %v, name %q, attributes %v): brute force matches %v, index %v",
				i, rs.Resource().Attributes().AsRaw(), span.Name(), span.Attributes().AsRaw(), brute, indexed)
		}
		matches += len(brute)
		candidates += len(cand)
	}
	t.Logf("%d monitors, %d spans: %d matches, %d candidates evaluated (brute force: %d)",
		len(monitors), td.ResourceSpans().Len(), matches, candidates, len(monitors)*td.ResourceSpans().Len())
	if matches < 1000 {
		t.Errorf("only %d matches: the random data does not exercise matching", matches)
	}
	if candidates > len(monitors)*td.ResourceSpans().Len()/10 {
		t.Errorf("the index evaluated %d conditions, more than a tenth of brute force", candidates)
	}
}
