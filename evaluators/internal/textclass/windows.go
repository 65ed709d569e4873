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
	// feats are the features of norm as Features.appendFeatures writes them (word
	// n-grams word by word, then character n-grams start by start), and
	// units their signed weights in units of 2^-24.
	feats []feature
	units []int64
	// charFirst[i] is the index in units of the first character n-gram
	// starting at byte i of the padded normal form " "+norm+" ";
	// charSum[i] the sum of the character n-grams starting before i.
	charFirst []int32
	charSum   []int64
	// wordStart[j] is the index in norm of word j; wordFirst[j] the index
	// in units of its n-grams (n = 1, 2, ... words ending at word j);
	// wordSum[j] the sum of the word n-grams ending before word j.
	wordStart []int32
	wordFirst []int32
	wordSum   []int64
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
	// Every feature's weight is at most maxAbs: bound the whole text's.
	perByte := max(f.CharMaxN-f.CharMinN+1, 0) + f.WordNgrams
	if float64((len(ws.norm)+2)*perByte)*m.units().maxAbs*unitScale >= maxExactUnits {
		return false
	}
	feats := f.appendFeatures(ws.feats[:0], ws.norm)
	ws.feats = feats
	// Gather the weights in one tight loop (see Model.sumWeights).
	if cap(ws.units) < len(feats) {
		ws.units = make([]int64, len(feats))
	}
	units := ws.units[:len(feats)]
	if h := m.halfWeights(); h != nil {
		for k, x := range feats {
			units[k] = int64(float64(halfValues[h[x>>1]^uint16(x&1)<<15]) * unitScale)
		}
	} else {
		w := m.weights
		for k, x := range feats {
			v := float64(w[x>>1])
			if x&1 != 0 {
				v = -v
			}
			units[k] = int64(v * unitScale)
		}
	}
	ws.units = units
	// Word n-grams come first: min(WordNgrams, j+1) for word j.
	ws.wordStart, ws.wordFirst = ws.wordStart[:0], ws.wordFirst[:0]
	ws.wordSum = append(ws.wordSum[:0], 0)
	k := 0
	var sum int64
	for i := 0; f.WordNgrams > 0 && i < len(ws.norm); {
		if !isWordByte(ws.norm[i]) {
			i++
			continue
		}
		j := len(ws.wordStart)
		ws.wordStart = append(ws.wordStart, int32(i))
		ws.wordFirst = append(ws.wordFirst, int32(k))
		for range min(f.WordNgrams, j+1) {
			sum += units[k]
			k++
		}
		ws.wordSum = append(ws.wordSum, sum)
		for i < len(ws.norm) && isWordByte(ws.norm[i]) {
			i++
		}
	}
	// Then character n-grams, start by start.
	padded := len(ws.norm) + 2
	ws.charFirst = ws.charFirst[:0]
	ws.charSum = append(ws.charSum[:0], 0)
	sum = 0
	per := f.CharMaxN - f.CharMinN + 1 // n-grams at a start not near the end
	for i := 0; f.CharMaxN > 0 && i < padded; i++ {
		ws.charFirst = append(ws.charFirst, int32(k))
		n := per
		if i > padded-f.CharMaxN {
			n = charGramsAt(f, i, padded)
		}
		for _, u := range units[k : k+n] {
			sum += u
		}
		k += n
		ws.charSum = append(ws.charSum, sum)
	}
	if k != len(units) {
		panic("textclass: window scorer out of step with Features.appendFeatures")
	}
	return true
}

// charGramsAt is the number of character n-grams starting at byte i of a
// padded text of n bytes.
func charGramsAt(f Features, i, n int) int {
	return max(min(f.CharMaxN, n-i)-f.CharMinN+1, 0)
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
	// bytes a..b+1: starts whose n-grams all fit come from the prefix
	// sums; at the last few, only the shorter n-grams (the first ones of
	// their start) fit.
	if f.CharMaxN > 0 {
		end := b + 2
		full := max(end-f.CharMaxN+1, a) // first start whose n-grams are cut
		units += ws.charSum[full] - ws.charSum[a]
		for i := full; i < end; i++ {
			first := int(ws.charFirst[i])
			for _, u := range ws.units[first : first+charGramsAt(f, i, end)] {
				units += u
			}
		}
		count += (full - a) * (f.CharMaxN - f.CharMinN + 1)
		for i := full; i < end; i++ {
			count += charGramsAt(f, i, end)
		}
	}
	// Word n-grams: those of the window's words, less those reaching back
	// before its first word.
	if f.WordNgrams > 0 {
		j0 := sort.Search(len(ws.wordStart), func(j int) bool { return int(ws.wordStart[j]) >= a })
		j1 := sort.Search(len(ws.wordStart), func(j int) bool { return int(ws.wordStart[j]) >= b })
		units += ws.wordSum[j1] - ws.wordSum[j0]
		for t := 0; t < f.WordNgrams-1 && j0+t < j1; t++ {
			j := j0 + t
			first := int(ws.wordFirst[j])
			for n := t + 2; n <= min(f.WordNgrams, j+1); n++ {
				units -= ws.units[first+n-1]
			}
		}
		// Word t of the window (from 0) has min(WordNgrams, t+1) n-grams.
		words, wn := j1-j0, f.WordNgrams
		if words <= wn {
			count += words * (words + 1) / 2
		} else {
			count += wn*(wn+1)/2 + (words-wn)*wn
		}
	}
	if count == 0 {
		return ws.m.bias
	}
	sum := math.Ldexp(float64(units), -24)
	return ws.m.bias + sum/math.Sqrt(float64(count))
}
