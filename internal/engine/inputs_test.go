package engine

import (
	"testing"

	"go.opentelemetry.io/collector/pdata/pcommon"

	"github.com/evalcol/evalcol/evaluators"
)

// TestDefaultInputs: the exported default mapping gives each evaluator the
// side of the exchange it judges, cut to maxText, and leaves out inputs the
// span does not have.
func TestDefaultInputs(t *testing.T) {
	attrs := pcommon.NewMap()
	attrs.PutStr("gen_ai.prompt.0.role", "user")
	attrs.PutStr("gen_ai.prompt.0.content", "Write to jane.doe@example.com")
	attrs.PutStr("gen_ai.completion.0.role", "assistant")
	attrs.PutStr("gen_ai.completion.0.content", "Sure, here is a draft for Jane.")
	attrs.PutStr("truth", "A draft.")
	def := func(slug string) *evaluators.Definition {
		d, ok := evaluators.Lookup(slug)
		if !ok {
			t.Fatalf("no %s", slug)
		}
		return d
	}
	for _, tc := range []struct {
		slug string
		max  int
		want map[string]string
	}{
		{"toxicity-detector", 0, map[string]string{"text": "Sure, here is a draft for Jane."}},
		{"pii-detector", 0, map[string]string{"text": "Write to jane.doe@example.com\n\nSure, here is a draft for Jane."}},
		{"pii-detector", 40, map[string]string{"text": "Write to jane.doe@e\n\nSure, here is a dra"}},
		{"prompt-injection", 8, map[string]string{"prompt": "Write to"}},
		{"answer-correctness", 0, map[string]string{"question": "Write to jane.doe@example.com", "completion": "Sure, here is a draft for Jane.", "ground_truth": "A draft."}},
		// Traceloop's other slugs (issue 30).
		{"word-count-ratio", 0, map[string]string{"numerator_text": "Sure, here is a draft for Jane.", "denominator_text": "Write to jane.doe@example.com"}},
		{"prompt-perplexity", 0, map[string]string{"prompt": "Write to jane.doe@example.com"}},
		{"context-relevance", 0, map[string]string{"query": "Write to jane.doe@example.com", "completion": "Sure, here is a draft for Jane."}},
		{"instruction-adherence", 0, map[string]string{"response": "Sure, here is a draft for Jane."}},
		{"agent-goal-completeness", 0, map[string]string{"trajectory_prompts": `["Write to jane.doe@example.com"]`, "trajectory_completions": `["Sure, here is a draft for Jane."]`}},
		{"agent-tool-error-detector", 0, map[string]string{}},
		{"json-validator", 0, map[string]string{"text": "Sure, here is a draft for Jane."}},
	} {
		got := DefaultInputs(attrs, def(tc.slug), "truth", tc.max)
		if len(got) != len(tc.want) {
			t.Errorf("%s: %v, want %v", tc.slug, got, tc.want)
		}
		for k, v := range tc.want {
			if got[k] != v {
				t.Errorf("%s: %s = %q, want %q", tc.slug, k, got[k], v)
			}
		}
	}
}

// TestDefaultToolInputs: a tool span's arguments and result feed the tool
// evaluators, from the GenAI attributes or a tool entity's input and
// output.
func TestDefaultToolInputs(t *testing.T) {
	def, _ := evaluators.Lookup("agent-tool-error-detector")
	genAI := pcommon.NewMap()
	genAI.PutStr("gen_ai.tool.call.arguments", `{"q": "x"}`)
	genAI.PutStr("gen_ai.tool.call.result", `{"error": "boom"}`)
	entity := pcommon.NewMap()
	entity.PutStr("traceloop.span.kind", "tool")
	entity.PutStr("traceloop.entity.input", `{"city": "Oslo"}`)
	entity.PutStr("traceloop.entity.output", "sunny")
	for name, tc := range map[string]struct {
		attrs pcommon.Map
		want  map[string]string
	}{
		"gen_ai":         {genAI, map[string]string{"tool_input": `{"q": "x"}`, "tool_output": `{"error": "boom"}`}},
		"traceloop tool": {entity, map[string]string{"tool_input": `{"city": "Oslo"}`, "tool_output": "sunny"}},
	} {
		got := DefaultInputs(tc.attrs, def, "", 0)
		if len(got) != len(tc.want) || got["tool_input"] != tc.want["tool_input"] || got["tool_output"] != tc.want["tool_output"] {
			t.Errorf("%s: %v, want %v", name, got, tc.want)
		}
	}
}
