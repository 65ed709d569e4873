package textsim

import "strings"

// Weights of the Similarity blend, chosen a priori (not fitted): content
// overlap carries most of the meaning, character trigrams catch
// inflections and spelling variants the stemmer misses, word order
// separates "dog bites man" from "man bites dog".
const (
	simCosineWeight  = 0.5
	simTrigramWeight = 0.3
	simOrderWeight   = 0.2
	// negationMismatchFactor scales the similarity of two texts of
	// opposite negation polarity.
	negationMismatchFactor = 0.8
)

// Similarity scores how close in meaning a and b are, 0..1: 0.5 × the
// IDF-weighted cosine of their stemmed content words, where a word related
// in WordNet to an unmatched word of the other text counts as 0.6 of a match
// (SemanticCosine) + 0.3 × the cosine of
// their character trigrams + 0.2 × the order similarity (longest common
// subsequence) of their content words, times 0.8 when one text is negated
// and the other is not. Texts equal up to case and surrounding space score
// 1; two texts without letters or digits score 1 when equal and 0
// otherwise.
func Similarity(a, b string) float64 {
	if strings.EqualFold(strings.TrimSpace(a), strings.TrimSpace(b)) {
		return 1
	}
	return TokenSimilarity(a, b, Tokenize(a), Tokenize(b))
}

// TokenSimilarity is Similarity for texts already tokenised (ta is
// Tokenize(a), tb is Tokenize(b)).
func TokenSimilarity(a, b string, ta, tb []Token) float64 {
	s := simCosineWeight*SemanticCosine(ta, tb) + simTrigramWeight*CharNgramCosine(a, b, 3) + simOrderWeight*OrderSimilarity(ta, tb)
	if Negations(ta)%2 != Negations(tb)%2 {
		s *= negationMismatchFactor
	}
	return clamp01(s)
}

func clamp01(x float64) float64 {
	switch {
	case x < 0:
		return 0
	case x > 1:
		return 1
	}
	return x
}
