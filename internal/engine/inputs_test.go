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
