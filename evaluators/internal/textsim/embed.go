package textsim

import (
	"math"
	"sync"

	"github.com/evalcol/evalcol/evaluators/internal/wordvec"
)

// commonDirection is the unit vector of the frequency-weighted mean of
// every word vector of the table (weight 1/(rank+50), a Zipf estimate of
// the word's probability): the direction every averaged sentence vector
// shares, removed before comparing two of them (Arora, Liang and Ma 2017
// remove the first principal component of a corpus for the same reason).
var commonDirection = sync.OnceValue(func() []float32 {
	tab := wordvec.Default()
	u := make([]float32, wordvec.Dims)
	for id := range tab.Len() {
		tab.Add(u, id, float32(1/(float64(id)+50)))
	}
	var n float64
	for _, x := range u {
		n += float64(x) * float64(x)
	}
	for j := range u {
		u[j] /= float32(math.Sqrt(n))
	}
	return u
})

// SentenceVector writes to dst (len wordvec.Dims) the weighted mean
// direction of the word vectors of the content tokens of toks (weights of
// Weight, so rare words and names count most), with the common direction
// of all sentences removed. It reports false when no content token has a
// vector.
func SentenceVector(dst []float32, toks []Token) bool {
	tab := wordvec.Default()
	clear(dst[:wordvec.Dims])
	found := false
	for _, t := range toks {
		w := Weight(t)
		if w == 0 {
			continue
		}
		if id := tab.ID(t.Lower); id >= 0 {
			tab.Add(dst, id, float32(w))
			found = true
		}
	}
	if !found {
		return false
	}
	u := commonDirection()
	var d float32
	for j, x := range dst[:wordvec.Dims] {
		d += x * u[j]
	}
	for j := range dst[:wordvec.Dims] {
		dst[j] -= d * u[j]
	}
	return true
}

// EmbeddingCosine is the cosine of the sentence vectors of a and b (see
// SentenceVector), -1..1, and false when one of them has no content word
// with a vector.
func EmbeddingCosine(a, b []Token) (float64, bool) {
	var va, vb [wordvec.Dims]float32
	if !SentenceVector(va[:], a) || !SentenceVector(vb[:], b) {
		return 0, false
	}
	var dot, na, nb float64
	for j := range va {
		dot += float64(va[j]) * float64(vb[j])
		na += float64(va[j]) * float64(va[j])
		nb += float64(vb[j]) * float64(vb[j])
	}
	if na == 0 || nb == 0 {
		return 0, false
	}
	return dot / math.Sqrt(na*nb), true
}
