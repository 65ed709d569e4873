// Package charlm is a small character language model of English for
// prompt-perplexity: a letter trigram model of English spelling, counted
// once (on first use) from the 40,000 commonest words of the embedded
// GloVe vocabulary (internal/wordvec), each word weighted by a Zipf
// estimate of its frequency, 1/(rank+50), as textsim's common direction
// is; plus fixed probabilities for what lies between words. It gives
// every character of a text a natural-log probability; the perplexity of
// the text is exp(-mean) of those, computed as the perplexity evaluator
// computes it from a model's logprobs.
//
// What it tells apart: English-like text (words spelt as English words
// are, spaces, common punctuation) from strings no English writer types:
// random letters, keyboard mashes, base64 and hex blobs, runs of symbols.
// Perplexity filters use a word-level model for the same purpose (Alon
// and Kamfonas 2023, Jain et al. 2023); this one only knows spelling, so
// real words in a senseless order pass.
package charlm

import (
	"math"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/evalcol/evalcol/evaluators/internal/wordvec"
)

// The alphabet of the letter model: a..z, the apostrophe, and the word
// boundary (before the first letter and after the last).
const (
	apostrophe = 26
	boundary   = 27
	alphabet   = 28
)

// Log probabilities of the characters outside words (natural log). They
// are fixed, not counted: the GloVe vocabulary has no running text.
var (
	// A space or line break after a word or punctuation.
	logSpace = math.Log(0.9)
	// A run of spaces: each further space.
	logMoreSpace = math.Log(0.3)
	// Common prose punctuation: . , ? ! : ; " ( ) - ' /
	logPunct = math.Log(0.12)
	// Each digit of a number.
	logDigit = math.Log(0.1)
	// Other ASCII symbols: \ { } [ ] < > | ^ ~ * = + _ @ # $ % & `
	logSymbol = math.Log(0.01)
	// A letter of another script than Latin: the model does not know
	// those languages, so it counts such a letter as an average English
	// letter (a trigram perplexity of about 9), neither flagged nor
	// helped.
	logOtherScript = math.Log(1.0 / 9)
	// An upper-case letter after a lower-case one inside a word
	// ("similarlyNow"): on top of the letter's own probability.
	logCaseSwitch = math.Log(0.05)
	// Any other rune (control characters, emoji, symbols beyond ASCII).
	logOther = math.Log(0.005)
	// A symbol right after punctuation or another symbol (".](", "**",
	// "\!--"), on top of its own probability; the pairs prose writes
	// (".\"", "?)", "),", "...", "--") are exempt.
	logSymbolRun = math.Log(0.1)
)

// Model is the letter trigram model. It is immutable and safe for
// concurrent use.
type Model struct {
	// logp[(a*alphabet+b)*alphabet+c] is log P(c | a b), interpolated
	// with the bigram and unigram estimates.
	logp [alphabet * alphabet * alphabet]float64
}

// Default returns the model counted from the embedded vocabulary.
var Default = sync.OnceValue(func() *Model { return train(wordvec.Default()) })

// Interpolation weights of the trigram, bigram and unigram estimates
// (Jelinek-Mercer), and the add-k constant of each.
const (
	lambda3 = 0.7
	lambda2 = 0.25
	lambda1 = 0.05
	addK    = 0.01
)

func train(tab *wordvec.Table) *Model {
	var uni [alphabet]float64
	var bi [alphabet * alphabet]float64
	var tri [alphabet * alphabet * alphabet]float64
	tab.Each(func(w string, id int) {
		codes, ok := encodeWord(w)
		if !ok {
			return
		}
		c := 1 / (float64(id) + 50)
		a, b := boundary, boundary
		for _, x := range append(codes, boundary) {
			uni[x] += c
			bi[b*alphabet+x] += c
			tri[(a*alphabet+b)*alphabet+x] += c
			a, b = b, x
		}
	})
	m := &Model{}
	var uniTotal float64
	for _, n := range uni {
		uniTotal += n
	}
	for a := range alphabet {
		for b := range alphabet {
			var biTotal, triTotal float64
			for c := range alphabet {
				biTotal += bi[b*alphabet+c]
				triTotal += tri[(a*alphabet+b)*alphabet+c]
			}
			for c := range alphabet {
				p1 := (uni[c] + addK) / (uniTotal + addK*alphabet)
				p2 := (bi[b*alphabet+c] + addK*p1) / (biTotal + addK)
				p3 := (tri[(a*alphabet+b)*alphabet+c] + addK*p2) / (triTotal + addK)
				m.logp[(a*alphabet+b)*alphabet+c] = math.Log(lambda3*p3 + lambda2*p2 + lambda1*p1)
			}
		}
	}
	return m
}

// encodeWord maps a lower-case vocabulary word to the alphabet; ok is
// false for words with other characters (numbers, punctuation tokens).
func encodeWord(w string) ([]int, bool) {
	out := make([]int, 0, len(w))
	for i := 0; i < len(w); i++ {
		switch c := w[i]; {
		case c >= 'a' && c <= 'z':
			out = append(out, int(c-'a'))
		case c == '\'':
			out = append(out, apostrophe)
		default:
			return nil, false
		}
	}
	return out, len(out) > 0
}

// LogProbs appends to dst the natural-log probability of every character
// of text (runes; invalid UTF-8 bytes count as other runes) and returns
// it. A word (a run of ASCII letters and inner apostrophes) is scored
// letter by letter with the trigram model, its end included as the
// probability of leaving the word; other characters take the fixed
// probabilities of this package.
func (m *Model) LogProbs(dst []float64, text string) []float64 {
	a, b := boundary, boundary
	inWord, prevLower, prevSpace := false, false, false
	var prevMark rune // the previous rune when it was punctuation or a symbol
	for i := 0; i < len(text); {
		r, size := utf8.DecodeRuneInString(text[i:])
		i += size
		code := -1
		switch {
		case r >= 'a' && r <= 'z':
			code = int(r - 'a')
		case r >= 'A' && r <= 'Z':
			code = int(r - 'A')
		case r == '\'' || r == '\u2019':
			if inWord && i < len(text) && isASCIILetter(text[i]) {
				code = apostrophe
			}
		}
		if code >= 0 {
			lp := m.logp[(a*alphabet+b)*alphabet+code]
			upper := r >= 'A' && r <= 'Z'
			if upper && prevLower {
				lp += logCaseSwitch
			}
			dst = append(dst, lp)
			a, b, inWord, prevLower, prevSpace, prevMark = b, code, true, !upper && code != apostrophe, false, 0
			continue
		}
		var lp float64
		space, mark := false, false
		switch {
		case r == ' ' || r == '\n' || r == '\t' || r == '\r':
			space = true
			lp = logSpace
			if prevSpace {
				lp = logMoreSpace
			}
		case r >= '0' && r <= '9':
			lp = logDigit
		case isPunct(r):
			lp, mark = logPunct, true
		case r < utf8.RuneSelf && r > ' ':
			lp, mark = logSymbol, true
		case unicode.IsLetter(r) || unicode.IsMark(r):
			lp = logOtherScript
		default:
			lp = logOther
		}
		if mark && prevMark != 0 && !prosePair(prevMark, r) {
			lp += logSymbolRun
		}
		if mark {
			prevMark = r
		} else {
			prevMark = 0
		}
		dst = append(dst, lp)
		if inWord {
			// Charge the end of the word that this character closes.
			dst[len(dst)-1] += m.logp[(a*alphabet+b)*alphabet+boundary]
			inWord = false
		}
		a, b, prevLower, prevSpace = boundary, boundary, false, space
	}
	if inWord {
		dst[len(dst)-1] += m.logp[(a*alphabet+b)*alphabet+boundary]
	}
	return dst
}

// prosePair reports whether punctuation b may follow punctuation a in
// ordinary prose.
func prosePair(a, b rune) bool {
	closing := func(r rune) bool { return strings.ContainsRune(")]\"'\u201d\u2019", r) }
	switch {
	case a == b && (a == '.' || a == '-' || a == '!' || a == '?'):
		return true // ..., --, !!, ??
	case strings.ContainsRune(".,;:!?", a) && closing(b):
		return true // ." ?) ,'
	case closing(a) && strings.ContainsRune(".,;:!?)", b):
		return true // ), ". ")
	case (a == '?' && b == '!') || (a == '!' && b == '?'):
		return true
	case strings.ContainsRune("(\"'\u201c", b) && strings.ContainsRune("(\"'\u201c", a):
		return true // ("
	}
	return false
}

func isASCIILetter(c byte) bool { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') }

// isPunct reports whether r is common prose punctuation, typographic
// quotes and dashes included.
func isPunct(r rune) bool {
	switch r {
	case '.', ',', '?', '!', ':', ';', '"', '(', ')', '-', '\'', '/',
		'\u2018', '\u2019', '\u201c', '\u201d', '\u2013', '\u2014', '\u2026':
		return true
	}
	return false
}
