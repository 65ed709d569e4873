package evaluators

import (
	"context"
	"testing"
)

func TestCharCount(t *testing.T) {
	// Expected counts are len(text) in CPython 3.11.
	tests := []struct {
		name, text string
		want       int
	}{
		{"empty", "", 0},
		{"ascii", "hello", 5},
		{"precomposed accent", "h\u00e9llo", 5},
		{"combining accent", "he\u0301llo", 6},
		{"emoji", "👍", 1},
		{"emoji with skin tone", "👍🏽", 2},
		{"flag", "🇫🇷", 2},
		{"cjk", "日本語", 3},
		{"crlf", "\r\n", 2},
		{"nul byte", "a\x00b", 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := evaluateOK(t, "char-count", map[string]any{"text": tt.text}, nil)
			if got := res["char_count"]; got != tt.want {
				t.Errorf("char_count = %v, want %d", got, tt.want)
			}
			d, _ := Lookup("char-count")
			if v, _ := d.ScoreOf(res); v != float64(tt.want) {
				t.Errorf("ScoreOf = %v, want %d", v, tt.want)
			}
		})
	}
}

func TestCharCountInvalid(t *testing.T) {
	tests := []struct {
		name        string
		input       map[string]any
		field, want string
	}{
		{"text missing", map[string]any{"prompt": "a"}, "input.text", "input.text is required"},
		{"text an array", map[string]any{"text": []any{"a"}}, "input.text", "input.text must be a string, got array"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := Evaluate(context.Background(), "char-count", tt.input, nil)
			if err == nil {
				t.Fatalf("Evaluate = %v, want an error", res)
			}
			checkInvalidInput(t, err, tt.field, tt.want)
		})
	}
}

func BenchmarkCharCount(b *testing.B) {
	input := map[string]any{"text": benchmarkEnglish1KB}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Evaluate(context.Background(), "char-count", input, nil); err != nil {
			b.Fatal(err)
		}
	}
}
