package warehouse

import (
	"slices"
	"strings"
	"testing"
)

func TestSearchTerms(t *testing.T) {
	for _, tc := range []struct {
		q     string
		terms []string
		err   string
	}{
		{"refund", []string{"refund"}, ""},
		{`  refund  "good   morning"  policy `, []string{"refund", "good morning", "policy"}, ""},
		{`"unclosed phrase`, []string{"unclosed phrase"}, ""},
		{`a"b c"`, nil, `"a" is shorter than 2 characters`},
		{"", nil, "no word"},
		{`""`, nil, "no word"},
		{"<>", nil, "no letter or digit"},
		{strings.Repeat("x", MaxSearchBytes+1), nil, "at most 200"},
		{"a1 b2 c3 d4 e5 f6 g7 h8 i9", nil, "at most 8"},
		{"tab\x01x", nil, "control character"},
		{"\xff\xfe", nil, "UTF-8"},
	} {
		terms, err := SearchTerms(tc.q)
		switch {
		case tc.err == "" && (err != nil || !slices.Equal(terms, tc.terms)):
			t.Errorf("SearchTerms(%q) = %q, %v; want %q", tc.q, terms, err, tc.terms)
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err) || !strings.HasPrefix(err.Error(), "q: ")):
			t.Errorf("SearchTerms(%q) error %v, want one on q with %q", tc.q, err, tc.err)
		}
	}
}

func TestSearchHits(t *testing.T) {
	hits := func(text string, terms ...string) []string {
		var out []string
		for _, h := range SearchHits(text, terms) {
			out = append(out, text[h[0]:h[1]])
		}
		return out
	}
	for _, tc := range []struct {
		text  string
		terms []string
		want  []string
	}{
		{"I want a REFUND, refunds are fine", []string{"refund"}, []string{"REFUND", "refund"}},
		{"nonrefundable", []string{"refund"}, nil},
		{"Translate 'Good,  Morning' now", []string{"good morn"}, []string{"Good,  Morn"}},
		{"<script>alert(1)</script>", []string{"<script>"}, []string{"script", "script"}},
		{"Ärger und ärger", []string{"ÄRGER"}, []string{"Ärger", "ärger"}},
		{"the invoice", []string{"invoice", "the invoice"}, []string{"the invoice"}},
		{"a.b", []string{"b"}, []string{"b"}},
	} {
		if got := hits(tc.text, tc.terms...); !slices.Equal(got, tc.want) {
			t.Errorf("SearchHits(%q, %q) = %q, want %q", tc.text, tc.terms, got, tc.want)
		}
	}
	if n := SearchNeedle("good morning"); n != "morning" {
		t.Errorf("SearchNeedle = %q", n)
	}
}

func TestSearchText(t *testing.T) {
	sp := Span{
		Prompts:     map[string]string{"llm.prompts.1.content": "second", "llm.prompts.0.role": "user", "llm.prompts.0.content": "first"},
		Completions: map[string]string{"llm.completions.0.content": "answer"},
		Input:       "first", Output: "raw output",
	}
	if got := SearchText(&sp); got != "first\nsecond\nanswer\nraw output" {
		t.Errorf("SearchText = %q", got)
	}
	if got := FirstUserPrompt(&sp); got != "first" {
		t.Errorf("FirstUserPrompt = %q", got)
	}
	if got := LastCompletion(&sp); got != "answer" {
		t.Errorf("LastCompletion = %q", got)
	}
}
