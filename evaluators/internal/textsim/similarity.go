package textsim

import (
	"math"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Weight is the weight of a content token in overlaps and cosines: 1.5 for
// a number or a name-like token (they carry the facts), the IDF of its key
// (0.2 for the commonest words to 1 for rare ones) for any other content
// word, 0 for a stop word.
func Weight(t Token) float64 {
	switch {
	case t.Number || t.Entity():
		return 1.5
	case t.Content():
		return IDF(t.Key)
	}
	return 0
}

// KeySet is a set of token keys, for membership tests without a map.
type KeySet struct{ keys []string }

// NewKeySet returns the set of the keys of every token of toks, stop words
// included, plus their lower-case forms (so that a name matches even when
// stemming treats it differently in the two texts).
func NewKeySet(toks []Token) KeySet {
	keys := make([]string, 0, 2*len(toks))
	for _, t := range toks {
		keys = append(keys, t.Key)
		if t.Lower != t.Key {
			keys = append(keys, t.Lower)
		}
	}
	slices.Sort(keys)
	return KeySet{keys: slices.Compact(keys)}
}

// Has reports whether k is in the set.
func (s KeySet) Has(k string) bool {
	_, ok := slices.BinarySearch(s.keys, k)
	return ok
}

// Len is the number of keys in the set.
func (s KeySet) Len() int { return len(s.keys) }

// Coverage is the weighted share of the content tokens of a whose key is in
// b, and the total weight of those tokens (0 when a has no content token).
func Coverage(a []Token, b KeySet) (share, total float64) {
	var hit float64
	for _, t := range a {
		w := Weight(t)
		if w == 0 {
			continue
		}
		total += w
		if b.Has(t.Key) || b.Has(t.Lower) {
			hit += w
		}
	}
	if total == 0 {
		return 0, 0
	}
	return hit / total, total
}

// F1 is the harmonic mean of the weighted coverage of a by b (precision)
// and of b by a (recall): 1 for texts with the same content words, 0 for no
// common content word. Two texts without content words score 1 when their
// lower-cased forms are equal and 0 otherwise.
func F1(a, b []Token) float64 {
	p, pt := Coverage(a, NewKeySet(b))
	r, rt := Coverage(b, NewKeySet(a))
	if pt == 0 || rt == 0 {
		if pt == 0 && rt == 0 && sameLower(a, b) {
			return 1
		}
		return 0
	}
	if p+r == 0 {
		return 0
	}
	return 2 * p * r / (p + r)
}

func sameLower(a, b []Token) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Lower != b[i].Lower {
			return false
		}
	}
	return true
}

// term is one weighted key of a bag of words.
type term struct {
	key     string
	w       float64
	matched bool // set by SemanticCosine
}

// bag returns the content keys of toks with summed weights, sorted by key.
func bag(toks []Token) []term {
	ts := make([]term, 0, len(toks))
	for _, t := range toks {
		if w := Weight(t); w > 0 {
			ts = append(ts, term{key: t.Key, w: w})
		}
	}
	slices.SortFunc(ts, func(x, y term) int { return strings.Compare(x.key, y.key) })
	out := ts[:0]
	for _, t := range ts {
		if n := len(out); n > 0 && out[n-1].key == t.key {
			out[n-1].w += t.w
			continue
		}
		out = append(out, t)
	}
	return out
}

// Cosine is the cosine of the weighted bags of content words of a and b
// (term frequency times Weight), 0..1.
func Cosine(a, b []Token) float64 {
	x, y := bag(a), bag(b)
	var dot, nx, ny float64
	i, j := 0, 0
	for i < len(x) && j < len(y) {
		switch c := strings.Compare(x[i].key, y[j].key); {
		case c == 0:
			dot += x[i].w * y[j].w
			i++
			j++
		case c < 0:
			i++
		default:
			j++
		}
	}
	for _, t := range x {
		nx += t.w * t.w
	}
	for _, t := range y {
		ny += t.w * t.w
	}
	if nx == 0 || ny == 0 {
		return 0
	}
	return dot / math.Sqrt(nx*ny)
}

// relatedCredit is the share of a full match that SemanticCosine gives two
// different words related in WordNet (synonyms, or a word and its direct
// hypernym), chosen a priori, not fitted: a related word is most of the
// way to the same word, but a synonym is rarely exact in every sense.
const relatedCredit = 0.6

// maxRelatedPairs bounds the word pairs SemanticCosine compares for
// relatedness, to keep its quadratic time in check on long texts.
const maxRelatedPairs = 250_000

// SemanticCosine is Cosine, except that a content word of a without the
// same key in b counts as 0.6 of a match with the heaviest word of b that
// has no match yet and is related to it in WordNet (see Related); each word
// of b is matched at most once. Texts whose distinct content keys make more than 250,000 pairs
// get the plain Cosine.
func SemanticCosine(a, b []Token) float64 {
	x, y := bag(a), bag(b)
	var dot, nx, ny float64
	i, j := 0, 0
	for i < len(x) && j < len(y) {
		switch c := strings.Compare(x[i].key, y[j].key); {
		case c == 0:
			dot += x[i].w * y[j].w
			x[i].matched, y[j].matched = true, true
			i++
			j++
		case c < 0:
			i++
		default:
			j++
		}
	}
	if len(x)*len(y) <= maxRelatedPairs {
		for i := range x {
			if x[i].matched {
				continue
			}
			best := -1
			for j := range y {
				if !y[j].matched && (best < 0 || y[j].w > y[best].w) && Related(x[i].key, y[j].key) {
					best = j
				}
			}
			if best >= 0 {
				dot += relatedCredit * x[i].w * y[best].w
				y[best].matched = true
			}
		}
	}
	for _, t := range x {
		nx += t.w * t.w
	}
	for _, t := range y {
		ny += t.w * t.w
	}
	if nx == 0 || ny == 0 {
		return 0
	}
	return dot / math.Sqrt(nx*ny)
}

// Jaccard is the share of distinct content keys common to a and b.
func Jaccard(a, b []Token) float64 {
	x, y := bag(a), bag(b)
	common := 0
	i, j := 0, 0
	for i < len(x) && j < len(y) {
		switch c := strings.Compare(x[i].key, y[j].key); {
		case c == 0:
			common++
			i++
			j++
		case c < 0:
			i++
		default:
			j++
		}
	}
	union := len(x) + len(y) - common
	if union == 0 {
		return 0
	}
	return float64(common) / float64(union)
}

// maxOrderTokens bounds the content words OrderSimilarity compares, to
// keep its quadratic time in check on long texts.
const maxOrderTokens = 2000

// OrderSimilarity is the length of the longest common subsequence of the
// content keys of a and b over the length of the longer sequence: 1 when
// the content words come in the same order, lower when they are reordered
// or missing. Only the first 2,000 content words of each text count.
func OrderSimilarity(a, b []Token) float64 {
	x, y := contentKeys(a), contentKeys(b)
	if len(x) == 0 || len(y) == 0 {
		return 0
	}
	x, y = x[:min(len(x), maxOrderTokens)], y[:min(len(y), maxOrderTokens)]
	return float64(CommonSubsequence(x, y, func(p, q string) bool { return p == q })) / float64(max(len(x), len(y)))
}

func contentKeys(toks []Token) []string {
	keys := make([]string, 0, len(toks))
	for _, t := range toks {
		if t.Content() {
			keys = append(keys, t.Key)
		}
	}
	return keys
}

// CharNgramCosine is the cosine of the character n-gram counts of a and b,
// computed on the lower-cased letters and digits with runs of anything else
// folded to one space. It catches spelling variants and inflections that
// stemming misses.
func CharNgramCosine(a, b string, n int) float64 {
	x, y := ngramHashes(a, n), ngramHashes(b, n)
	if len(x) == 0 || len(y) == 0 {
		if len(x) == 0 && len(y) == 0 && strings.EqualFold(strings.TrimSpace(a), strings.TrimSpace(b)) {
			return 1
		}
		return 0
	}
	var dot, nx, ny float64
	i, j := 0, 0
	for i < len(x) || j < len(y) {
		var h uint64
		switch {
		case j >= len(y) || (i < len(x) && x[i] < y[j]):
			h = x[i]
		default:
			h = y[j]
		}
		ci, cj := 0, 0
		for i < len(x) && x[i] == h {
			ci++
			i++
		}
		for j < len(y) && y[j] == h {
			cj++
			j++
		}
		dot += float64(ci * cj)
		nx += float64(ci * ci)
		ny += float64(cj * cj)
	}
	return dot / math.Sqrt(nx*ny)
}

// ngramHashes returns the sorted FNV-1a hashes of the character n-grams of
// the normalised s (padded with a space at both ends).
func ngramHashes(s string, n int) []uint64 {
	runes := make([]rune, 0, len(s)+2)
	runes = append(runes, ' ')
	for _, r := range s {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			runes = append(runes, unicode.ToLower(r))
		case runes[len(runes)-1] != ' ':
			runes = append(runes, ' ')
		}
	}
	if runes[len(runes)-1] != ' ' {
		runes = append(runes, ' ')
	}
	if len(runes) <= 2 || len(runes) < n {
		return nil
	}
	hs := make([]uint64, 0, len(runes)-n+1)
	for i := 0; i+n <= len(runes); i++ {
		h := uint64(14695981039346656037)
		for _, r := range runes[i : i+n] {
			h ^= uint64(r)
			h *= 1099511628211
		}
		hs = append(hs, h)
	}
	slices.Sort(hs)
	return hs
}

// AnswerF1 is F1 for an answer a against a reference answer ref to a
// question whose keys are q: like F1, except that the content tokens of a
// that only repeat the question (in q and not in ref) count neither for
// nor against precision.
func AnswerF1(a, ref []Token, q KeySet) float64 {
	refSet, aSet := NewKeySet(ref), NewKeySet(a)
	var hit, total float64
	for _, t := range a {
		w := Weight(t)
		if w == 0 {
			continue
		}
		inRef := refSet.Has(t.Key) || refSet.Has(t.Lower)
		if !inRef && q.Has(t.Key) {
			continue
		}
		total += w
		if inRef {
			hit += w
		}
	}
	r, rt := Coverage(ref, aSet)
	if total == 0 || rt == 0 {
		if total == 0 && rt == 0 && sameLower(a, ref) {
			return 1
		}
		return 0
	}
	p := hit / total
	if p+r == 0 {
		return 0
	}
	return 2 * p * r / (p + r)
}

// NormalizedEqual reports whether a and b are equal up to case and to the
// spaces and punctuation between their words.
func NormalizedEqual(a, b string) bool {
	i, j := 0, 0
	for {
		i, j = skipSeparators(a, i), skipSeparators(b, j)
		if i == len(a) || j == len(b) {
			return i == len(a) && j == len(b)
		}
		// Compare one word of each.
		for i < len(a) && j < len(b) {
			ra, sa := utf8.DecodeRuneInString(a[i:])
			rb, sb := utf8.DecodeRuneInString(b[j:])
			wa, wb := isWordRune(ra), isWordRune(rb)
			if !wa || !wb {
				if wa != wb {
					return false
				}
				break
			}
			if unicode.ToLower(ra) != unicode.ToLower(rb) {
				return false
			}
			i += sa
			j += sb
		}
		if (i == len(a)) != (j == len(b)) {
			// One word ended with its text, the other goes on.
			ra, _ := utf8.DecodeRuneInString(a[min(i, len(a)):])
			rb, _ := utf8.DecodeRuneInString(b[min(j, len(b)):])
			if (i < len(a) && isWordRune(ra)) || (j < len(b) && isWordRune(rb)) {
				return false
			}
		}
	}
}

func isWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

func skipSeparators(s string, i int) int {
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		if isWordRune(r) {
			break
		}
		i += size
	}
	return i
}

// CommonSubsequence is the length of the longest common subsequence of a
// and b, elements compared with eq (two rows of dynamic programming).
func CommonSubsequence[T any](a, b []T, eq func(T, T) bool) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for i := range a {
		for j := range b {
			switch {
			case eq(a[i], b[j]):
				cur[j+1] = prev[j] + 1
			case prev[j+1] >= cur[j]:
				cur[j+1] = prev[j+1]
			default:
				cur[j+1] = cur[j]
			}
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
