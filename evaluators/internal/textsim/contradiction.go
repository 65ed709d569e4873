package textsim

import (
	"slices"
	"strconv"
)

// multipliers scale the number written just before them ("3.8 million").
var multipliers = map[string]float64{"hundred": 100, "thousand": 1e3, "million": 1e6, "billion": 1e9, "trillion": 1e12}

// NumberValues returns the values of the numbers of toks, in digits or
// number words, with a following multiplier word folded in ("380
// thousand" → 380000, "one hundred" → 100, "3.8 million" → 3800000).
func NumberValues(toks []Token) []float64 {
	var out []float64
	for i := 0; i < len(toks); i++ {
		v, ok := numberValue(toks[i])
		if !ok {
			continue
		}
		for i+1 < len(toks) {
			m, isMult := multipliers[toks[i+1].Lower]
			if !isMult {
				break
			}
			v *= m
			i++
		}
		out = append(out, v)
	}
	return out
}

// numberValue is the value of a number token or a number word.
func numberValue(t Token) (float64, bool) {
	if !t.Number && lexicon().numberWords[t.Lower] == "" {
		return 0, false
	}
	if t.Key == numPlaceholder {
		return 0, false
	}
	v, err := strconv.ParseFloat(t.Key, 64)
	return v, err == nil
}

// Contradiction reports whether an answer a plainly contradicts a
// reference answer ref to a question q, the kinds of near miss that word
// overlap scores as almost right:
//
//   - a number mismatch: ref has a number that a lacks, and a has a number
//     that ref lacks ("completed in 1898" for "in 1889", "14 days" for "30
//     days");
//   - a name substitution: ref has a name (a capitalised word inside a
//     sentence) that neither a nor the question holds, and a has a
//     capitalised word that neither ref nor the question holds ("Sydney"
//     for "Canberra", "Buzz Aldrin" for "Neil Armstrong");
//   - opposite polarity: one of a and ref is negated and the other is not.
//
// Numbers the question already holds are left out of the number check.
func Contradiction(a, ref, q []Token) bool {
	if Negations(a)%2 != Negations(ref)%2 {
		return true
	}
	qNums := NumberValues(q)
	aNums, refNums := without(NumberValues(a), qNums), without(NumberValues(ref), qNums)
	if len(aNums) > 0 && len(refNums) > 0 && len(without(aNums, refNums)) > 0 && len(without(refNums, aNums)) > 0 {
		return true
	}
	aSet, refSet, qSet := NewKeySet(a), NewKeySet(ref), NewKeySet(q)
	missing := false
	for _, t := range ref {
		if t.Entity() && !aSet.Has(t.Key) && !aSet.Has(t.Lower) && !qSet.Has(t.Key) && !qSet.Has(t.Lower) {
			missing = true
			break
		}
	}
	if !missing {
		return false
	}
	for _, t := range a {
		if t.Capital && !t.Stop && !t.Number && !refSet.Has(t.Key) && !refSet.Has(t.Lower) && !qSet.Has(t.Key) && !qSet.Has(t.Lower) {
			return true
		}
	}
	return false
}

// without returns the values of xs not in ys.
func without(xs, ys []float64) []float64 {
	var out []float64
	for _, x := range xs {
		if !slices.Contains(ys, x) {
			out = append(out, x)
		}
	}
	return out
}
