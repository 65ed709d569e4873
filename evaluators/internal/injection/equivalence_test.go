package injection

import (
	"bytes"
	"math"
	"testing"

	"github.com/evalcol/evalcol/evaluators/internal/textclass"
	"github.com/evalcol/evalcol/internal/testcorpus"
)

// TestPrefilterKeepsEveryMatch: on every anchor window of thousands of
// varied texts (testcorpus: the functional suites, LLM-style prose,
// splices, case and fold variants), each phrase rule decides with its
// literal prefilter exactly as its expression alone does.
func TestPrefilterKeepsEveryMatch(t *testing.T) {
	texts := append(testcorpus.Texts(), benignTriggerPrompts...)
	if testing.Short() {
		texts = texts[:len(texts)/10]
	}
	windows, matched, skipped := 0, 0, 0
	for _, text := range texts {
		lower := make([]byte, len(text))
		lowerASCII(lower, text)
		for i := range phraseRules {
			r := &phraseRules[i]
			for _, a := range r.anchors {
				for from := 0; ; {
					k := bytes.Index(lower[from:], a)
					if k < 0 {
						break
					}
					lo, hi := window(text, from+k, len(a))
					w := text[lo:hi]
					want := (r.needWords == nil || textclass.HasWord(w, r.needWords)) && r.re.MatchString(w)
					if got := r.matchWindow(w, lower[lo:hi]); got != want {
						t.Fatalf("%s on %q: %v with the prefilter (%s), %v without", r.name, w, got, r.filter, want)
					}
					windows++
					if want {
						matched++
					}
					if !r.filter.MayMatch(lower[lo:hi]) {
						skipped++
					}
					from += k + len(a)
				}
			}
		}
	}
	t.Logf("%d texts, %d windows: %d matched, %d skipped by the prefilter", len(texts), windows, matched, skipped)
	if matched < 500 || skipped < windows/2 {
		t.Errorf("%d windows, %d matched, %d skipped: the corpus no longer exercises the rules", windows, matched, skipped)
	}
}

// TestModelProbabilityMatchesWindowByWindow: the shared scoring of
// overlapping windows gives, bit for bit, the highest probability of the
// windows scored one by one, on thousands of varied texts.
func TestModelProbabilityMatchesWindowByWindow(t *testing.T) {
	d, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	texts := testcorpus.Texts()
	if testing.Short() {
		texts = texts[:len(texts)/10]
	}
	multi := 0
	for _, text := range texts {
		best, n := 0.0, 0
		visible := text
		if hasHidden(text) {
			visible = stripHidden(text)
		}
		visible = textclass.CollapseRepeats(visible)
		Windows(visible, func(w string) { best = max(best, d.model.Probability(w)); n++ })
		if n > 1 {
			multi++
		}
		if got, want := d.ModelProbability(text), atOperatingPoint(best); math.Float64bits(got) != math.Float64bits(want) {
			t.Fatalf("ModelProbability(%q) = %v, window by window %v", text, got, want)
		}
	}
	if multi < 500 {
		t.Errorf("only %d texts have more than one window", multi)
	}
}
