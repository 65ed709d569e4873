package setups

import (
	"strings"
	"testing"
	"time"

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
	s := build(r, tn, now, nil)
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
	if bad.Status != BindingFailed || bad.ErrorMessage != `unknown evaluator "no-such-thing"` || bad.ProcessedAt == nil {
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
	if got := build(allBad, tn, now, nil).Status; got != StatusFailed {
		t.Errorf("status with only unknown evaluators = %s, want failed", got)
	}
}
