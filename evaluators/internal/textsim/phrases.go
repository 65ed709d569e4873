package textsim

import (
	"embed"
	"fmt"
	"strconv"
	"strings"
	"sync"
)

//go:embed lexicons/*.txt
var lexiconFS embed.FS

// PhraseList is a weighted list of word sequences matched on tokens.
type PhraseList struct {
	byFirst map[string][]phrase // first word -> phrases, longest first
}

type phrase struct {
	words  []string
	weight float64
}

// PhraseMatch is one occurrence of a phrase in a token slice.
type PhraseMatch struct {
	// First and Last are the indexes of the first and last matched token.
	First, Last int
	// Weight is the phrase's weight from its lexicon.
	Weight float64
}

// parsePhrases reads "weight<TAB>phrase" lines ("#" starts a comment).
func parsePhrases(name, text string) (*PhraseList, error) {
	l := &PhraseList{byFirst: map[string][]phrase{}}
	for n, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		ws, p, ok := strings.Cut(line, "\t")
		if !ok {
			return nil, fmt.Errorf("%s line %d: want weight<TAB>phrase", name, n+1)
		}
		w, err := strconv.ParseFloat(ws, 64)
		if err != nil {
			return nil, fmt.Errorf("%s line %d: weight: %w", name, n+1, err)
		}
		toks := Tokenize(p)
		if len(toks) == 0 {
			return nil, fmt.Errorf("%s line %d: empty phrase", name, n+1)
		}
		words := make([]string, len(toks))
		for i, t := range toks {
			words[i] = t.Lower
		}
		l.byFirst[words[0]] = append(l.byFirst[words[0]], phrase{words: words, weight: w})
	}
	for _, ps := range l.byFirst {
		// Longest first, so that the longest phrase wins at a position.
		for i := 1; i < len(ps); i++ {
			for j := i; j > 0 && len(ps[j].words) > len(ps[j-1].words); j-- {
				ps[j], ps[j-1] = ps[j-1], ps[j]
			}
		}
	}
	return l, nil
}

// mustPhrases loads an embedded lexicon; the files are part of the binary,
// so a bad one is a programming error caught by the package tests.
func mustPhrases(name string) *PhraseList {
	b, err := lexiconFS.ReadFile("lexicons/" + name)
	if err != nil {
		panic(fmt.Sprintf("textsim: read lexicon %s: %v", name, err))
	}
	l, err := parsePhrases(name, string(b))
	if err != nil {
		panic(fmt.Sprintf("textsim: %v", err))
	}
	return l
}

// The embedded phrase lexicons, parsed once.
var (
	// Hedges returns the hedging phrases of lexicons/hedges.txt, weighted
	// by the strength of the doubt they express.
	Hedges = sync.OnceValue(func() *PhraseList { return mustPhrases("hedges.txt") })
	// Polite returns the courteous phrases of lexicons/polite.txt.
	Polite = sync.OnceValue(func() *PhraseList { return mustPhrases("polite.txt") })
	// Rude returns the rude and dismissive phrases of lexicons/rude.txt.
	Rude = sync.OnceValue(func() *PhraseList { return mustPhrases("rude.txt") })
	// Limits returns the phrases of lexicons/limits.txt with which a
	// speaker admits the limits of what it knows or can do.
	Limits = sync.OnceValue(func() *PhraseList { return mustPhrases("limits.txt") })
)

// Find returns the non-overlapping occurrences of the list's phrases in
// toks, left to right, the longest phrase winning at each position. Words
// are compared on their lower-cased forms.
func (l *PhraseList) Find(toks []Token) []PhraseMatch {
	var out []PhraseMatch
	for i := 0; i < len(toks); {
		m, ok := l.matchAt(toks, i)
		if !ok {
			i++
			continue
		}
		out = append(out, m)
		i = m.Last + 1
	}
	return out
}

func (l *PhraseList) matchAt(toks []Token, i int) (PhraseMatch, bool) {
	for _, p := range l.byFirst[toks[i].Lower] {
		if i+len(p.words) > len(toks) {
			continue
		}
		ok := true
		for k, w := range p.words[1:] {
			if toks[i+1+k].Lower != w {
				ok = false
				break
			}
		}
		if ok {
			return PhraseMatch{First: i, Last: i + len(p.words) - 1, Weight: p.weight}, true
		}
	}
	return PhraseMatch{}, false
}

// Weight returns the summed weights of the phrases found in toks.
func (l *PhraseList) Weight(toks []Token) float64 {
	var w float64
	for i := 0; i < len(toks); {
		m, ok := l.matchAt(toks, i)
		if !ok {
			i++
			continue
		}
		w += m.Weight
		i = m.Last + 1
	}
	return w
}
