package textclass

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/evalcol/evalcol/internal/testcorpus"
)

// windowModels are models of several feature shapes trained on the
// corpus, so that most n-grams of the test texts have a weight.
func windowModels(t *testing.T) map[string]*Model {
	t.Helper()
	texts := testcorpus.Texts()[:3000]
	labels := make([]bool, len(texts))
	for i, s := range texts {
		labels[i] = strings.Contains(strings.ToLower(s), "ignore") || i%7 == 0
	}
	out := map[string]*Model{}
	for name, f := range map[string]Features{
		"injection shape":   {WordNgrams: 2, CharMinN: 2, CharMaxN: 5, HashBits: 18},
		"trigrams, chars 1": {WordNgrams: 3, CharMinN: 1, CharMaxN: 3, HashBits: 12},
		"words only":        {WordNgrams: 2, HashBits: 12},
		"chars only":        {CharMinN: 3, CharMaxN: 6, HashBits: 12},
	} {
		m, err := Train(texts, labels, TrainOptions{Features: f, Epochs: 2, Seed: 3})
		if err != nil {
			t.Fatal(err)
		}
		out[name] = m
	}
	return out
}

// TestWindowScoresAreExact: for every window of thousands of texts that
// the prefix sums can score, the score is bit for bit Score of the
// window's text; MaxWindowProbability equals the highest Probability of
// its windows whether they fit or not.
func TestWindowScoresAreExact(t *testing.T) {
	models := windowModels(t)
	texts := testcorpus.Texts()
	rng := rand.New(rand.NewPCG(9, 9))
	for name, m := range models {
		if !m.units().exact {
			t.Fatalf("%s: trained weights are not float16 values", name)
		}
		scored, fitted := 0, 0
		for ti, text := range texts {
			if ti%3 != 0 && name != "injection shape" {
				continue
			}
			var windows [][2]int
			for range 6 {
				lo, hi := rng.IntN(len(text)+1), rng.IntN(len(text)+1)
				if lo > hi {
					lo, hi = hi, lo
				}
				if rng.IntN(3) > 0 { // widen to whole words, so that most windows fit
					for lo > 0 && !isSpaceByte(text[lo-1]) {
						lo--
					}
					for hi < len(text) && !isSpaceByte(text[hi]) {
						hi++
					}
					for lo < hi && isSpaceByte(text[lo]) {
						lo++
					}
				}
				windows = append(windows, [2]int{lo, hi})
			}
			want := 0.0
			for _, w := range windows {
				want = max(want, m.Probability(text[w[0]:w[1]]))
			}
			if got := m.MaxWindowProbability(text, windows); math.Float64bits(got) != math.Float64bits(want) {
				t.Fatalf("%s on %q, windows %v: MaxWindowProbability %v, want %v", name, text, windows, got, want)
			}
			if !m.canScoreWindows(text) {
				continue
			}
			ws := new(windowScorer)
			if !ws.reset(m, text) {
				t.Fatalf("%s: reset refused a %d-byte text", name, len(text))
			}
			for _, w := range windows {
				scored++
				if !ws.fits(text, w[0], w[1]) {
					continue
				}
				fitted++
				if got, want := ws.score(w[0], w[1]), m.Score(text[w[0]:w[1]]); math.Float64bits(got) != math.Float64bits(want) {
					t.Fatalf("%s on window %q of %q: score %v, want %v", name, text[w[0]:w[1]], text, got, want)
				}
			}
		}
		t.Logf("%s: %d windows of plain ASCII texts, %d scored from prefix sums", name, scored, fitted)
		if fitted < 1000 {
			t.Errorf("%s: only %d windows scored from prefix sums", name, fitted)
		}
	}
}

// TestWindowScorerDeclines: text with control or non-ASCII bytes, and a
// model that folds or strips, are scored window by window.
func TestWindowScorerDeclines(t *testing.T) {
	texts, labels := toyData()
	plain, err := Train(texts, labels, toyOptions)
	if err != nil {
		t.Fatal(err)
	}
	opts := toyOptions
	opts.Features.Norm = NormOptions{StripSocial: true}
	social, err := Train(texts, labels, opts)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		m    *Model
		text string
		want bool
	}{
		{plain, "a nasty day number 7", true},
		{plain, "a nasty\tday\nnumber 7", true},
		{plain, "a nasty\x01day", false},
		{plain, "a nasty day\x7f", false},
		{plain, "a naſty day", false},
		{social, "a nasty day number 7", false},
	} {
		if got := c.m.canScoreWindows(c.text); got != c.want {
			t.Errorf("canScoreWindows(%q) = %v, want %v", c.text, got, c.want)
		}
		windows := [][2]int{{0, len(c.text)}, {2, len(c.text)}}
		want := max(c.m.Probability(c.text), c.m.Probability(c.text[2:]))
		if got := c.m.MaxWindowProbability(c.text, windows); got != want {
			t.Errorf("MaxWindowProbability(%q) = %v, want %v", c.text, got, want)
		}
	}
}
