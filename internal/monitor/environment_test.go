package monitor

import (
	"context"
	"fmt"
	"testing"

	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/evalcol/evalcol/internal/spanconv"
	"github.com/evalcol/evalcol/internal/tenant"
)

// TestEnvironmentDecidedOnce proves that a span's environment cannot
// differ between what is evaluated and what is stored: for every shape of
// the two environment attributes (absent, empty, a value, another value,
// not text), a setup of environment "prod" is a candidate of the index and
// matches its condition exactly when tenant.EnvironmentOf says "prod", and
// the warehouse files the span (spanconv.Environment) under that same
// environment.
func TestEnvironmentDecidedOnce(t *testing.T) {
	c := newCompiler(t)
	cond, sel, err := SetupCondition("prod", "", "", nil)
	if err != nil {
		t.Fatal(err)
	}
	m, err := c.Compile(Spec{ID: "s", Name: "s", SampleRate: 1, Condition: cond, Selection: sel, Evaluators: []EvaluatorSpec{{Slug: "word-count"}}})
	if err != nil {
		t.Fatal(err)
	}
	idx := NewIndex([]*Monitor{m})
	values := []any{nil, "", "prod", "staging", int64(5), absent{}}
	for _, name := range values {
		for _, legacy := range values {
			res := map[string]any{}
			if _, ok := name.(absent); !ok {
				res[tenant.EnvironmentAttribute] = name
			}
			if _, ok := legacy.(absent); !ok {
				res[tenant.LegacyEnvironmentAttribute] = legacy
			}
			span, ss, rs := testSpan(t, "chat", ptrace.SpanKindClient, map[string]any{}, res)
			env := tenant.EnvironmentOf(rs.Resource().Attributes())
			rc := idx.Resource(rs.Resource().Attributes())
			candidate := len(rc.Candidates(span, ss.Scope(), nil)) == 1
			matches := m.Matches(context.Background(), span, ss, rs)
			stored := spanconv.Environment(rs.Resource().Attributes(), "fallback")
			what := fmt.Sprintf("name %#v, legacy %#v", name, legacy)
			if want := env == "prod"; candidate != want || matches != want {
				t.Errorf("%s: EnvironmentOf = %q, but index candidate %v, condition %v", what, env, candidate, matches)
			}
			if want := map[bool]string{true: env, false: "fallback"}[env != ""]; stored != want {
				t.Errorf("%s: stored under %q, evaluated as %q", what, stored, env)
			}
		}
	}
}

// absent marks an attribute left out.
type absent struct{}
