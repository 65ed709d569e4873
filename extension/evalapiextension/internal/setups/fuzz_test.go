package setups

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/collector/component/componenttest"

	"github.com/evalcol/evalcol/internal/monitor"
	"github.com/evalcol/evalcol/internal/tenant"
)

// FuzzParseRequest parses fuzzed setup bodies: no panic, every error is a
// *FieldError (a 400), and every accepted request satisfies the documented
// rules and becomes a setup whose monitor condition compiles, so that an
// accepted request never fails later in the processor.
func FuzzParseRequest(f *testing.F) {
	for _, seed := range []string{
		``, ` `, `null`, `[]`, `"x"`, `{}`, `{"entity_type":`, `{} {}`, `{}x`,
		`{"entity_type":"workflow","entity_value":"w","evaluators":["char-count"],"external_id":"x"}`,
		`{"entity_type":"agent","entity_value":"a\"b\\c","evaluators":[{"evaluator_type":"toxicity-detector"},{"evaluator_id":"nope"}],"external_id":"x","sample_rate":0.25,"backfill_from_timestamp_sec":1700000000}`,
		`{"entity_type":"model","entity_value":"gpt-4o","evaluators":["pii-detector"],"external_id":"x","selector":{"llm.vendor":"openai","n":3,"b":true}}`,
		`{"entity_type":"service","entity_value":"svc","evaluators":["char-count"],"external_id":"x","selector":[{"key":"k","operator":"in","values":["a",1,false]}]}`,
		`{"entity_type":"span","entity_value":"chat","evaluators":["char-count"],"external_id":"x","selector":[{"key":"k","source":"resource_attributes","op":"greater_than","value":5}]}`,
		`{"entity_type":"entity","entity_value":"e","evaluators":["char-count"],"external_id":"x","selector":[{"source":"span_name","operator":"starts_with","value":"llm."}]}`,
		`{"entity_type":"entity","entity_value":"e","evaluators":["char-count"],"external_id":"x","selector":[{"key":"k","operator":"exists","value":1}]}`,
		`{"entity_type":"entity","entity_value":"e","evaluators":["char-count"],"external_id":"x","selector":[{"key":"k","operator":"in","value":"[1,2]"}]}`,
		`{"entity_type":"entity","entity_value":"e","evaluators":["char-count"],"external_id":"x","selector":[{"key":"k","operator":"less_than","value":"1e999"}]}`,
		`{"entity_type":"entity","entity_value":"e","evaluators":["char-count"],"external_id":"x","selector":[{"key":"k","operator":"equals","value":"true","value_type":"boolean"}]}`,
		`{"entity_type":"entity","entity_value":"e","evaluators":["char-count"],"external_id":"x","selector":[{"key":"k","operator":"equals","value":"x","value_type":"date"}]}`,
		`{"entity_type":"entity","entity_value":"e","evaluators":["char-count"],"external_id":"x","selector":[{"key":"k","operator":"equals","value":"x","extra":1}]}`,
		`{"entity_type":"entity","entity_value":"e","evaluators":["char-count"],"external_id":"x","selector":{"":"x"}}`,
		`{"entity_type":"entity","entity_value":"e","evaluators":["char-count"],"external_id":"x","selector":"a=b"}`,
		`{"entity_type":"workflow","entity_value":"w","evaluators":["char-count"],"external_id":"x","sample_rate":"NaN"}`,
		`{"entity_type":"workflow","entity_value":"w","evaluators":["char-count"],"external_id":"x","backfill_from_timestamp_sec":1e300}`,
		`{"entity_type":"workflow","entity_value":"w","evaluators":[" "],"external_id":"x"}`,
		`{"entity_type":"workflow","entity_value":"w","evaluators":[{"evaluator_type":""}],"external_id":"x"}`,
		"{\"entity_type\":\"workflow\",\"entity_value\":\"\xff\",\"evaluators\":[\"char-count\"],\"external_id\":\"\xfe\"}",
		`{"entity_type":"workflow","entity_value":"') or true or ('","evaluators":["char-count"],"external_id":"x","selector":{"k\") or (true":"v\" or \"1\"==\"1"}}`,
		`{"entity_type":"workflow","entity_value":"w","evaluators":["char-count"],"external_id":"x","colour":"red"}`,
		`{"entity_type":"workflow","entity_value":"w","evaluators":["char-count"],"external_id":"x","selector":[[[[[[[[[[]]]]]]]]]]}`,
		`{"evaluators":["TOXICITY_DETECTOR","toxicity","toxicity-detector",{"evaluator_type":"hallucination"}]}`,
		`{"evaluators":[{"evaluator_type":"x","evaluator_id":"y"}]}`,
		`{"entity_value":"w","evaluators":["char-count"]}`,
		`{"evaluators":["char-count"],"selector":[{"key":"k","source":"span_attributes","operator":"not_contains","value":"x"}]}`,
		// Found by fuzzing: an unknown field with an empty name gave a
		// FieldError without a field (": unknown field (known: ...)").
		`{"":0}`,
	} {
		f.Add([]byte(seed))
	}
	compiler, err := monitor.NewCompiler(componenttest.NewNopTelemetrySettings())
	if err != nil {
		f.Fatal(err)
	}
	t0 := time.Date(2026, 1, 15, 10, 30, 0, 0, time.UTC)
	ten := tenant.Tenant{Environment: "env \"a\"", OrganizationID: "org", ProjectID: "p"}
	f.Fuzz(func(t *testing.T, body []byte) {
		if len(body) > 8<<10 {
			return
		}
		r, err := ParseRequest(body)
		if err != nil {
			var fe *FieldError
			if !errors.As(err, &fe) {
				t.Fatalf("error %v (%T) is not a *FieldError", err, err)
			}
			if fe.Field == "" || fe.Msg == "" {
				t.Fatalf("FieldError %+v lacks a field or a message", fe)
			}
			return
		}
		if r.EntityType != "" || r.EntityValue != "" { // an entity is optional, but whole
			if !slices.Contains(EntityTypes, r.EntityType) {
				t.Fatalf("accepted entity_type %q", r.EntityType)
			}
			if strings.TrimSpace(r.EntityValue) == "" || len(r.EntityValue) > MaxEntityValueBytes {
				t.Fatalf("accepted entity_value %q", r.EntityValue)
			}
		}
		if r.Has("external_id") && strings.TrimSpace(r.ExternalID) == "" || len(r.ExternalID) > MaxExternalIDBytes {
			t.Fatalf("accepted external_id %q", r.ExternalID)
		}
		if len(r.Evaluators) == 0 || len(r.Evaluators) > MaxEvaluators {
			t.Fatalf("accepted %d evaluators", len(r.Evaluators))
		}
		seen := map[string]bool{}
		for i, e := range r.Evaluators {
			if strings.TrimSpace(e.Name) == "" {
				t.Fatalf("evaluators[%d] has an empty name", i)
			}
			key := e.Slug + "\x00" + e.Name
			if e.Slug != "" {
				key = e.Slug
			}
			if seen[key] {
				t.Fatalf("evaluators[%d] (%+v) is a duplicate that was not merged", i, e)
			}
			seen[key] = true
		}
		if len(r.Rules) > MaxSelectorRules || len(r.Selector) > MaxSelectorBytes {
			t.Fatalf("accepted a selector of %d rules, %d bytes", len(r.Rules), len(r.Selector))
		}
		if !(r.SampleRate >= 0 && r.SampleRate <= 1) {
			t.Fatalf("sample_rate %v outside 0..1", r.SampleRate)
		}
		if r.BackfillFromSec < 0 {
			t.Fatalf("backfill_from_timestamp_sec %d is negative", r.BackfillFromSec)
		}
		// The setup built from an accepted request compiles into a monitor.
		sp, err := spec(build(r, ten, t0, nil, nil))
		if err != nil {
			t.Fatalf("accepted request %+v gives a setup without a monitor spec: %v", r, err)
		}
		if err := compiler.CompileCondition(sp.Condition); err != nil {
			t.Fatalf("accepted request %+v gives a condition that does not compile: %v\ncondition: %s", r, err, sp.Condition)
		}
	})
}
