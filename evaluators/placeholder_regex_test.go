package evaluators

import (
	"context"
	"strings"
	"testing"
)

func TestPlaceholderRegex(t *testing.T) {
	for _, tt := range regexCases {
		t.Run(tt.name, func(t *testing.T) {
			res := evaluateOK(t, "placeholder-regex", map[string]any{"placeholder_value": tt.pattern, "text": tt.text}, tt.flags)
			if got := res["is_valid_regex"]; got != tt.want {
				t.Errorf("is_valid_regex = %v, want %v", got, tt.want)
			}
			d, _ := Lookup("placeholder-regex")
			if v, label := d.ScoreOf(res); (v == 1) != tt.want || label != map[bool]string{true: "true", false: "false"}[tt.want] {
				t.Errorf("ScoreOf = %v, %q; want the boolean %v", v, label, tt.want)
			}
		})
	}
}

func TestPlaceholderRegexInvalid(t *testing.T) {
	tests := []struct {
		name          string
		input, config map[string]any
		field, want   string
	}{
		{"pattern missing", map[string]any{"text": "x"}, nil, "input.placeholder_value", "input.placeholder_value is required"},
		{"pattern not a string", map[string]any{"placeholder_value": 3.0, "text": "x"}, nil, "input.placeholder_value", "input.placeholder_value must be a string, got number"},
		{"pattern does not compile", map[string]any{"placeholder_value": "[a-", "text": "x"}, nil, "input.placeholder_value", "input.placeholder_value is not a valid regex: error parsing regexp: unterminated [] set"},
		{"text missing", map[string]any{"placeholder_value": "x"}, nil, "input.text", "input.text is required"},
		{"regex is not its config", map[string]any{"placeholder_value": "x", "text": "x"}, map[string]any{"regex": "x"}, "config.regex", "config.regex is not a config field of placeholder-regex"},
		{"flag not a boolean", map[string]any{"placeholder_value": "x", "text": "x"}, map[string]any{"should_match": 1.0}, "config.should_match", "config.should_match must be a boolean, got number"},
		{"catastrophic backtracking", map[string]any{"placeholder_value": "(a+)+$", "text": strings.Repeat("a", 50000) + "!"}, nil, "input.placeholder_value", "input.placeholder_value: regex timed out after 250ms"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := Evaluate(context.Background(), "placeholder-regex", tt.input, tt.config)
			if err == nil {
				t.Fatalf("Evaluate = %v, want an error", res)
			}
			checkInvalidInput(t, err, tt.field, tt.want)
		})
	}
}

func BenchmarkPlaceholderRegex(b *testing.B) {
	input := map[string]any{"placeholder_value": `\b[Ff]ox(es)?\b`, "text": benchmarkEnglish1KB}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Evaluate(context.Background(), "placeholder-regex", input, nil); err != nil {
			b.Fatal(err)
		}
	}
}
