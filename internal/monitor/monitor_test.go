package monitor

import (
	"context"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/open-telemetry/opentelemetry-collector-contrib/pkg/ottl/contexts/ottlspan"
	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"
)

// testSpan builds a one-span trace and returns the span with its scope and
// resource.
func testSpan(t testing.TB, name string, kind ptrace.SpanKind, attrs, resAttrs map[string]any) (ptrace.Span, ptrace.ScopeSpans, ptrace.ResourceSpans) {
	t.Helper()
	td := ptrace.NewTraces()
	rs := td.ResourceSpans().AppendEmpty()
	if err := rs.Resource().Attributes().FromRaw(resAttrs); err != nil {
		t.Fatal(err)
	}
	ss := rs.ScopeSpans().AppendEmpty()
	ss.Scope().SetName("opentelemetry.instrumentation.openai")
	span := ss.Spans().AppendEmpty()
	span.SetName(name)
	span.SetKind(kind)
	if err := span.Attributes().FromRaw(attrs); err != nil {
		t.Fatal(err)
	}
	return span, ss, rs
}

func newCompiler(t testing.TB) *Compiler {
	t.Helper()
	c, err := NewCompiler(componenttest.NewNopTelemetrySettings())
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestConditionFromRulesText(t *testing.T) {
	tests := []struct {
		name  string
		rules []InitRule
		want  string
	}{
		{"no rules match everything", nil, ""},
		{"equals string", []InitRule{{Op: "equals", Key: "llm.request.model", Value: "gpt-4"}},
			`(String(attributes["llm.request.model"]) == "gpt-4")`},
		{"two rules are ANDed", []InitRule{
			{Op: "exists", Source: "span_attributes", Key: "gen_ai.prompt.0.content"},
			{Op: "greater_than", Source: "resource_attributes", Key: "tier", Value: "2"},
		}, `(attributes["gen_ai.prompt.0.content"] != nil) and (Double(resource.attributes["tier"]) > 2.0)`},
		{"negative number", []InitRule{{Op: "less_than", Key: "t", Value: "-1.5"}}, `(Double(attributes["t"]) < -1.5)`},
		{"in strings", []InitRule{{Op: "in", Key: "m", Value: `["a","b"]`}},
			`(String(attributes["m"]) == "a" or String(attributes["m"]) == "b")`},
		{"not_in empty list", []InitRule{{Op: "not_in", Key: "m", Value: `[]`}}, `(true)`},
		{"span kind spelled as in the API", []InitRule{{Op: "equals", Source: "span_kind", Value: "SPAN_KIND_CLIENT"}},
			`(String(kind.string) == "Client")`},
		{"quotes and backslashes are escaped", []InitRule{{Op: "equals", Key: `a"b`, Value: `x\" or true or \"`}},
			`(String(attributes["a\"b"]) == "x\\\" or true or \\\"")`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ConditionFromRules(tt.rules)
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
		})
	}
}

func TestConditionFromRulesMatching(t *testing.T) {
	c := newCompiler(t)
	attrs := map[string]any{
		"gen_ai.request.model":   "gpt-4o",
		"llm.usage.total_tokens": 120,
		"ratio":                  "0.75",
		"stream":                 true,
		"prompt":                 `say "hi" \ then .* bye`,
		"evil":                   `x" or true or "`,
	}
	res := map[string]any{"service.name": "chatbot", "deployment.environment.name": "production"}
	span, ss, rs := testSpan(t, "openai.chat", ptrace.SpanKindClient, attrs, res)

	tests := []struct {
		name  string
		rules []InitRule
		want  bool
	}{
		{"equals", []InitRule{{Op: "equals", Key: "gen_ai.request.model", Value: "gpt-4o"}}, true},
		{"equals other", []InitRule{{Op: "equals", Key: "gen_ai.request.model", Value: "gpt-4"}}, false},
		{"equals int attribute as string", []InitRule{{Op: "equals", Key: "llm.usage.total_tokens", Value: "120"}}, true},
		{"equals number", []InitRule{{Op: "equals", Key: "llm.usage.total_tokens", Value: "120", ValueType: "number"}}, true},
		{"equals number on string attribute", []InitRule{{Op: "equals", Key: "ratio", Value: "0.75", ValueType: "number"}}, true},
		{"equals boolean", []InitRule{{Op: "equals", Key: "stream", Value: "true", ValueType: "boolean"}}, true},
		{"not_equals", []InitRule{{Op: "not_equals", Key: "gen_ai.request.model", Value: "gpt-4"}}, true},
		{"not_equals on missing attribute", []InitRule{{Op: "not_equals", Key: "missing", Value: "x"}}, true},
		{"greater_than", []InitRule{{Op: "greater_than", Key: "llm.usage.total_tokens", Value: "100"}}, true},
		{"greater_than fails", []InitRule{{Op: "greater_than", Key: "llm.usage.total_tokens", Value: "120"}}, false},
		{"greater_than_or_equal", []InitRule{{Op: "greater_than_or_equal", Key: "llm.usage.total_tokens", Value: "120"}}, true},
		{"less_than on string number", []InitRule{{Op: "less_than", Key: "ratio", Value: "1"}}, true},
		{"less_than_or_equal", []InitRule{{Op: "less_than_or_equal", Key: "ratio", Value: "0.5"}}, false},
		{"greater_than on missing attribute", []InitRule{{Op: "greater_than", Key: "missing", Value: "0"}}, false},
		{"contains", []InitRule{{Op: "contains", Key: "gen_ai.request.model", Value: "4o"}}, true},
		{"contains regex metacharacters literally", []InitRule{{Op: "contains", Key: "prompt", Value: `"hi" \ then .*`}}, true},
		{"contains is not a regex", []InitRule{{Op: "contains", Key: "prompt", Value: `hi.*bye`}}, false},
		{"contains on missing attribute", []InitRule{{Op: "contains", Key: "missing", Value: "a"}}, false},
		{"not_contains", []InitRule{{Op: "not_contains", Key: "gen_ai.request.model", Value: "claude"}}, true},
		{"not_contains when it contains", []InitRule{{Op: "not_contains", Key: "gen_ai.request.model", Value: "4o"}}, false},
		{"not_contains on missing attribute", []InitRule{{Op: "not_contains", Key: "missing", Value: "a"}}, true},
		{"starts_with", []InitRule{{Op: "starts_with", Key: "gen_ai.request.model", Value: "gpt-"}}, true},
		{"starts_with anchors", []InitRule{{Op: "starts_with", Key: "gen_ai.request.model", Value: "4o"}}, false},
		{"in", []InitRule{{Op: "in", Key: "gen_ai.request.model", Value: `["gpt-4","gpt-4o"]`}}, true},
		{"in numbers", []InitRule{{Op: "in", Key: "llm.usage.total_tokens", Value: `[1, 120]`, ValueType: "number"}}, true},
		{"not_in", []InitRule{{Op: "not_in", Key: "gen_ai.request.model", Value: `["gpt-4","gpt-4o"]`}}, false},
		{"in empty", []InitRule{{Op: "in", Key: "gen_ai.request.model", Value: `[]`}}, false},
		{"exists", []InitRule{{Op: "exists", Key: "stream"}}, true},
		{"not_exists", []InitRule{{Op: "not_exists", Key: "stream"}}, false},
		{"resource attribute", []InitRule{{Op: "equals", Source: "resource_attributes", Key: "deployment.environment.name", Value: "production"}}, true},
		{"service name", []InitRule{{Op: "equals", Source: "service_name", Value: "chatbot"}}, true},
		{"span name", []InitRule{{Op: "starts_with", Source: "span_name", Value: "openai."}}, true},
		{"span kind", []InitRule{{Op: "equals", Source: "span_kind", Value: "client"}}, true},
		{"scope name", []InitRule{{Op: "contains", Source: "scope_name", Value: "openai"}}, true},
		{"AND of rules", []InitRule{
			{Op: "equals", Key: "gen_ai.request.model", Value: "gpt-4o"},
			{Op: "equals", Source: "service_name", Value: "other"},
		}, false},
		// Injection attempts: the value must stay one string literal.
		{"injected value does not become an or", []InitRule{{Op: "equals", Key: "gen_ai.request.model", Value: `x" or true or "`}}, false},
		{"injected value matches literally", []InitRule{{Op: "equals", Key: "evil", Value: `x" or true or "`}}, true},
		{"injected key stays a key", []InitRule{{Op: "exists", Key: `x"] != nil or attributes["stream`}}, false},
		{"backslash before quote", []InitRule{{Op: "equals", Key: "gen_ai.request.model", Value: `\" or true or \"`}}, false},
		{"newline in value", []InitRule{{Op: "equals", Key: "gen_ai.request.model", Value: "gpt-4o\n or true"}}, false},
		{"injected contains", []InitRule{{Op: "contains", Key: "gen_ai.request.model", Value: `") or true or IsMatch("a", "`}}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cond, err := ConditionFromRules(tt.rules)
			if err != nil {
				t.Fatal(err)
			}
			m, err := c.Compile(Spec{ID: "m", Name: "m", SampleRate: 1, Condition: cond, Evaluators: []EvaluatorSpec{{Slug: "word-count"}}})
			if err != nil {
				t.Fatalf("condition %s does not compile: %v", cond, err)
			}
			if got := m.Matches(context.Background(), span, ss, rs); got != tt.want {
				t.Errorf("condition %s: Matches = %v, want %v", cond, got, tt.want)
			}
		})
	}
}

func TestConditionFromRulesErrors(t *testing.T) {
	tests := []struct {
		name    string
		rules   []InitRule
		wantErr string
	}{
		{"unknown op", []InitRule{{Op: "matches", Key: "k", Value: "v"}}, `init_rules[0]: op "matches" is not one of equals`},
		{"unknown source", []InitRule{{Op: "equals", Source: "events", Key: "k"}}, `init_rules[0]: source "events" is not one of span_attributes`},
		{"missing key", []InitRule{{Op: "equals", Value: "v"}}, "init_rules[0]: key is required for source span_attributes"},
		{"bad number", []InitRule{{Op: "greater_than", Key: "k", Value: "ten"}}, `init_rules[0]: op greater_than: value "ten" is not a finite number`},
		{"infinite number", []InitRule{{Op: "less_than", Key: "k", Value: "Inf"}}, `value "Inf" is not a finite number`},
		{"bad boolean", []InitRule{{Op: "equals", Key: "k", Value: "maybe", ValueType: "boolean"}}, `init_rules[0]: value "maybe" is not a boolean`},
		{"bad value type", []InitRule{{Op: "equals", Key: "k", Value: "v", ValueType: "date"}}, `init_rules[0]: value_type "date" is not one of string, number, boolean`},
		{"in without array", []InitRule{{Op: "in", Key: "k", Value: "a,b"}}, `init_rules[0]: op in: value must be a JSON array of values, got "a,b"`},
		{"in with object element", []InitRule{{Op: "in", Key: "k", Value: `[{}]`}}, "init_rules[0]: op in: value[0] must be a string, number or boolean"},
		{"second rule reported by index", []InitRule{{Op: "exists", Key: "k"}, {Op: "nope", Key: "k"}}, `init_rules[1]: op "nope"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ConditionFromRules(tt.rules)
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("error = %v, want it to contain %q", err, tt.wantErr)
			}
		})
	}
}

func TestCompileErrors(t *testing.T) {
	c := newCompiler(t)
	tests := []struct {
		name    string
		spec    Spec
		wantErr string
	}{
		{"unknown evaluator", Spec{Name: "m", SampleRate: 1, Evaluators: []EvaluatorSpec{{Slug: "toxicity-detectr"}}}, `monitor "m": unknown evaluator "toxicity-detectr" (known: `},
		{"no evaluators", Spec{Name: "m", SampleRate: 1}, `monitor "m": evaluators must not be empty`},
		{"bad config", Spec{Name: "m", SampleRate: 1, Evaluators: []EvaluatorSpec{{Slug: "toxicity-detector", Config: map[string]any{"threshold": 2}}}}, `evaluator "toxicity-detector": config.threshold must be between 0 and 1, got 2`},
		{"unknown config field", Spec{Name: "m", SampleRate: 1, Evaluators: []EvaluatorSpec{{Slug: "word-count", Config: map[string]any{"x": 1}}}}, "config.x is not a config field of word-count"},
		{"sample rate above 1", Spec{Name: "m", SampleRate: 1.5, Evaluators: []EvaluatorSpec{{Slug: "word-count"}}}, `monitor "m": sample_rate must be between 0 and 1, got 1.5`},
		{"bad condition", Spec{Name: "m", SampleRate: 1, Condition: `attributes["x" ==`, Evaluators: []EvaluatorSpec{{Slug: "word-count"}}}, `monitor "m": condition:`},
		{"input no evaluator takes", Spec{Name: "m", SampleRate: 1, Evaluators: []EvaluatorSpec{{Slug: "word-count"}}, Inputs: map[string]string{"question": `attributes["q"]`}}, `monitor "m": inputs.question: no evaluator of the monitor takes an input called "question"`},
		{"bad input expression", Spec{Name: "m", SampleRate: 1, Evaluators: []EvaluatorSpec{{Slug: "word-count"}}, Inputs: map[string]string{"text": `attributes[`}}, `monitor "m": inputs.text:`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := c.Compile(tt.spec)
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("error = %v, want it to contain %q", err, tt.wantErr)
			}
		})
	}
}

func TestCompileAndInputs(t *testing.T) {
	c := newCompiler(t)
	m, err := c.Compile(Spec{
		ID: "id-1", Name: "rag", SampleRate: 0.5,
		Condition:  `attributes["gen_ai.operation.name"] == "chat"`,
		Evaluators: []EvaluatorSpec{{Slug: "faithfulness"}, {Slug: "toxicity-detector", Config: map[string]any{"threshold": 0.8}}},
		Inputs: map[string]string{
			"context":  `attributes["retrieval.documents"]`,
			"question": `Concat(["Q:", attributes["q"]], " ")`,
			"text":     `attributes["tokens"]`,
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	if m.ID != "id-1" || m.Name != "rag" || m.SampleRate != 0.5 || len(m.Evaluators) != 2 {
		t.Fatalf("compiled monitor = %+v", m)
	}
	if m.Evaluators[1].Def == nil || m.Evaluators[1].Def.Slug != "toxicity-detector" || m.Evaluators[1].Config["threshold"] != 0.8 {
		t.Errorf("binding = %+v", m.Evaluators[1])
	}
	span, ss, rs := testSpan(t, "chat", ptrace.SpanKindClient, map[string]any{
		"gen_ai.operation.name": "chat",
		"retrieval.documents":   []any{"doc one", "doc two"},
		"q":                     "why?",
		"tokens":                42,
	}, nil)
	ctx := context.Background()
	if !m.Matches(ctx, span, ss, rs) {
		t.Error("Matches = false for a chat span")
	}
	tctx := ottlspan.NewTransformContext(rs, ss, span)
	defer tctx.Close()
	for name, want := range map[string]string{"context": `["doc one","doc two"]`, "question": "Q: why?", "text": "42"} {
		t.Run("input "+name, func(t *testing.T) {
			got, ok, err := m.Inputs[name].EvalString(ctx, tctx)
			if err != nil || !ok || got != want {
				t.Errorf("EvalString = %q, %v, %v; want %q", got, ok, err, want)
			}
		})
	}
	other, _, _ := testSpan(t, "embed", ptrace.SpanKindClient, map[string]any{"gen_ai.operation.name": "embeddings"}, nil)
	if m.Matches(ctx, other, ss, rs) {
		t.Error("Matches = true for an embeddings span")
	}
	all, err := c.Compile(Spec{Name: "all", SampleRate: 1, Evaluators: []EvaluatorSpec{{Slug: "word-count"}}})
	if err != nil {
		t.Fatal(err)
	}
	if !all.Matches(ctx, other, ss, rs) || all.Condition() != "" {
		t.Error("a monitor without condition must match every span")
	}
}

func TestSet(t *testing.T) {
	var s Set
	if got := s.Monitors(); len(got) != 0 {
		t.Fatalf("zero Set has %d monitors", len(got))
	}
	a, b := &Monitor{ID: "a"}, &Monitor{ID: "b"}
	s.Replace([]*Monitor{a, b})
	if got := s.Monitors(); len(got) != 2 || got[0] != a || got[1] != b {
		t.Fatalf("after Replace: %v", got)
	}
	s.Replace(nil)
	if got := s.Monitors(); len(got) != 0 {
		t.Fatalf("after Replace(nil): %v", got)
	}
	var _ Provider = (*testProvider)(nil)
}

type testProvider struct{ Set }

func (*testProvider) Evaluated(string) {}

func TestSampled(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	ids := make([]pcommon.TraceID, 20000)
	for i := range ids {
		for j := range ids[i] {
			ids[i][j] = byte(rng.UintN(256))
		}
	}
	// Structured ids (a counter in the low bytes) must sample evenly too.
	counters := make([]pcommon.TraceID, 20000)
	for i := range counters {
		counters[i][15], counters[i][14] = byte(i), byte(i>>8)
	}
	for _, set := range []struct {
		name string
		ids  []pcommon.TraceID
	}{{"random ids", ids}, {"counter ids", counters}} {
		for _, rate := range []float64{0.1, 0.3, 0.75} {
			t.Run(set.name, func(t *testing.T) {
				n := 0
				for _, id := range set.ids {
					if Sampled(id, rate) {
						n++
					}
				}
				frac := float64(n) / float64(len(set.ids))
				if frac < rate-0.02 || frac > rate+0.02 {
					t.Errorf("rate %g sampled %g of traces", rate, frac)
				}
			})
		}
	}
	t.Run("deterministic and nested", func(t *testing.T) {
		for _, id := range ids[:2000] {
			if Sampled(id, 0.2) != Sampled(id, 0.2) {
				t.Fatal("not deterministic")
			}
			if Sampled(id, 0.2) && !Sampled(id, 0.5) {
				t.Fatal("a trace sampled at 0.2 must be sampled at 0.5")
			}
		}
	})
	t.Run("bounds", func(t *testing.T) {
		if !Sampled(ids[0], 1) || Sampled(ids[0], 0) || Sampled(ids[0], -1) || !Sampled(pcommon.TraceID{}, 1) {
			t.Error("rate 1 must sample all and rate 0 none")
		}
	})
}

func BenchmarkMatchesNoMatch(b *testing.B) {
	c := newCompiler(b)
	m, err := c.Compile(Spec{Name: "m", SampleRate: 1, Condition: `attributes["gen_ai.operation.name"] == "chat"`, Evaluators: []EvaluatorSpec{{Slug: "word-count"}}})
	if err != nil {
		b.Fatal(err)
	}
	span, ss, rs := testSpan(b, "GET /users", ptrace.SpanKindServer, map[string]any{"http.method": "GET", "http.route": "/users"}, nil)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if m.Matches(ctx, span, ss, rs) {
			b.Fatal("matched")
		}
	}
}

// A setup's monitor (one with a Selection) keeps its condition source and
// compiles it at the first span the index hands it: setups of other
// workflows never cost the garbage collector an OTTL tree. The lazily
// compiled condition matches as the eager one does, and a bad condition is
// still an error at Compile.
func TestSetupConditionCompiledAtFirstUse(t *testing.T) {
	c := newCompiler(t)
	cond, sel, err := SetupCondition("production", EntityWorkflow, "support", []InitRule{{Key: "gen_ai.system", Op: OpEquals, Value: "openai"}})
	if err != nil {
		t.Fatal(err)
	}
	spec := Spec{ID: "s1", Name: "s1", SampleRate: 1, Condition: cond, Selection: sel, Evaluators: []EvaluatorSpec{{Slug: "word-count"}}}
	lazy, err := c.Compile(spec)
	if err != nil {
		t.Fatal(err)
	}
	spec.Selection = nil
	eager, err := c.Compile(spec)
	if err != nil {
		t.Fatal(err)
	}
	if lazy.lazy == nil || lazy.condition != nil || lazy.lazy.cond != nil {
		t.Fatalf("setup monitor holds a compiled condition before its first span: %+v", lazy)
	}
	if eager.lazy != nil || eager.condition == nil {
		t.Fatalf("static monitor must be compiled eagerly: %+v", eager)
	}
	if lazy.Condition() != cond {
		t.Errorf("Condition() = %q, want %q", lazy.Condition(), cond)
	}
	res := map[string]any{"deployment.environment.name": "production"}
	ctx := context.Background()
	for _, tc := range []struct {
		attrs map[string]any
		res   map[string]any
		want  bool
	}{
		{map[string]any{"traceloop.workflow.name": "support", "gen_ai.system": "openai"}, res, true},
		{map[string]any{"traceloop.workflow.name": "support", "gen_ai.system": "anthropic"}, res, false},
		{map[string]any{"traceloop.workflow.name": "billing", "gen_ai.system": "openai"}, res, false},
		{map[string]any{"traceloop.workflow.name": "support", "gen_ai.system": "openai"}, map[string]any{"deployment.environment.name": "staging"}, false},
	} {
		span, ss, rs := testSpan(t, "chat", ptrace.SpanKindClient, tc.attrs, tc.res)
		if got, want := lazy.Matches(ctx, span, ss, rs), eager.Matches(ctx, span, ss, rs); got != want || got != tc.want {
			t.Errorf("attrs %v resource %v: lazy Matches = %v, eager = %v, want %v", tc.attrs, tc.res, got, want, tc.want)
		}
	}
	if lazy.lazy.cond == nil || lazy.lazy.parser != nil {
		t.Error("after its first span the condition must be compiled and the parser released")
	}
	spec.Selection, spec.Condition = sel, cond+` and attributes["x" ==`
	if _, err := c.Compile(spec); err == nil || !strings.Contains(err.Error(), `monitor "s1": condition:`) {
		t.Errorf("bad setup condition: error = %v", err)
	}
}
