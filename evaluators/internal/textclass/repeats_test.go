package textclass

import (
	"strings"
	"testing"
)

func TestCollapseRepeats(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"thank you for your order, it will ship soon. thank you for your order, it will ship soon. thank you for your order, it will ship soon.", "thank you for your order, it will ship soon."},
		{strings.TrimSpace(strings.Repeat("the quick brown fox ", 50)), "the quick brown fox"},
		{"no no no, i said no", "no, i said no"},
		{"very very good", "very very good"},
		{"it was a good day and a good night", "it was a good day and a good night"},
		{"hello. thank you thank you! bye", "hello. thank you! bye"},
		{"a b", "a b"},
		{"", ""},
	} {
		if got := string(collapseRepeats(nil, []byte(tc.in))); got != tc.want {
			t.Errorf("collapseRepeats(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestRepetitionDoesNotMoveTheScore: a text repeated many times scores as
// the text once (the score is Σw/√n: without the collapse, k copies move
// it √k times as far).
func TestRepetitionDoesNotMoveTheScore(t *testing.T) {
	texts, labels := toyData()
	m, err := Train(texts, labels, toyOptions)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"Thank you for your order, it will ship soon.", "the quick brown fox"} {
		once, many := m.Score(s), m.Score(strings.Repeat(s+" ", 60))
		if once != many {
			t.Errorf("%q: score once %v, 60 times %v", s, once, many)
		}
	}
}

func BenchmarkCollapseRepeatsNoRepeat(b *testing.B) {
	text := []byte(strings.ToLower("Could you explain how the budget affects the growth of our team? Please write a short summary about the market and the users. The report was reviewed by the committee before the meeting started, and we need a clear plan for the project because the schedule keeps changing."))
	b.ReportAllocs()
	for b.Loop() {
		collapseRepeats(nil, text)
	}
}

func TestCollapseRepeatsOfRawText(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"", ""},
		{"Hi", "Hi"},
		{"Thank you!\nThank you!\nThank you!", "Thank you!"},
		{"Stop.  Stop.  Stop. Now", "Stop. Now"},
		{"line one\nline two", "line one\nline two"},
	} {
		if got := CollapseRepeats(tc.in); got != tc.want {
			t.Errorf("CollapseRepeats(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
