package httpapi

import (
	"encoding/json"
	"strings"
	"testing"
)

// traceloopSlugs are the evaluator slugs of Traceloop's Node SDK 0.27.0
// (EVALUATOR_SLUGS) with the input and config fields of its
// EVALUATOR_SCHEMAS (requiredInputFields, optionalConfigFields).
var traceloopSlugs = map[string]struct{ inputs, config []string }{
	"agent-efficiency":          {[]string{"trajectory_completions", "trajectory_prompts"}, nil},
	"agent-flow-quality":        {[]string{"trajectory_completions", "trajectory_prompts"}, []string{"conditions", "threshold"}},
	"agent-goal-accuracy":       {[]string{"completion", "question", "reference"}, nil},
	"agent-goal-completeness":   {[]string{"trajectory_completions", "trajectory_prompts"}, []string{"threshold"}},
	"agent-tool-error-detector": {[]string{"tool_input", "tool_output"}, nil},
	"agent-tool-trajectory":     {[]string{"executed_tool_calls", "expected_tool_calls"}, []string{"input_params_sensitive", "mismatch_sensitive", "order_sensitive", "threshold"}},
	"answer-completeness":       {[]string{"completion", "context", "question"}, nil},
	"answer-correctness":        {[]string{"completion", "ground_truth", "question"}, nil},
	"answer-relevancy":          {[]string{"answer", "question"}, nil},
	"char-count":                {[]string{"text"}, nil},
	"char-count-ratio":          {[]string{"denominator_text", "numerator_text"}, nil},
	"context-relevance":         {[]string{"completion", "context", "query"}, []string{"model"}},
	"conversation-quality":      {[]string{"completions", "prompts"}, nil},
	"faithfulness":              {[]string{"completion", "context", "question"}, nil},
	"html-comparison":           {[]string{"html1", "html2"}, nil},
	"instruction-adherence":     {[]string{"instructions", "response"}, nil},
	"intent-change":             {[]string{"completions", "prompts"}, nil},
	"json-validator":            {[]string{"text"}, []string{"enable_schema_validation", "schema_string"}},
	"perplexity":                {[]string{"logprobs"}, nil},
	"pii-detector":              {[]string{"text"}, []string{"probability_threshold"}},
	"placeholder-regex":         {[]string{"placeholder_name", "placeholder_value", "text"}, []string{"case_sensitive", "dot_include_nl", "multi_line", "should_match"}},
	"profanity-detector":        {[]string{"text"}, nil},
	"prompt-injection":          {[]string{"prompt"}, []string{"threshold"}},
	"prompt-perplexity":         {[]string{"prompt"}, nil},
	"regex-validator":           {[]string{"text"}, []string{"case_sensitive", "dot_include_nl", "multi_line", "regex", "should_match"}},
	"secrets-detector":          {[]string{"text"}, nil},
	"semantic-similarity":       {[]string{"completion", "reference"}, nil},
	"sexism-detector":           {[]string{"text"}, []string{"threshold"}},
	"sql-validator":             {[]string{"text"}, nil},
	"tone-detection":            {[]string{"text"}, nil},
	"topic-adherence":           {[]string{"completion", "question", "reference_topics"}, nil},
	"toxicity-detector":         {[]string{"text"}, []string{"threshold"}},
	"uncertainty-detector":      {[]string{"prompt"}, nil},
	"word-count":                {[]string{"text"}, nil},
	"word-count-ratio":          {[]string{"denominator_text", "numerator_text"}, nil},
}

// TestCatalogueHasTraceloopsSlugs: GET /v2/evaluators lists every slug of
// Traceloop's SDK with every input and config field its schema names.
func TestCatalogueHasTraceloopsSlugs(t *testing.T) {
	s := newTestServer(t, nil)
	status, got := s.do(t, "GET", "/v2/evaluators", authA, nil)
	if status != 200 {
		t.Fatalf("GET /v2/evaluators = %d %v", status, got)
	}
	served := map[string]map[string]any{}
	for _, e := range got["evaluators"].([]any) {
		m := e.(map[string]any)
		served[m["slug"].(string)] = m
	}
	if len(served) != len(traceloopSlugs) {
		t.Errorf("%d evaluators served, Traceloop's SDK lists %d", len(served), len(traceloopSlugs))
	}
	names := func(v any) map[string]string {
		out := map[string]string{}
		list, _ := v.([]any)
		for _, f := range list {
			m := f.(map[string]any)
			out[m["name"].(string)] = m["type"].(string)
		}
		return out
	}
	for slug, want := range traceloopSlugs {
		e, ok := served[slug]
		if !ok {
			t.Errorf("%s is not in the catalogue", slug)
			continue
		}
		ins, cfg := names(e["input_schema"]), names(e["config_schema"])
		for _, f := range want.inputs {
			if _, ok := ins[f]; !ok {
				t.Errorf("%s lacks input %s", slug, f)
			}
		}
		for _, f := range want.config {
			if _, ok := cfg[f]; !ok {
				t.Errorf("%s lacks config %s", slug, f)
			}
		}
		paths, _ := e["paths"].([]any)
		if len(paths) != 3 {
			t.Errorf("%s paths %v", slug, paths)
		}
	}
	if typ := names(served["agent-flow-quality"]["config_schema"])["conditions"]; typ != "array" {
		t.Errorf("agent-flow-quality config.conditions has type %q, want array", typ)
	}
}

// TestNewSlugsThroughEveryPath runs a passing and a failing request of
// each of Traceloop's other slugs through the three execute paths of the
// real server (whose answers the OpenAPI document validates) and checks
// the guardrail path's condition field: present, of the type the SDK's
// guard reads, and deciding "pass" as the SDK's default condition does.
func TestNewSlugsThroughEveryPath(t *testing.T) {
	s := newTestServer(t, nil)
	traj := func(p, c string) map[string]any {
		return map[string]any{"trajectory_prompts": p, "trajectory_completions": c}
	}
	tests := []struct {
		slug       string
		pass, fail map[string]any // bodies
		field      string         // the field the guard reads
		kind       string         // its JSON type: boolean, number, string
	}{
		{"json-validator", body(map[string]any{"text": `{"a": 1}`}, nil), body(map[string]any{"text": `{"a": 1,}`}, nil), "is_valid_json", "boolean"},
		{"sql-validator", body(map[string]any{"text": "SELECT * FROM users WHERE id = 1"}, nil), body(map[string]any{"text": "SELEC * FROM users"}, nil), "is_valid_sql", "boolean"},
		{"instruction-adherence", body(map[string]any{"instructions": "Answer in exactly 2 bullet points.", "response": "- a\n- b"}, nil),
			body(map[string]any{"instructions": "Answer in exactly 2 bullet points.", "response": "Just one line."}, nil), "instruction_adherence_score", "number"},
		{"prompt-perplexity", body(map[string]any{"prompt": "What is the capital of France?"}, nil), body(map[string]any{"prompt": "xq zzkw vbnq pflrg qqxz"}, nil), "is_valid", "boolean"},
		{"tone-detection", body(map[string]any{"text": "I am so happy, thank you!"}, nil), body(map[string]any{"text": "Monday, maybe a great day, or a sad one, who knows, the report says so."}, nil), "score", "number"},
		{"char-count-ratio", body(map[string]any{"numerator_text": "ab", "denominator_text": "abcd"}, nil), nil, "char_ratio", "number"},
		{"word-count-ratio", body(map[string]any{"numerator_text": "a b", "denominator_text": ""}, nil), nil, "word_ratio", "number"},
		{"agent-tool-error-detector", body(map[string]any{"tool_input": "{}", "tool_output": `{"status": "ok"}`}, nil), body(map[string]any{"tool_input": "{}", "tool_output": `{"error": "boom"}`}, nil), "result", "string"},
		{"agent-tool-trajectory", body(map[string]any{"executed_tool_calls": `["a", "b"]`, "expected_tool_calls": `["a", "b"]`}, nil),
			body(map[string]any{"executed_tool_calls": `["b", "a"]`, "expected_tool_calls": `["a", "b"]`}, map[string]any{"order_sensitive": true, "threshold": 0.9}), "score", "number"},
		{"agent-efficiency", body(traj(`["Find user", "Update email"]`, `["User found", "Email updated"]`), nil), body(traj(`["search", "search", "search"]`, `["error: x", "error: x", "error: x"]`), nil), "task_completion_score", "number"},
		{"agent-flow-quality", body(traj(`["Search flights", "Book flight"]`, `["Found 3", "Booked"]`), map[string]any{"conditions": []any{"search flights before book flight"}, "threshold": 0.5}),
			body(traj(`["Search flights", "Book flight"]`, `["Found 3", "Booked"]`), map[string]any{"conditions": []any{"book flight before search flights"}}), "score", "number"},
		{"agent-goal-accuracy", body(map[string]any{"question": "Book a table for two", "completion": "Your table for two is booked.", "reference": "Table for two booked"}, nil),
			body(map[string]any{"question": "Book a table for two", "completion": "Sorry, I could not book it.", "reference": "Table for two booked"}, nil), "accuracy_score", "number"},
		{"agent-goal-completeness", body(traj(`["Create account"]`, `["Account created"]`), nil), body(traj(`["Create account"]`, `["I was unable to create it"]`), nil), "score", "number"},
		{"answer-completeness", body(map[string]any{"question": "What is the capital of France?", "completion": "Paris", "context": "The capital of France is Paris."}, nil),
			body(map[string]any{"question": "What is the capital of France?", "completion": "Lyon", "context": "The capital of France is Paris."}, nil), "answer_completeness_score", "number"},
		{"context-relevance", body(map[string]any{"query": "Who wrote Hamlet?", "context": "Hamlet was written by William Shakespeare.", "completion": "Shakespeare"}, map[string]any{"model": "gpt-4o"}),
			body(map[string]any{"query": "Who wrote Hamlet?", "context": "Penguins eat fish.", "completion": "?"}, nil), "relevance_score", "number"},
		{"intent-change", body(map[string]any{"prompts": `["Book a hotel", "And breakfast too?"]`, "completions": `["Sure", "Yes"]`}, nil),
			body(map[string]any{"prompts": `["Book a hotel", "Actually, a flight instead"]`, "completions": `["Sure", "OK"]`}, nil), "pass", "boolean"},
		{"topic-adherence", body(map[string]any{"question": "AI?", "completion": "Algorithms learn from data.", "reference_topics": "artificial intelligence, data science"}, nil),
			body(map[string]any{"question": "AI?", "completion": "I love pizza with olives.", "reference_topics": "artificial intelligence, data science"}, nil), "adherence_score", "number"},
	}
	for _, tc := range tests {
		t.Run(tc.slug, func(t *testing.T) {
			for _, c := range []struct {
				name string
				body map[string]any
				want bool
			}{{"pass", tc.pass, true}, {"fail", tc.fail, false}} {
				if c.body == nil {
					continue
				}
				raw, _ := json.Marshal(c.body)
				for _, p := range []string{"/v2/evaluators/execute/" + tc.slug, "/v2/evaluators/" + tc.slug + "/execute"} {
					st, got := s.do(t, "POST", p, authA, raw)
					if st != 200 || got[tc.field] == nil {
						t.Errorf("%s %s = %d %v", c.name, p, st, got)
					}
				}
				st, got := s.do(t, "POST", "/v2/guardrails/"+tc.slug+"/execute", authA, raw)
				if st != 200 {
					t.Fatalf("%s guardrail = %d %v", c.name, st, got)
				}
				result, _ := got["result"].(map[string]any)
				v, ok := result[tc.field]
				if !ok || jsonKind(v) != tc.kind {
					t.Errorf("%s guardrail result %v: %s is %T, want a JSON %s", c.name, result, tc.field, v, tc.kind)
				}
				if got["pass"] != c.want {
					t.Errorf("%s guardrail pass = %v, want %v (%v)", c.name, got["pass"], c.want, result)
				}
			}
		})
	}
}

// TestNewSlugsBadInput: the new inputs and config fields answer 400s that
// name the field, on the execute and guardrail paths alike.
func TestNewSlugsBadInput(t *testing.T) {
	s := newTestServer(t, nil)
	tests := []struct {
		slug string
		body string
		msg  string
	}{
		{"json-validator", `{"input": {"text": "{}"}, "config": {"enable_schema_validation": true, "schema_string": "{\"type\": 12}"}}`, "config.schema_string is not a valid JSON Schema"},
		{"json-validator", `{"input": {"text": "{}"}, "config": {"enable_schema_validation": true}}`, "config.schema_string is required when config.enable_schema_validation is true"},
		{"agent-flow-quality", `{"input": {"trajectory_prompts": "[]", "trajectory_completions": "[\"x\"]"}, "config": {"conditions": "no tools"}}`, "config.conditions must be an array of strings, got string"},
		{"agent-flow-quality", `{"input": {"trajectory_prompts": "[]", "trajectory_completions": "[\"x\"]"}, "config": {"conditions": ["a", 1]}}`, "config.conditions[1] must be a string, got number"},
		{"agent-tool-trajectory", `{"input": {"executed_tool_calls": "search", "expected_tool_calls": "[]"}}`, "input.executed_tool_calls must be a JSON array of tool calls"},
		{"agent-efficiency", `{"input": {"trajectory_prompts": "[]", "trajectory_completions": "[]"}}`, "input.trajectory_prompts and input.trajectory_completions hold no step"},
		{"intent-change", `{"input": {"prompts": "[1]", "completions": "[]"}}`, "input.prompts[0] must be a string or a {role, content} object"},
		{"char-count-ratio", `{"input": {"numerator_text": "a"}}`, "input.denominator_text is required"},
		{"agent-tool-trajectory", `{"input": {"executed_tool_calls": "[]", "expected_tool_calls": "[]"}, "config": {"threshold": 1.5}}`, "config.threshold must be between 0 and 1, got 1.5"},
	}
	for _, tc := range tests {
		for _, p := range []string{"/v2/evaluators/execute/" + tc.slug, "/v2/guardrails/" + tc.slug + "/execute"} {
			st, got := s.do(t, "POST", p, authA, []byte(tc.body))
			if msg, _ := got["error"].(string); st != 400 || !strings.HasPrefix(msg, tc.msg) {
				t.Errorf("POST %s %s = %d %v; want 400 %q", p, tc.body, st, got, tc.msg)
			}
		}
	}
}

func body(input, config map[string]any) map[string]any {
	b := map[string]any{"input": input}
	if config != nil {
		b["config"] = config
	}
	return b
}

func jsonKind(v any) string {
	switch v.(type) {
	case bool:
		return "boolean"
	case float64:
		return "number"
	case string:
		return "string"
	}
	return "other"
}
