package setups

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/collector/component/componenttest"

	"github.com/evalcol/evalcol/evaluators"
	"github.com/evalcol/evalcol/internal/monitor"
	"github.com/evalcol/evalcol/internal/tenant"
)

func TestParseRequestErrors(t *testing.T) {
	tests := []struct {
		name, body, want string
	}{
		{"empty body", ``, "body: request body is empty"},
		{"not JSON", `{"entity_type":`, "body: request body must be a JSON object"},
		{"array body", `[]`, "body: request body must be a JSON object"},
		{"missing entity_type", `{"entity_value":"w","evaluators":["char-count"],"external_id":"x"}`, "entity_type: is required"},
		{"unknown entity_type", `{"entity_type":"team","entity_value":"w","evaluators":["char-count"],"external_id":"x"}`, `entity_type: "team" is not one of workflow, agent, entity, span, service, model`},
		{"entity_type not a string", `{"entity_type":3,"entity_value":"w","evaluators":["char-count"],"external_id":"x"}`, "entity_type: must be a string"},
		{"missing entity_value", `{"entity_type":"workflow","evaluators":["char-count"],"external_id":"x"}`, "entity_value: is required"},
		{"empty external_id", `{"entity_type":"workflow","entity_value":"w","evaluators":["char-count"],"external_id":" "}`, "external_id: must not be empty"},
		{"missing evaluators", `{"entity_type":"workflow","entity_value":"w","external_id":"x"}`, "evaluators: is required"},
		{"empty evaluators", `{"entity_type":"workflow","entity_value":"w","evaluators":[],"external_id":"x"}`, "evaluators: must list at least one evaluator"},
		{"evaluators not an array", `{"entity_type":"workflow","entity_value":"w","evaluators":"char-count","external_id":"x"}`, "evaluators: must be an array"},
		{"evaluator of wrong type", `{"entity_type":"workflow","entity_value":"w","evaluators":["char-count", 7],"external_id":"x"}`, "evaluators[1]: must be a slug string or an object"},
		{"evaluator object without slug", `{"entity_type":"workflow","entity_value":"w","evaluators":[{"name":"x"}],"external_id":"x"}`, "evaluators[0]: must be a slug string or an object"},
		{"unknown field", `{"entity_type":"workflow","entity_value":"w","evaluators":["char-count"],"external_id":"x","colour":"red"}`, `body: unknown field "colour"`},
		{"selector not an object", `{"entity_type":"workflow","entity_value":"w","evaluators":["char-count"],"external_id":"x","selector":"a=b"}`, "selector: must be an object"},
		{"selector value nested", `{"entity_type":"workflow","entity_value":"w","evaluators":["char-count"],"external_id":"x","selector":{"a":{"b":1}}}`, "selector.a: must be a string, number or boolean"},
		{"selector bad operator", `{"entity_type":"workflow","entity_value":"w","evaluators":["char-count"],"external_id":"x","selector":[{"key":"a","operator":"like","value":"x"}]}`, `selector[0].operator: "like" is not one of`},
		{"selector bad source", `{"entity_type":"workflow","entity_value":"w","evaluators":["char-count"],"external_id":"x","selector":[{"key":"a","source":"events","operator":"equals","value":"x"}]}`, `selector[0].source: "events" is not one of`},
		{"selector missing value", `{"entity_type":"workflow","entity_value":"w","evaluators":["char-count"],"external_id":"x","selector":[{"key":"a","operator":"equals"}]}`, "selector[0].value: is required for operator equals"},
		{"selector in without values", `{"entity_type":"workflow","entity_value":"w","evaluators":["char-count"],"external_id":"x","selector":[{"key":"a","operator":"in","values":[]}]}`, "selector[0].values: operator in takes a non-empty array"},
		{"selector numeric op on text", `{"entity_type":"workflow","entity_value":"w","evaluators":["char-count"],"external_id":"x","selector":[{"key":"a","operator":"greater_than","value":"lots"}]}`, "selector[0]"},
		{"selector missing key", `{"entity_type":"workflow","entity_value":"w","evaluators":["char-count"],"external_id":"x","selector":[{"operator":"exists"}]}`, "selector[0].key: is required"},
		{"sample_rate out of range", `{"entity_type":"workflow","entity_value":"w","evaluators":["char-count"],"external_id":"x","sample_rate":2}`, "sample_rate: must be a number between 0 and 1"},
		{"backfill not an integer", `{"entity_type":"workflow","entity_value":"w","evaluators":["char-count"],"external_id":"x","backfill_from_timestamp_sec":"yesterday"}`, "backfill_from_timestamp_sec: must be a positive integer"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseRequest([]byte(tt.body))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error = %v, want one containing %q", err, tt.want)
			}
		})
	}
}

func TestParseRequestForms(t *testing.T) {
	r, err := ParseRequest([]byte(`{"entity_type":"workflow","entity_value":"pirate_joke_generator","external_id":"ext-1",
		"evaluators":["toxicity-detector",{"evaluator_type":"char-count"},{"evaluator_id":"pii-detector"}],
		"selector":[{"key":"gen_ai.request.model","operator":"in","values":["gpt-4o","gpt-4o-mini"]},
		            {"key":"service.name","source":"resource_attributes","operator":"equals","value":"jokes"},
		            {"key":"llm.usage.total_tokens","operator":"greater_than","value":100},
		            {"key":"user.id","operator":"exists"}],
		"sample_rate":0.25}`))
	if err != nil {
		t.Fatal(err)
	}
	if got := []string{r.Evaluators[0].Slug, r.Evaluators[1].Slug, r.Evaluators[2].Slug}; got[0] != "toxicity-detector" || got[1] != "char-count" || got[2] != "pii-detector" {
		t.Errorf("evaluators = %v", got)
	}
	want := []monitor.InitRule{
		{Op: "in", Source: "span_attributes", Key: "gen_ai.request.model", Value: `["gpt-4o","gpt-4o-mini"]`, ValueType: "string"},
		{Op: "equals", Source: "resource_attributes", Key: "service.name", Value: "jokes", ValueType: "string"},
		{Op: "greater_than", Source: "span_attributes", Key: "llm.usage.total_tokens", Value: "100", ValueType: "number"},
		{Op: "exists", Source: "span_attributes", Key: "user.id", ValueType: "string"},
	}
	if len(r.Rules) != len(want) {
		t.Fatalf("rules = %+v", r.Rules)
	}
	for i := range want {
		if r.Rules[i] != want[i] {
			t.Errorf("rule %d = %+v, want %+v", i, r.Rules[i], want[i])
		}
	}
	if r.SampleRate != 0.25 {
		t.Errorf("sample_rate = %v", r.SampleRate)
	}

	flat, err := ParseRequest([]byte(`{"entity_type":"agent","entity_value":"planner","external_id":"e","evaluators":["char-count"],"selector":{"tier":"gold","beta":true}}`))
	if err != nil {
		t.Fatal(err)
	}
	if len(flat.Rules) != 2 || flat.Rules[0] != (monitor.InitRule{Op: "equals", Source: "span_attributes", Key: "beta", Value: "true", ValueType: "boolean"}) ||
		flat.Rules[1] != (monitor.InitRule{Op: "equals", Source: "span_attributes", Key: "tier", Value: "gold", ValueType: "string"}) || flat.SampleRate != 1 {
		t.Errorf("flat selector rules = %+v, sample rate %v", flat.Rules, flat.SampleRate)
	}
}

func TestBuild(t *testing.T) {
	now := time.Date(2026, 1, 15, 10, 30, 0, 0, time.UTC)
	tn := tenant.Tenant{Environment: "prod", OrganizationID: "org", ProjectID: "proj"}
	r, err := ParseRequest([]byte(`{"entity_type":"workflow","entity_value":"w","external_id":"e","evaluators":["toxicity-detector","no-such-thing"],"selector":{"tier":"gold"}}`))
	if err != nil {
		t.Fatal(err)
	}
	s := build(r, tn, now, nil, nil)
	if s.Status != StatusPartial || s.OrgID != "org" || s.ProjectID != "proj" || s.EnvProjectID != "proj/prod" || s.Environment != "prod" {
		t.Errorf("setup = %+v", s)
	}
	if len(s.ID) != 32 || !s.CreatedAt.Equal(now) || s.Version != 1 {
		t.Errorf("id %q created %v version %d", s.ID, s.CreatedAt, s.Version)
	}
	tox, bad := s.Evaluators[0], s.Evaluators[1]
	if tox.Status != BindingPending || tox.EvaluatorType != "toxicity-detector" || tox.ProcessedAt != nil ||
		len(tox.InputSchema) != 1 || tox.InputSchema[0].Name != "text" || tox.OutputSchema[0].Name != "is_safe" || len(tox.OutputSchema[0].EnumValues) != 2 {
		t.Errorf("toxicity binding = %+v", tox)
	}
	if bad.Status != BindingFailed || !strings.HasPrefix(bad.ErrorMessage, `unknown evaluator "no-such-thing": use one of the slugs`) || bad.ProcessedAt == nil {
		t.Errorf("unknown binding = %+v", bad)
	}
	if len(s.InitRules) != 2 || s.InitRules[0].Key != "traceloop.workflow.name" || s.InitRules[0].Value != "w" || s.InitRules[1].Key != "tier" {
		t.Errorf("init rules = %+v", s.InitRules)
	}
	sp, err := spec(s)
	if err != nil {
		t.Fatal(err)
	}
	if len(sp.Evaluators) != 1 || sp.Evaluators[0].Slug != "toxicity-detector" || !strings.Contains(sp.Condition, `"prod"`) || !strings.Contains(sp.Condition, `String(attributes["tier"]) == "gold"`) {
		t.Errorf("spec = %+v", sp)
	}

	allBad, _ := ParseRequest([]byte(`{"entity_type":"workflow","entity_value":"w","external_id":"e","evaluators":["nope"]}`))
	if got := build(allBad, tn, now, nil, nil).Status; got != StatusFailed {
		t.Errorf("status with only unknown evaluators = %s, want failed", got)
	}
}

// TestParseRequestTraceloopForms: the bodies Traceloop's clients send are
// accepted: no external_id, no entity (a selector alone), evaluator
// objects, and Traceloop's evaluator names resolved to our slugs.
func TestParseRequestTraceloopForms(t *testing.T) {
	// traceloop/tenant-evals-integration's AutoMonitorSetupClient.create.
	r, err := ParseRequest([]byte(`{"entity_type":"agent","entity_value":"my-agent-name",
		"evaluators":[{"evaluator_id":"cmf2mpzh4002401zwcz9y0gke"},{"evaluator_type":"hallucination"},{"evaluator_type":"toxicity"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	want := []EvaluatorRef{{Name: "cmf2mpzh4002401zwcz9y0gke"}, {Name: "hallucination", Slug: "faithfulness"}, {Name: "toxicity", Slug: "toxicity-detector"}}
	if r.ExternalID != "" || r.Has("external_id") || len(r.Evaluators) != 3 {
		t.Fatalf("request = %+v", r)
	}
	for i := range want {
		if r.Evaluators[i] != want[i] {
			t.Errorf("evaluators[%d] = %+v, want %+v", i, r.Evaluators[i], want[i])
		}
	}

	// Traceloop's OpenAPI CreateAutoMonitorSetupInput: external_id,
	// evaluators and a selector, no entity; rules default to equals and
	// may use not_contains.
	r, err = ParseRequest([]byte(`{"external_id":"my-agent-monitor-1","evaluators":["TOXICITY_DETECTOR","pii_detector","PII Detection","toxicity-detector"],
		"selector":[{"key":"gen_ai.system","value":"openai","source":"span_attributes"},
		            {"key":"service.name","source":"resource_attributes","operator":"not_contains","value":"test"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if r.HasEntity() || r.ExternalID != "my-agent-monitor-1" {
		t.Errorf("entity %q/%q external_id %q", r.EntityType, r.EntityValue, r.ExternalID)
	}
	// Four names, two evaluators: duplicates merge whatever the name.
	if len(r.Evaluators) != 2 || r.Evaluators[0].Slug != "toxicity-detector" || r.Evaluators[1].Slug != "pii-detector" {
		t.Errorf("evaluators = %+v, want toxicity-detector and pii-detector once each", r.Evaluators)
	}
	if len(r.Rules) != 2 || r.Rules[0].Op != monitor.OpEquals || r.Rules[1].Op != monitor.OpNotContains {
		t.Errorf("rules = %+v", r.Rules)
	}

	// The slug is the canonical evaluator_type of the stored binding.
	s := build(r, tenant.Tenant{Environment: "prod"}, time.Now().UTC(), nil, nil)
	if s.Status != StatusPending || len(s.InitRules) != 2 || s.InitRules[0].Key != "gen_ai.system" {
		t.Fatalf("setup = %+v", s)
	}
	for i, slug := range []string{"toxicity-detector", "pii-detector"} {
		if b := s.Evaluators[i]; b.EvaluatorType != slug || b.EvaluatorID != slug || len(b.InputSchema) == 0 {
			t.Errorf("binding %d = %+v, want %s with its schema", i, b, slug)
		}
	}
	sp, err := spec(s)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(sp.Condition, "traceloop.workflow.name") || !strings.Contains(sp.Condition, `not IsMatch(resource.attributes["service.name"], "test")`) || sp.Name != "my-agent-monitor-1" {
		t.Errorf("spec of an entity-less setup = %+v", sp)
	}
	compiler, err := monitor.NewCompiler(componenttest.NewNopTelemetrySettings())
	if err != nil {
		t.Fatal(err)
	}
	if err := compiler.CompileCondition(sp.Condition); err != nil {
		t.Errorf("condition %s does not compile: %v", sp.Condition, err)
	}
}

// TestEvaluatorAliases: every slug resolves under each of Traceloop's
// spellings (the API's TOXICITY_DETECTOR enum, the Python SDK's
// toxicity_detector), and every alias names a catalogue evaluator.
func TestEvaluatorAliases(t *testing.T) {
	for _, def := range evaluators.Catalogue() {
		for _, name := range []string{def.Slug, strings.ToUpper(strings.ReplaceAll(def.Slug, "-", "_")), strings.ReplaceAll(def.Slug, "-", "_"), " " + strings.ToUpper(def.Slug)} {
			if got, ok := ResolveEvaluator(name); !ok || got != def.Slug {
				t.Errorf("ResolveEvaluator(%q) = %q, %v; want %s", name, got, ok, def.Slug)
			}
		}
	}
	for alias, slug := range EvaluatorAliases() {
		if _, ok := evaluators.Lookup(slug); !ok {
			t.Errorf("alias %q names %q, which is not in the catalogue", alias, slug)
		}
		if got, ok := ResolveEvaluator(alias); !ok || got != slug {
			t.Errorf("ResolveEvaluator(%q) = %q, %v; want %s", alias, got, ok, slug)
		}
	}
	for _, name := range []string{"", "nope", "toxicity-detector-2", "cmf2mpzh4002401zwcz9y0gke"} {
		if got, ok := ResolveEvaluator(name); ok {
			t.Errorf("ResolveEvaluator(%q) = %q, want unknown", name, got)
		}
	}
}

// TestParseRequestLimits: a request over one of a setup's limits is a 400
// naming the limit. Before the limits, a 0.96 MB body of repeated slugs
// made 74 000 bindings.
func TestParseRequestLimits(t *testing.T) {
	many := func(n int, name func(int) string) string {
		items := make([]string, n)
		for i := range items {
			items[i] = strconv.Quote(name(i))
		}
		return `{"evaluators":[` + strings.Join(items, ",") + `]}`
	}
	// 74 000 copies of three slugs under several names: three bindings.
	names := []string{"char-count", "CHAR_COUNT", "toxicity", "toxicity-detector", "word_count"}
	r, err := ParseRequest([]byte(many(74000, func(i int) string { return names[i%len(names)] })))
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Evaluators) != 3 {
		t.Errorf("74 000 repeated evaluators gave %d bindings, want 3", len(r.Evaluators))
	}
	tests := []struct{ name, body, want string }{
		{"65 distinct evaluators", many(65, func(i int) string { return fmt.Sprintf("custom-%d", i) }),
			"evaluators: a setup binds at most 64 distinct evaluators"},
		{"65 selector rules", `{"evaluators":["char-count"],"selector":{` + strings.Join(func() []string {
			var kv []string
			for i := range 65 {
				kv = append(kv, fmt.Sprintf(`"k%d":"v"`, i))
			}
			return kv
		}(), ",") + `}}`, "selector: has 65 keys; the limit is 64 rules"},
		{"selector over 16 KiB", `{"evaluators":["char-count"],"selector":{"k":"` + strings.Repeat("v", 16<<10) + `"}}`,
			"selector: is 16392 bytes long; the limit is 16384 bytes"},
		{"long entity_value", `{"entity_type":"workflow","entity_value":"` + strings.Repeat("w", 1025) + `","evaluators":["char-count"]}`,
			"entity_value: is 1025 bytes long; the limit is 1024 bytes"},
		{"long external_id", `{"external_id":"` + strings.Repeat("x", 257) + `","evaluators":["char-count"]}`,
			"external_id: is 257 bytes long; the limit is 256 bytes"},
		{"long evaluator name", `{"evaluators":["` + strings.Repeat("e", 257) + `"]}`,
			"evaluators[0]: is 257 bytes long; the limit is 256 bytes"},
		{"evaluator_type and evaluator_id", `{"evaluators":[{"evaluator_type":"char-count","evaluator_id":"char-count"}]}`,
			"evaluators[0]: give either evaluator_type or evaluator_id, not both"},
		{"entity_type alone", `{"entity_type":"workflow","evaluators":["char-count"]}`, "entity_value: is required"},
		{"entity_value alone", `{"entity_value":"w","evaluators":["char-count"]}`, "entity_type: is required"},
		{"no evaluators", `{"external_id":"x"}`, "evaluators: is required"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseRequest([]byte(tt.body))
			var fe *FieldError
			if !errors.As(err, &fe) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error = %v, want a FieldError containing %q", err, tt.want)
			}
		})
	}
}

func TestParseUpdate(t *testing.T) {
	r, err := ParseUpdate([]byte(`{"evaluators":["hallucination","toxicity"],"selector":{}}`))
	if err != nil {
		t.Fatal(err)
	}
	if r.HasEntity() || !r.Has("evaluators") || !r.Has("selector") || r.Has("external_id") || len(r.Evaluators) != 2 {
		t.Errorf("partial update = %+v", r)
	}
	for body, want := range map[string]string{
		`{}`: "body: nothing to update",
		`{"entity_type":"workflow","entity_value":"w"}`: "evaluators: is required when entity_type is given",
		`{"evaluators":[]}`:                             "evaluators: must list at least one evaluator",
	} {
		if _, err := ParseUpdate([]byte(body)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseUpdate(%s) = %v, want %q", body, err, want)
		}
	}
}
