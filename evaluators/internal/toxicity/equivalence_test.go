package toxicity

import (
	"strings"
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

// TestAnchorMarkMatchesSearch: the anchor index marks exactly the sets
// that have an anchor in a text, as a substring search per anchor finds
// them, on thousands of folded texts.
func TestAnchorMarkMatchesSearch(t *testing.T) {
	sets := [][]string{groupAnchors, protectedAnchors, anchorsOf(reclaimableWords), anchorsOf(profaneWords)}
	for i := range rules {
		for j := range rules[i].alts {
			al := &rules[i].alts[j]
			if al.set != len(sets) {
				t.Fatalf("%s alt %d has set %d, want %d: the reference is out of step", rules[i].category, j, al.set, len(sets))
			}
			sets = append(sets, al.anchors)
		}
	}
	texts := testcorpus.Texts()
	if testing.Short() {
		texts = texts[:len(texts)/10]
	}
	marked := 0
	for _, text := range texts {
		s := string(textclass.AppendFold(nil, text))
		var got anchorBits
		anchors.mark(s, &got)
		for set, as := range sets {
			want := false
			for _, a := range as {
				want = want || strings.Contains(s, a)
			}
			if got.has(set) != want {
				t.Fatalf("set %d on %q: marked %v, search %v", set, s, got.has(set), want)
			}
			if want {
				marked++
			}
		}
	}
	if marked < 1000 {
		t.Errorf("only %d sets marked", marked)
	}
}
