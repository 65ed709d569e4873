package httpapi

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

// TestBadEvaluatorInput: inputs that used to answer 500 or a vague message
// answer 400 with a message naming the field and the problem, and leave
// the store unchanged.
func TestBadEvaluatorInput(t *testing.T) {
	s := newHostileServer(t)
	before := snapshot(t, s)
	deep := strings.Repeat("<div>", 600) + "x" + strings.Repeat("</div>", 600)
	body := func(v any) []byte {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	for _, tc := range []struct {
		name, path string
		body       []byte
		msg        string
	}{
		{"html nested deeper than 512", "/v2/evaluators/execute/html-comparison",
			body(map[string]any{"input": map[string]any{"html1": deep, "html2": "<p>x</p>"}}),
			"input.html1: elements are nested deeper than 512 levels, the most the HTML parser accepts"},
		{"html nested deeper than 512 (second)", "/v2/guardrails/html-comparison/execute",
			body(map[string]any{"input": map[string]any{"html1": "<p>x</p>", "html2": deep}}),
			"input.html2: elements are nested deeper than 512 levels"},
		{"threshold out of float range", "/v2/evaluators/execute/toxicity-detector",
			[]byte(`{"input":{"text":"hello"},"config":{"threshold": 1e999}}`),
			"config.threshold: 1e999 is out of range: numbers must be finite 64-bit floats"},
		{"negative overflow", "/v2/evaluators/execute/pii-detector",
			[]byte(`{"input":{"text":"hello"},"config":{"probability_threshold": -2e308}}`),
			"config.probability_threshold: -2e308 is out of range"},
		{"overflow in the input", "/v2/evaluators/execute/char-count",
			[]byte(`{"input":{"text":"hello","extra":[1, 1e400]}}`),
			"input.extra[1]: 1e400 is out of range"},
		{"syntax error in the regex", "/v2/evaluators/execute/regex-validator",
			body(map[string]any{"input": map[string]any{"text": "x"}, "config": map[string]any{"regex": "(("}}),
			"config.regex is not a valid regex: error parsing regexp: missing closing )"},
		{"regex too large to compile", "/v2/evaluators/execute/regex-validator",
			body(map[string]any{"input": map[string]any{"text": "x"}, "config": map[string]any{"regex": strings.Repeat("x", 70000)}}),
			"config.regex is not a valid regex: pattern too large: 70000 bytes, at most 65536 are compiled"},
		{"placeholder regex too large to compile", "/v2/evaluators/execute/placeholder-regex",
			body(map[string]any{"input": map[string]any{"text": "x", "placeholder_value": strings.Repeat("(a", 40000)}}),
			"input.placeholder_value is not a valid regex: pattern too large: 80000 bytes"},
		{"repeat count too large", "/v2/evaluators/execute/regex-validator",
			body(map[string]any{"input": map[string]any{"text": "x"}, "config": map[string]any{"regex": "a{4294967296}"}}),
			"config.regex is not a valid regex"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			status, got := s.do(t, http.MethodPost, tc.path, authA, tc.body)
			requireError(t, status, got, http.StatusBadRequest, tc.msg)
			requireUnchanged(t, s, before)
		})
	}
	// Numbers in range still work, and a threshold keeps its meaning.
	status, got := s.do(t, http.MethodPost, "/v2/evaluators/execute/toxicity-detector", authA,
		[]byte(`{"input":{"text":"Have a nice day"},"config":{"threshold": 5e-1}}`))
	if status != http.StatusOK || got["is_safe"] != "safe" {
		t.Errorf("threshold 5e-1: %d %v", status, got)
	}
}
