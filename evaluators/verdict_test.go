package evaluators

import "testing"

// TestVerdictOf: a stored result gets the verdict of the evaluator's pass
// condition (the guardrail's), error when it did not run, none for a slug
// outside the catalogue; integers read back as int64 count as numbers.
func TestVerdictOf(t *testing.T) {
	for _, tc := range []struct {
		slug   string
		output map[string]any
		err    string
		want   Verdict
	}{
		{"toxicity-detector", map[string]any{"is_safe": "unsafe"}, "", VerdictFail},
		{"toxicity-detector", map[string]any{"is_safe": "safe"}, "", VerdictPass},
		{"pii-detector", map[string]any{"has_pii": true}, "", VerdictFail},
		{"answer-correctness", map[string]any{"correctness_score": int64(1)}, "", VerdictPass},
		{"answer-correctness", map[string]any{"correctness_score": 0.2}, "", VerdictFail},
		{"char-count", map[string]any{"char_count": int64(12)}, "", VerdictPass},
		{"toxicity-detector", nil, "timeout: evaluation timed out", VerdictError},
		{"toxicity-detector", nil, "", VerdictError},
		{"my-own-judge", map[string]any{"score": 0.1}, "", VerdictNone},
		{"my-own-judge", nil, "failed", VerdictError},
	} {
		if got := VerdictOf(tc.slug, tc.output, tc.err); got != tc.want {
			t.Errorf("VerdictOf(%s, %v, %q) = %q, want %q", tc.slug, tc.output, tc.err, got, tc.want)
		}
		if d, ok := Lookup(tc.slug); ok && tc.err == "" && tc.output != nil {
			r := Result{}
			for k, v := range tc.output {
				if i, isInt := v.(int64); isInt {
					v = float64(i)
				}
				r[k] = v
			}
			if (tc.want == VerdictPass) != d.Pass(r) {
				t.Errorf("%s %v: verdict %q disagrees with the guardrail's Pass", tc.slug, tc.output, tc.want)
			}
		}
	}
}
