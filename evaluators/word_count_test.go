package evaluators

import (
	"context"
	"strings"
	"testing"
)

// benchmarkEnglish1KB is about 1 KB of English prose for the benchmarks.
var benchmarkEnglish1KB = strings.Repeat("The quick brown fox jumps over the lazy dog while the farmer watches from the porch. ", 13)[:1024]

func TestWordCount(t *testing.T) {
	// Expected counts are len(text.split()) in CPython 3.11.
	tests := []struct {
		name, text string
		want       int
	}{
		{"empty", "", 0},
		{"only spaces", "   ", 0},
		{"two words", "hello world", 2},
		{"padded", "  leading and trailing  ", 3},
		{"ascii controls", "a\tb\nc\rd\ve\ff", 6},
		{"information separators", "a\x1cb\x1dc\x1ed\x1ff", 5},
		{"no-break space", "a\u00a0b", 2},
		{"ideographic space", "a\u3000b", 2},
		{"zero width space is not a space", "a\u200bb", 1},
		{"mongolian vowel separator is not a space", "a\u180eb", 1},
		{"line and paragraph separators", "a\u2028b\u2029c", 3},
		{"next line", "a\u0085b", 2},
		{"narrow no-break space", "a\u202fb", 2},
		{"en quad and hair space", "a\u2000b\u200ac", 3},
		{"accents", "naïve café", 2},
		{"cjk", "日本語 テキスト", 2},
		{"emoji", "👍 ok 🇫🇷", 3},
		{"only separators", "\x1c\x1f\u3000\u00a0", 0},
		{"invalid utf-8 is a word", "\xff \xfe", 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := evaluateOK(t, "word-count", map[string]any{"text": tt.text}, nil)
			if got := res["word_count"]; got != tt.want {
				t.Errorf("word_count = %v, want %d", got, tt.want)
			}
		})
	}
}

func TestWordCountInvalid(t *testing.T) {
	tests := []struct {
		name          string
		input, config map[string]any
		field, want   string
	}{
		{"text missing", map[string]any{}, nil, "input.text", "input.text is required"},
		{"text null", map[string]any{"text": nil}, nil, "input.text", "input.text is required"},
		{"text not a string", map[string]any{"text": 5.0}, nil, "input.text", "input.text must be a string, got number"},
		{"config given", map[string]any{"text": "a"}, map[string]any{"threshold": 0.5}, "config.threshold", "config.threshold is not a config field of word-count (it takes no config)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := Evaluate(context.Background(), "word-count", tt.input, tt.config)
			if err == nil {
				t.Fatalf("Evaluate = %v, want an error", res)
			}
			checkInvalidInput(t, err, tt.field, tt.want)
		})
	}
}

// TestIsPythonSpace checks the whole BMP and beyond against the 29 code
// points for which CPython 3.11's str.isspace() is true.
func TestIsPythonSpace(t *testing.T) {
	want := map[rune]bool{}
	for _, r := range []rune{0x9, 0xa, 0xb, 0xc, 0xd, 0x1c, 0x1d, 0x1e, 0x1f, 0x20, 0x85, 0xa0, 0x1680,
		0x2000, 0x2001, 0x2002, 0x2003, 0x2004, 0x2005, 0x2006, 0x2007, 0x2008, 0x2009, 0x200a,
		0x2028, 0x2029, 0x202f, 0x205f, 0x3000} {
		want[r] = true
	}
	for r := rune(0); r <= 0x10ffff; r++ {
		if isPythonSpace(r) != want[r] {
			t.Errorf("isPythonSpace(%U) = %v, want %v", r, isPythonSpace(r), want[r])
		}
	}
}

func BenchmarkWordCount(b *testing.B) {
	input := map[string]any{"text": benchmarkEnglish1KB}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Evaluate(context.Background(), "word-count", input, nil); err != nil {
			b.Fatal(err)
		}
	}
}
