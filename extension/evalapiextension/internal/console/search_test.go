package console

import (
	"strings"
	"testing"
)

// TestPreview: a list preview is the start of the text, or a window
// around the first search hit when it lies beyond; hits marked.
func TestPreview(t *testing.T) {
	render := func(parts []textPart) string {
		var b strings.Builder
		for _, p := range parts {
			if p.Mark {
				b.WriteString("[" + p.Text + "]")
			} else {
				b.WriteString(p.Text)
			}
		}
		return b.String()
	}
	long := strings.Repeat("word ", 60) + "the Refund is here " + strings.Repeat("tail ", 40)
	for _, tc := range []struct {
		name, text string
		terms      []string
		want       string
	}{
		{"short, no search", "Hello there", nil, "Hello there"},
		{"short, a hit", "I want a refund.", []string{"refund"}, "I want a [refund]."},
		{"long, cut", strings.Repeat("é", 130), nil, strings.Repeat("é", 120) + "…"},
		{"hit beyond the cut", long, []string{"refund"}, ""}, // checked below
	} {
		got := render(preview(tc.text, tc.terms))
		if tc.name == "hit beyond the cut" {
			if !strings.HasPrefix(got, "…") || !strings.Contains(got, "[Refund]") || !strings.HasSuffix(got, "…") {
				t.Errorf("%s: %q", tc.name, got)
			}
			continue
		}
		if got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}

// TestBackStack: the next link pushes the current cursor, the previous
// link pops it; the stack is bounded.
func TestBackStack(t *testing.T) {
	p := listParams{Range: "1h", View: "traces", Sort: "timestamp", Order: "desc", Limit: defaultListLimit, FromMs: 1, ToMs: 2}
	if p.prevLink() != "" {
		t.Error("the first page has a previous link")
	}
	p.Cursor, p.Back = "c2", []string{firstPage, "c1"}
	prev := p.prevLink()
	if !strings.Contains(prev, "cursor=c1") || !strings.Contains(prev, "back=first") || strings.Contains(prev, "c2") {
		t.Errorf("prev link %s", prev)
	}
	p.Back = []string{firstPage}
	if prev := p.prevLink(); strings.Contains(prev, "cursor=") || strings.Contains(prev, "back=") {
		t.Errorf("prev link to the first page %s", prev)
	}
}
