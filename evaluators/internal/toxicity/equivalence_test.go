package toxicity

import (
	"testing"

	"github.com/evalcol/evalcol/evaluators/internal/textclass"
	"github.com/evalcol/evalcol/internal/testcorpus"
)

// TestPrefilterKeepsEveryMatch: on thousands of varied texts
// (testcorpus), folded, and folded and repaired, every pattern of every
// rule decides with its literal prefilter exactly as without it, and so
// does AnalyzeFolded.
func TestPrefilterKeepsEveryMatch(t *testing.T) {
	texts := testcorpus.Texts()
	if testing.Short() {
		texts = texts[:len(texts)/10]
	}
	repair := NewRepairer(nil)
	checked, used, skipped := 0, 0, 0
	for _, text := range texts {
		folded := textclass.AppendFold(nil, text)
		for _, b := range [][]byte{folded, repair.AppendRepaired(nil, folded)} {
			if len(b) == 0 || hasUpperASCII(b) {
				continue
			}
			s := string(b)
			sentences, all := splitSentences(s, nil)
			for i := range rules {
				for j := range rules[i].alts {
					al := &rules[i].alts[j]
					if !all.has(al.set) {
						continue
					}
					checked++
					got, want := al.used(s, sentences, rules[i].negatable, true), al.used(s, sentences, rules[i].negatable, false)
					if got != want {
						t.Fatalf("%s alt %d (%s) on %q: %v with the prefilter, %v without", rules[i].category, j, al.filter, s, got, want)
					}
					if want {
						used++
					}
					for _, sn := range sentences {
						if sn.sets.has(al.set) && !al.filter.MayMatch(b[sn.start:sn.end]) {
							skipped++
						}
					}
				}
			}
		}
	}
	t.Logf("%d texts: %d pattern checks, %d used, %d anchored sentences skipped by the prefilter", len(texts), checked, used, skipped)
	if used < 300 || skipped < checked/4 {
		t.Errorf("%d checks, %d used, %d skipped: the corpus no longer exercises the rules", checked, used, skipped)
	}
}
