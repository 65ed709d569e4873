package evaluators

import (
	"context"
	"errors"
	"strings"
	"testing"
)

func TestCatalogueIsComplete(t *testing.T) {
	want := []string{
		"answer-correctness", "answer-relevancy", "char-count", "conversation-quality", "faithfulness",
		"html-comparison", "perplexity", "pii-detector", "placeholder-regex", "prompt-injection",
		"regex-validator", "secrets-detector", "semantic-similarity", "sexism-detector",
		"toxicity-detector", "uncertainty-detector", "word-count",
	}
	want = append(want, "profanity-detector")
	// Traceloop's other prebuilt slugs (issue 30): the 35 of its Node SDK
	// 0.27.0's EVALUATOR_SLUGS.
	want = append(want, "agent-efficiency", "agent-flow-quality", "agent-goal-accuracy", "agent-goal-completeness",
		"agent-tool-error-detector", "agent-tool-trajectory", "answer-completeness", "char-count-ratio",
		"context-relevance", "instruction-adherence", "intent-change", "json-validator", "prompt-perplexity",
		"sql-validator", "tone-detection", "topic-adherence", "word-count-ratio")
	got := Slugs()
	if len(got) != 35 || len(Catalogue()) != 35 {
		t.Fatalf("catalogue has %d slugs (%d definitions), want 35", len(got), len(Catalogue()))
	}
	for _, slug := range want {
		if _, ok := Lookup(slug); !ok {
			t.Errorf("slug %s missing", slug)
		}
	}
}

// TestDefinitionsAreConsistent checks every catalogue entry against the
// rules the API and the processor rely on.
func TestDefinitionsAreConsistent(t *testing.T) {
	categories := map[Category]bool{CategoryQuality: true, CategoryFormatting: true, CategorySecurity: true, CategoryStyle: true}
	types := map[FieldType]bool{TypeString: true, TypeBoolean: true, TypeNumber: true, TypeInteger: true, TypeStringArray: true}
	for _, d := range Catalogue() {
		t.Run(d.Slug, func(t *testing.T) {
			if !categories[d.Category] || d.Description == "" || d.PassDoc == "" {
				t.Errorf("category %q, description %q, pass doc %q", d.Category, d.Description, d.PassDoc)
			}
			if d.run == nil || d.pass == nil {
				t.Fatal("run or pass function missing")
			}
			if len(d.Inputs) == 0 || len(d.Outputs) == 0 {
				t.Fatalf("inputs %d, outputs %d", len(d.Inputs), len(d.Outputs))
			}
			if _, ok := findField(d.Outputs, d.Score); !ok {
				t.Errorf("score field %q is not an output", d.Score)
			}
			if d.Side != SideInput && d.Side != SideOutput && d.Side != SideBoth && d.Side != SideExchange {
				t.Errorf("side %q", d.Side)
			}
			if _, clash := findField(d.Outputs, "explanation"); clash {
				t.Error(`an output named "explanation" clashes with the execute endpoints' explain=true answer`)
			}
			for _, group := range [][]Field{d.Inputs, d.Config, d.Outputs} {
				for _, f := range group {
					if f.Name == "" || !types[f.Type] || f.Label == "" || f.Description == "" {
						t.Errorf("field %+v incomplete", f)
					}
				}
			}
			for _, f := range d.Config {
				if f.Default != nil {
					if _, err := checkConfigValue(f, f.Default); err != nil {
						t.Errorf("default of config.%s is invalid: %v", f.Name, err)
					}
				}
			}
		})
	}
}

// The spec's response field names and types, per slug.
var specOutputs = map[string]map[string]FieldType{
	"sexism-detector": {"is_safe": TypeString}, "toxicity-detector": {"is_safe": TypeString},
	"prompt-injection": {"has_injection": TypeString}, "pii-detector": {"has_pii": TypeBoolean},
	"secrets-detector": {"has_secret": TypeBoolean}, "profanity-detector": {"has_profanity": TypeBoolean},
	"uncertainty-detector": {"answer": TypeString, "uncertainty": TypeNumber}, "faithfulness": {"is_faithful": TypeBoolean},
	"answer-correctness": {"correctness_score": TypeNumber}, "answer-relevancy": {"is_relevant": TypeBoolean},
	"semantic-similarity": {"similarity_score": TypeNumber}, "conversation-quality": {"conversation_quality_score": TypeNumber},
	"perplexity": {"perplexity_score": TypeNumber}, "placeholder-regex": {"is_valid_regex": TypeBoolean},
	"regex-validator": {"is_valid_regex": TypeBoolean}, "html-comparison": {"similarity_score": TypeNumber},
	"word-count": {"word_count": TypeInteger}, "char-count": {"char_count": TypeInteger},
	// Traceloop's response models (openllmetry's
	// traceloop/sdk/generated/evaluators/response.py), plus prompt-perplexity's
	// is_valid, the field the Node SDK's promptPerplexityGuard reads.
	"agent-efficiency": {"step_efficiency_score": TypeNumber, "step_efficiency_reason": TypeString,
		"task_completion_score": TypeNumber, "task_completion_reason": TypeString},
	"agent-flow-quality":        {"score": TypeNumber, "result": TypeString, "reason": TypeString},
	"agent-goal-accuracy":       {"accuracy_score": TypeNumber},
	"agent-goal-completeness":   {"score": TypeNumber, "result": TypeString, "reason": TypeString},
	"agent-tool-error-detector": {"result": TypeString, "reason": TypeString},
	"agent-tool-trajectory":     {"score": TypeNumber, "result": TypeString, "reason": TypeString},
	"answer-completeness":       {"answer_completeness_score": TypeNumber},
	"char-count-ratio":          {"char_ratio": TypeNumber},
	"context-relevance":         {"relevance_score": TypeNumber},
	"instruction-adherence":     {"instruction_adherence_score": TypeNumber},
	"intent-change":             {"pass": TypeBoolean, "reason": TypeString, "score": TypeInteger},
	"json-validator":            {"is_valid_json": TypeBoolean},
	"prompt-perplexity":         {"perplexity_score": TypeNumber, "is_valid": TypeBoolean},
	"sql-validator":             {"is_valid_sql": TypeBoolean},
	"tone-detection":            {"tone": TypeString, "score": TypeNumber},
	"topic-adherence":           {"adherence_score": TypeNumber},
	"word-count-ratio":          {"word_ratio": TypeNumber},
}

// sampleInputs are valid inputs for every slug.
var sampleInputs = map[string]map[string]any{
	"sexism-detector":           {"text": "Have a lovely day."},
	"toxicity-detector":         {"text": "Have a lovely day."},
	"prompt-injection":          {"prompt": "What is the capital of France?"},
	"pii-detector":              {"text": "Write to jane.doe@example.com."},
	"secrets-detector":          {"text": "No secrets here."},
	"profanity-detector":        {"text": "What a nice day."},
	"uncertainty-detector":      {"prompt": "I think it is probably Paris."},
	"faithfulness":              {"completion": "Paris is the capital.", "context": "Paris is the capital of France.", "question": "What is the capital?"},
	"answer-correctness":        {"question": "Capital of France?", "completion": "Paris", "ground_truth": "Paris"},
	"answer-relevancy":          {"answer": "Paris is the capital of France.", "question": "What is the capital of France?"},
	"semantic-similarity":       {"completion": "A cat sits.", "reference": "A cat is sitting."},
	"conversation-quality":      {"prompts": `["Hi, can you help?"]`, "completions": `["Of course, what do you need?"]`},
	"perplexity":                {"logprobs": `[-0.1, -0.2]`},
	"placeholder-regex":         {"placeholder_value": `\d+`, "text": "order 42"},
	"regex-validator":           {"text": "order 42"},
	"html-comparison":           {"html1": "<p>a</p>", "html2": "<p>a</p>"},
	"word-count":                {"text": "two words"},
	"char-count":                {"text": "abc"},
	"agent-efficiency":          {"trajectory_prompts": `["Find user info", "Update email"]`, "trajectory_completions": `["User found", "Email updated"]`},
	"agent-flow-quality":        {"trajectory_prompts": `["Search for flights"]`, "trajectory_completions": `["Found 5 flights"]`},
	"agent-goal-accuracy":       {"question": "Book a flight to LA", "completion": "Your flight to LA is booked.", "reference": "Flight booked to LA"},
	"agent-goal-completeness":   {"trajectory_prompts": `["Create new account"]`, "trajectory_completions": `["Account created"]`},
	"agent-tool-error-detector": {"tool_input": `{"q": "x"}`, "tool_output": `{"status": "success"}`},
	"agent-tool-trajectory":     {"executed_tool_calls": `["search"]`, "expected_tool_calls": `["search"]`},
	"answer-completeness":       {"question": "What is the capital of France?", "completion": "Paris.", "context": "The capital of France is Paris."},
	"char-count-ratio":          {"numerator_text": "ab", "denominator_text": "abcd"},
	"context-relevance":         {"query": "What is the capital of France?", "context": "The capital of France is Paris."},
	"instruction-adherence":     {"instructions": "Answer in one word.", "response": "Paris"},
	"intent-change":             {"prompts": `["Book a hotel"]`, "completions": `["Sure."]`},
	"json-validator":            {"text": `{"a": 1}`},
	"prompt-perplexity":         {"prompt": "What is the capital of France?"},
	"sql-validator":             {"text": "SELECT 1"},
	"tone-detection":            {"text": "I am so happy!"},
	"topic-adherence":           {"question": "Tell me about AI", "completion": "AI learns from data.", "reference_topics": "artificial intelligence, data"},
	"word-count-ratio":          {"numerator_text": "two words", "denominator_text": "four words right here"},
}

// TestResultsMatchTheSpec runs every evaluator once and checks that the
// response has exactly the spec's fields, with the spec's JSON types.
func TestResultsMatchTheSpec(t *testing.T) {
	for slug, fields := range specOutputs {
		t.Run(slug, func(t *testing.T) {
			var config map[string]any
			if slug == "regex-validator" {
				config = map[string]any{"regex": `\d+`}
			}
			res, err := Evaluate(context.Background(), slug, sampleInputs[slug], config)
			if err != nil {
				t.Fatalf("Evaluate: %v", err)
			}
			if len(res) != len(fields) {
				t.Errorf("result %v has %d fields, want %d", res, len(res), len(fields))
			}
			for name, typ := range fields {
				v, ok := res[name]
				if !ok {
					t.Errorf("field %s missing from %v", name, res)
					continue
				}
				var okType bool
				switch typ {
				case TypeString:
					_, okType = v.(string)
				case TypeBoolean:
					_, okType = v.(bool)
				case TypeNumber:
					_, okType = v.(float64)
				case TypeInteger:
					_, okType = v.(int)
				}
				if !okType {
					t.Errorf("field %s = %#v, want JSON %s", name, v, typ)
				}
				if f, _ := findField(mustLookup(t, slug).Outputs, name); len(f.EnumValues) > 0 && v != f.EnumValues[0] && v != f.EnumValues[1] {
					t.Errorf("field %s = %v, not one of %v", name, v, f.EnumValues)
				}
			}
		})
	}
}

func mustLookup(t *testing.T, slug string) *Definition {
	t.Helper()
	d, ok := Lookup(slug)
	if !ok {
		t.Fatalf("no %s", slug)
	}
	return d
}

func TestEvaluateErrors(t *testing.T) {
	tests := []struct {
		name          string
		slug          string
		input, config map[string]any
		kind          ErrorKind
		field, msg    string
		status        int
	}{
		{"unknown slug", "nope", nil, nil, KindUnknownEvaluator, "", `unknown evaluator "nope"`, 404},
		{"missing input", "char-count", map[string]any{}, nil, KindInvalidInput, "input.text", "input.text is required", 400},
		{"null input", "char-count", map[string]any{"text": nil}, nil, KindInvalidInput, "input.text", "input.text is required", 400},
		{"array input", "char-count", map[string]any{"text": []any{"a"}}, nil, KindInvalidInput, "input.text", "input.text must be a string, got array", 400},
		{"unknown config", "toxicity-detector", map[string]any{"text": "a"}, map[string]any{"x": 1.0}, KindInvalidInput, "config.x", "config.x is not a config field of toxicity-detector (known: threshold)", 400},
		{"threshold below 0", "toxicity-detector", map[string]any{"text": "a"}, map[string]any{"threshold": -0.1}, KindInvalidInput, "config.threshold", "config.threshold must be between 0 and 1, got -0.1", 400},
		{"bool config as string", "regex-validator", map[string]any{"text": "a"}, map[string]any{"regex": "a", "should_match": "yes"}, KindInvalidInput, "config.should_match", "config.should_match must be a boolean, got string", 400},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Evaluate(context.Background(), tt.slug, tt.input, tt.config)
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("error %v is not an *Error", err)
			}
			if e.Kind != tt.kind || e.Field != tt.field || e.Msg != tt.msg || e.HTTPStatus() != tt.status {
				t.Errorf("got kind %d field %q msg %q status %d; want %d %q %q %d", e.Kind, e.Field, e.Msg, e.HTTPStatus(), tt.kind, tt.field, tt.msg, tt.status)
			}
		})
	}
}

func TestConfigDefaultsAreFilled(t *testing.T) {
	req, err := mustLookup(t, "pii-detector").NewRequest(map[string]any{"text": "x"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if req.Float("probability_threshold") != 0.7 {
		t.Errorf("probability_threshold default = %v, want 0.7", req.Config["probability_threshold"])
	}
	req, err = mustLookup(t, "regex-validator").NewRequest(map[string]any{"text": "x"}, map[string]any{"case_sensitive": false})
	if err != nil {
		t.Fatal(err)
	}
	if !req.Bool("should_match") || req.Bool("case_sensitive") || req.Bool("dot_include_nl") || req.Bool("multi_line") || req.Has("regex") {
		t.Errorf("regex flags = %v", req.Config)
	}
}

func TestRunRecoversPanics(t *testing.T) {
	d := Definition{Slug: "boom", run: func(context.Context, Request) (Result, error) { panic("kaboom") }}
	res, err := d.Run(context.Background(), Request{})
	if res != nil || !errors.Is(err, ErrPanic) || KindOf(err) != KindInternal || !strings.Contains(err.Error(), "kaboom") {
		t.Fatalf("Run of a panicking evaluator = %v, %v; want an internal error wrapping ErrPanic", res, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := mustLookup(t, "char-count").Run(ctx, Request{Input: map[string]string{"text": "a"}}); KindOf(err) != KindInternal {
		t.Errorf("Run with a cancelled context = %v, want an internal error", err)
	}
}

func TestScoreOfAndPass(t *testing.T) {
	tests := []struct {
		slug  string
		res   Result
		value float64
		label string
		pass  bool
	}{
		{"toxicity-detector", Result{"is_safe": "safe"}, 1, "safe", true},
		{"prompt-injection", Result{"has_injection": "unsafe"}, 0, "unsafe", false},
		{"pii-detector", Result{"has_pii": true}, 1, "true", false},
		{"faithfulness", Result{"is_faithful": true}, 1, "true", true},
		{"semantic-similarity", Result{"similarity_score": 0.4}, 0.4, "", false},
		{"char-count", Result{"char_count": 12}, 12, "", true},
		{"uncertainty-detector", Result{"uncertainty": 0.2, "answer": "x"}, 0.2, "", true},
	}
	for _, tt := range tests {
		d := mustLookup(t, tt.slug)
		v, l := d.ScoreOf(tt.res)
		if v != tt.value || l != tt.label || d.Pass(tt.res) != tt.pass {
			t.Errorf("%s %v: score %v %q pass %v; want %v %q %v", tt.slug, tt.res, v, l, d.Pass(tt.res), tt.value, tt.label, tt.pass)
		}
	}
}

// BenchmarkEvaluate runs every evaluator through Evaluate, as the API does,
// on about 1 KB of English prose in each text input (perplexity: 200
// logprobs; conversation-quality: 4 turns of 256 bytes each way).
func BenchmarkEvaluate(b *testing.B) {
	text := prose1KB
	turns := `["` + strings.Repeat("How do I reset my password on the portal? ", 6) + `","Thanks, and how do I change my email address?","Can I do that from the mobile app too?","Great, thank you."]`
	answers := `["` + strings.Repeat("Open the portal, choose Settings, then Security. ", 5) + `","Go to Settings, then Profile, and edit the email field.","Yes, the app has the same Settings page.","You are welcome."]`
	logprobs := "[" + strings.TrimSuffix(strings.Repeat("-0.25,", 200), ",") + "]"
	for _, d := range Catalogue() {
		input := map[string]any{}
		for i, f := range d.Inputs {
			// Different texts per input, so no evaluator takes an
			// identical-inputs shortcut.
			input[f.Name] = text[i*40:] + text[:i*40]
		}
		var config map[string]any
		switch d.Slug {
		case "perplexity":
			input["logprobs"] = logprobs
		case "conversation-quality":
			input["prompts"], input["completions"] = turns, answers
		case "placeholder-regex":
			input["placeholder_value"] = `\b[Rr]ailway\b`
		case "regex-validator":
			config = map[string]any{"regex": `\b[Rr]ailway\b`}
		case "html-comparison":
			input["html1"] = "<html><body><h1>Report</h1><p class=\"lead\">" + text[:500] + "</p></body></html>"
			input["html2"] = "<html><body><h1>Report</h1><p class=\"intro\">" + text[500:] + "</p></body></html>"
		default:
			if extra, ok := benchInputs[d.Slug]; ok {
				for k, v := range extra {
					input[k] = v
				}
				config = benchConfigs[d.Slug]
			}
		}
		b.Run(d.Slug, func(b *testing.B) {
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Evaluate(ctx, d.Slug, input, config); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func TestGuardrailResult(t *testing.T) {
	tests := []struct {
		slug string
		in   Result
		want Result
	}{
		{"toxicity-detector", Result{"is_safe": "safe"}, Result{"is_safe": true}},
		{"sexism-detector", Result{"is_safe": "unsafe"}, Result{"is_safe": false}},
		{"prompt-injection", Result{"has_injection": "unsafe"}, Result{"has_injection": true}},
		{"prompt-injection", Result{"has_injection": "safe"}, Result{"has_injection": false}},
		{"profanity-detector", Result{"has_profanity": true}, Result{"has_profanity": true, "is_safe": false}},
		{"pii-detector", Result{"has_pii": false}, Result{"has_pii": false}},
		{"char-count", Result{"char_count": 3}, Result{"char_count": 3}},
	}
	for _, tt := range tests {
		got := mustLookup(t, tt.slug).GuardrailResult(tt.in)
		if len(got) != len(tt.want) {
			t.Errorf("%s: %v, want %v", tt.slug, got, tt.want)
		}
		for k, v := range tt.want {
			if got[k] != v {
				t.Errorf("%s: %s = %#v, want %#v", tt.slug, k, got[k], v)
			}
		}
	}
}
