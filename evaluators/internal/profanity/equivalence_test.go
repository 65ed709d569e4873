package profanity

import (
	"strings"
	"testing"

	"github.com/evalcol/evalcol/evaluators/internal/textclass"
	"github.com/evalcol/evalcol/internal/testcorpus"
)

// TestWordBitmapKeepsEveryMatch: the word bitmap that spares map lookups
// changes no decision of either lexicon, on thousands of varied texts and
// on every entry itself (as given, with repeated letters, and inside a
// sentence).
func TestWordBitmapKeepsEveryMatch(t *testing.T) {
	d, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	texts := testcorpus.Texts()
	for _, l := range []*lexicon{d.lexicon, d.slurs} {
		for e := range l.entries {
			texts = append(texts, e, "you are a "+e+"!", strings.Repeat(e[:1], 3)+e[1:])
		}
	}
	matched := 0
	for _, l := range []*lexicon{d.lexicon, d.slurs} {
		all := *l
		for i := range all.words {
			all.words[i] = ^uint64(0) // every word may be an entry: the map decides alone
		}
		var s1, s2 []byte
		for _, text := range texts {
			folded := textclass.AppendFold(nil, text)
			got, want := l.matches(folded, &s1), all.matches(folded, &s2)
			if got != want {
				t.Fatalf("matches(%q) = %v with the bitmap, %v without", folded, got, want)
			}
			if want {
				matched++
			}
		}
	}
	if matched < 1000 {
		t.Errorf("only %d matches: the test exercises little", matched)
	}
}
