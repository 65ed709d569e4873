package textclass

import (
	"context"
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
		if got := string(collapseRepeats([]byte(tc.in))); got != tc.want {
			t.Errorf("collapseRepeats(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestRepetitionDoesNotMoveTheScore: a text repeated many times, collapsed,
// scores as the text once (the score is Σw/√n: without the collapse, k
// copies move it √k times as far).
func TestRepetitionDoesNotMoveTheScore(t *testing.T) {
	texts, labels := toyData()
	m, err := Train(texts, labels, toyOptions)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"Thank you for your order, it will ship soon.", "the quick brown fox"} {
		once, many := m.Score(CollapseRepeats(s)), m.Score(CollapseRepeats(strings.Repeat(s+" ", 60)))
		if once != many {
			t.Errorf("%q: score once %v, 60 times %v", s, once, many)
		}
	}
}

func BenchmarkCollapseRepeatsNoRepeat(b *testing.B) {
	text := []byte(strings.ToLower("Could you explain how the budget affects the growth of our team? Please write a short summary about the market and the users. The report was reviewed by the committee before the meeting started, and we need a clear plan for the project because the schedule keeps changing."))
	b.ReportAllocs()
	for b.Loop() {
		collapseRepeats(text)
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

// TestCollapsedFromSharesTheCollapse: through a TextCache, one text is
// collapsed once whatever the number of classifiers that ask, with the
// same answer as CollapseRepeats.
func TestCollapsedFromSharesTheCollapse(t *testing.T) {
	ctx := WithTextCache(context.Background())
	s := strings.Repeat("Thank you for your order. ", 5)
	a, b := CollapsedFrom(ctx, s), CollapsedFrom(ctx, s)
	if a != CollapseRepeats(s) || b != a {
		t.Fatalf("CollapsedFrom = %q, %q; CollapseRepeats = %q", a, b, CollapseRepeats(s))
	}
	if n := testing.AllocsPerRun(100, func() { CollapsedFrom(ctx, s) }); n != 0 {
		t.Errorf("a cached collapse allocates %v times", n)
	}
	ReleaseTextCache(ctx)
	if got := CollapsedFrom(context.Background(), s); got != a {
		t.Errorf("without a cache: %q", got)
	}
}
