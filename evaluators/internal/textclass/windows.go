package textclass

import (
	"math"
	"sort"
)

// MaxWindowProbability returns the highest Probability of the windows
// text[w[0]:w[1]] (0 when there are none), bit for bit what calling
// Probability on each window returns, at about the cost of scoring text
// once however much the windows overlap.
//
// A window's score is the sum of its features' weights, scaled by the
// square root of their number. The weights are float16 values, whole
// multiples of 2^-24, so a float64 sum of them is exact (while it stays
// below 2^29) in any order: the score of a window can be read from
// prefix sums over the features of the whole normalised text, in whole
// units of 2^-24, plus the few features its edges cut. That holds when a
// window's normal form is a piece of the text's, which this checks: text
// in plain ASCII (no control bytes but white space), a model normalising
// without Fold or StripSocial, and windows that start and end at a word
// (a run of non-space bytes). Other windows are scored one by one.
func (m *Model) MaxWindowProbability(text string, windows [][2]int) float64 {
	best := 0.0
	var ws *windowScorer
	if len(windows) > 1 && m.canScoreWindows(text) {
		ws, _ = m.windowScorers.Get().(*windowScorer)
		if ws == nil {
			ws = new(windowScorer)
		}
		defer m.windowScorers.Put(ws)
		if !ws.reset(m, text) {
			ws = nil
		}
	}
	for _, w := range windows {
		var p float64
		if ws != nil && ws.fits(text, w[0], w[1]) {
			p = m.platt.apply(ws.score(w[0], w[1]))
		} else {
			p = m.Probability(text[w[0]:w[1]])
		}
		best = max(best, p)
	}
	return best
}

// canScoreWindows reports whether windows of text can be scored from
// prefix sums (see MaxWindowProbability).
func (m *Model) canScoreWindows(text string) bool {
	if m.features.Norm != (NormOptions{}) || !m.units().exact {
		return false
	}
	for i := 0; i < len(text); i++ {
		c := text[i]
		if c >= 0x7f || (c < 0x20 && (c < '\t' || c > '\r')) {
			return false
		}
	}
	return true
}

// weightUnits describes the weights as whole units of 2^-24.
type weightUnits struct {
	// exact: every weight is a finite whole multiple of 2^-24 (a float16
	// value).
	exact bool
	// maxAbs is the largest weight magnitude.
	maxAbs float64
}

// unitScale is 2^24: a weight times unitScale is a whole number.
const unitScale = 1 << 24

// units checks the weights once.
func (m *Model) units() weightUnits {
	m.unitsOnce.Do(func() {
		u := weightUnits{exact: true}
		for _, w := range m.weights {
			f := float64(w)
			if math.IsInf(f, 0) || math.IsNaN(f) || f*unitScale != math.Trunc(f*unitScale) {
				u.exact = false
				break
			}
			u.maxAbs = max(u.maxAbs, math.Abs(f))
		}
		m.unitsInfo = u
	})
	return m.unitsInfo
}

// maxExactUnits bounds the magnitude of a sum of weights, in units, that
// float64 holds exactly (2^53) with a margin.
const maxExactUnits = 1 << 52

// windowScorer holds the prefix sums of one text's features.
type windowScorer struct {
	m    *Model
	norm []byte  // the normal form of the text
	at   []int32 // at[i]: index in norm of text byte i (non-space bytes)
	// charSum[i] is the sum, in units, of the character n-grams of the
	// padded normal form " "+norm+" " starting before position i.
	charSum []int64
	// wordStart[j] is the index in norm of word j; wordSum[j] the sum of
	// the word n-grams ending before word j; grams[j*WordNgrams+n-1] the
	// n-gram of n words ending at word j.
	wordStart []int32
	wordSum   []int64
	grams     []int64
}

// reset computes the prefix sums of text; false when the sums could
// exceed what float64 holds exactly.
func (ws *windowScorer) reset(m *Model, text string) bool {
	ws.m = m
	ws.norm, ws.at = ws.norm[:0], ws.at[:0]
	space := true
	for i := 0; i < len(text); i++ {
		c := text[i]
		if isSpaceByte(c) {
			space = true
			ws.at = append(ws.at, int32(len(ws.norm)))
			continue
		}
		if space && len(ws.norm) > 0 {
			ws.norm = append(ws.norm, ' ')
		}
		space = false
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		ws.at = append(ws.at, int32(len(ws.norm)))
		ws.norm = append(ws.norm, c)
	}
	f := m.features
	padded := len(ws.norm) + 2
	// Every feature's weight is at most maxAbs: bound the whole text's.
	perByte := max(f.CharMaxN-f.CharMinN+1, 0) + f.WordNgrams
	if float64(padded*perByte)*m.units().maxAbs*unitScale >= maxExactUnits {
		return false
	}
	ws.charSum = append(ws.charSum[:0], 0)
	var sum int64
	for i := range padded {
		sum += ws.charGrams(i, padded)
		ws.charSum = append(ws.charSum, sum)
	}
	ws.wordStart, ws.grams = ws.wordStart[:0], ws.grams[:0]
	ws.wordSum = append(ws.wordSum[:0], 0)
	sum = 0
	var recent [maxWordNgrams]uint64 // hashes of the last words, newest last
	for i := 0; f.WordNgrams > 0 && i < len(ws.norm); {
		if !isWordByte(ws.norm[i]) {
			i++
			continue
		}
		j := i
		for j < len(ws.norm) && isWordByte(ws.norm[j]) {
			j++
		}
		copy(recent[:], recent[1:])
		recent[maxWordNgrams-1] = fnv1a(fnvOffset, ws.norm[i:j])
		word := len(ws.wordStart)
		ws.wordStart = append(ws.wordStart, int32(i))
		acc := uint64(0x77)
		for n := 1; n <= f.WordNgrams; n++ {
			var u int64
			if n <= word+1 {
				acc = (acc^recent[maxWordNgrams-n])*fnvPrime + uint64(n)
				u = ws.unitsOf(acc)
			}
			ws.grams = append(ws.grams, u)
			sum += u
		}
		ws.wordSum = append(ws.wordSum, sum)
		i = j
	}
	return true
}

// unitsOf is the signed weight of the feature with hash h, in units.
func (ws *windowScorer) unitsOf(h uint64) int64 {
	h = mix(h)
	w := float64(ws.m.weights[h>>(64-uint(ws.m.features.HashBits))])
	if h&1 != 0 {
		w = -w
	}
	return int64(w * unitScale)
}

// paddedByte is byte i of " "+norm+" ", whose length is padded.
func (ws *windowScorer) paddedByte(i, padded int) byte {
	if i == 0 || i == padded-1 {
		return ' '
	}
	return ws.norm[i-1]
}

// charGrams is the sum of the character n-grams starting at i of the
// first end bytes of the padded normal form, as Features.visit emits
// them.
func (ws *windowScorer) charGrams(i, end int) int64 {
	f := ws.m.features
	padded := len(ws.norm) + 2
	h := uint64(fnvOffset) ^ 0x5bd1e995
	var sum int64
	for k := 0; k < f.CharMaxN && i+k < end; k++ {
		h ^= uint64(ws.paddedByte(i+k, padded))
		h *= fnvPrime
		if k+1 >= f.CharMinN {
			sum += ws.unitsOf(h + uint64(k))
		}
	}
	return sum
}

// fits reports whether the normal form of text[lo:hi] is the piece of
// the text's between the bytes lo and hi-1: the window is not empty and
// starts and ends at a word.
func (ws *windowScorer) fits(text string, lo, hi int) bool {
	return 0 <= lo && lo < hi && hi <= len(text) &&
		!isSpaceByte(text[lo]) && !isSpaceByte(text[hi-1]) &&
		(lo == 0 || isSpaceByte(text[lo-1])) && (hi == len(text) || isSpaceByte(text[hi]))
}

// score is Score(text[lo:hi]) for a window that fits.
func (ws *windowScorer) score(lo, hi int) float64 {
	f := ws.m.features
	a, b := int(ws.at[lo]), int(ws.at[hi-1])+1 // the window is norm[a:b]
	var units int64
	count := 0
	// Character n-grams of " "+norm[a:b]+" ", which is the padded text's
	// bytes a..b+1: starts whose longest n-gram fits come from the prefix
	// sums, the last few are cut by the window's end.
	if f.CharMaxN > 0 {
		end := b + 2
		full := max(end-f.CharMaxN+1, a) // first start whose n-grams are cut
		units += ws.charSum[full] - ws.charSum[a]
		for i := full; i < end; i++ {
			units += ws.charGrams(i, end)
		}
		for i := a; i < end; i++ {
			count += max(min(f.CharMaxN, end-i)-f.CharMinN+1, 0)
		}
	}
	// Word n-grams: those of the window's words, less those reaching back
	// before its first word.
	if f.WordNgrams > 0 {
		j0 := sort.Search(len(ws.wordStart), func(j int) bool { return int(ws.wordStart[j]) >= a })
		j1 := sort.Search(len(ws.wordStart), func(j int) bool { return int(ws.wordStart[j]) >= b })
		units += ws.wordSum[j1] - ws.wordSum[j0]
		for t := 0; t < f.WordNgrams-1 && j0+t < j1; t++ {
			for n := t + 2; n <= f.WordNgrams; n++ {
				units -= ws.grams[(j0+t)*f.WordNgrams+n-1]
			}
		}
		for t := 0; j0+t < j1; t++ {
			count += min(f.WordNgrams, t+1)
		}
	}
	if count == 0 {
		return ws.m.bias
	}
	sum := math.Ldexp(float64(units), -24)
	return ws.m.bias + sum/math.Sqrt(float64(count))
}
