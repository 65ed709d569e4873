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
	// simEmbeddingWeight is the share of the embedding cosine
	// (EmbeddingCosine) in Similarity; the rest is the lexical blend
	// above. Chosen on the tuning half (odd groups) of
	// testdata/relatedness.jsonl among 0.3, 0.5 and 0.7; never fitted on
	// SICK.
	simEmbeddingWeight = 0.7
	// negationMismatchFactor scales the similarity of two texts of
	// opposite negation polarity.
	negationMismatchFactor = 0.8
)

// Similarity scores how close in meaning a and b are, 0..1: 0.7 × (0.8 ×
// the cosine of their sentence vectors (IDF-weighted GloVe word vectors of
// their content words, common direction removed: EmbeddingCosine, 0 when
// negative) + 0.2 × the order similarity below) + 0.3 × a lexical blend (0.5 × the IDF-weighted cosine of
// their stemmed content words, where a word related in WordNet to an
// unmatched word of the other text counts as 0.6 of a match
// (SemanticCosine) + 0.3 × the cosine of their character trigrams + 0.2 ×
// the order similarity (longest common subsequence) of their content
// words), times 0.8 when one text is negated and the other is not. Texts
// without a content word that has a vector get the lexical blend alone. Texts equal up to case and surrounding space score
// 1; two texts without letters or digits score 1 when equal and 0
// otherwise.
func Similarity(a, b string) float64 {
	if strings.EqualFold(strings.TrimSpace(a), strings.TrimSpace(b)) {
		return 1
	}
	return TokenSimilarity(a, b, Tokenize(a), Tokenize(b))
}

// LexicalSimilarity is the lexical blend of Similarity alone (no word
// vectors), times 0.8 when one text is negated and the other is not, for
// texts already tokenised (ta is Tokenize(a), tb is Tokenize(b)).
func LexicalSimilarity(a, b string, ta, tb []Token) float64 {
	s := simCosineWeight*SemanticCosine(ta, tb) + simTrigramWeight*CharNgramCosine(a, b, 3) + simOrderWeight*OrderSimilarity(ta, tb)
	if Negations(ta)%2 != Negations(tb)%2 {
		s *= negationMismatchFactor
	}
	return clamp01(s)
}

// TokenSimilarity is Similarity for texts already tokenised (ta is
// Tokenize(a), tb is Tokenize(b)).
func TokenSimilarity(a, b string, ta, tb []Token) float64 {
	return SimilarityPartsOf(a, b, ta, tb).Score()
}

// SimilarityParts are the parts TokenSimilarity combines.
type SimilarityParts struct {
	SemanticCosine, Trigram, Order float64
	// Embedding is the sentence vectors' cosine; HasEmbedding is false
	// when a text has no content word with a vector.
	Embedding    float64
	HasEmbedding bool
	// NegationMismatch: one text is negated and the other is not.
	NegationMismatch bool
}

// SimilarityPartsOf computes the parts of TokenSimilarity.
func SimilarityPartsOf(a, b string, ta, tb []Token) SimilarityParts {
	p := SimilarityParts{SemanticCosine: SemanticCosine(ta, tb), Trigram: CharNgramCosine(a, b, 3), Order: OrderSimilarity(ta, tb)}
	p.Embedding, p.HasEmbedding = EmbeddingCosine(ta, tb)
	p.NegationMismatch = Negations(ta)%2 != Negations(tb)%2
	return p
}

// Score combines the parts as TokenSimilarity does.
func (p SimilarityParts) Score() float64 {
	s := simCosineWeight*p.SemanticCosine + simTrigramWeight*p.Trigram + simOrderWeight*p.Order
	if p.HasEmbedding {
		// Sentence vectors ignore word order: it keeps its weight of
		// the lexical blend in the embedding part too.
		emb := (1-simOrderWeight)*max(0, p.Embedding) + simOrderWeight*p.Order
		s = (1-simEmbeddingWeight)*s + simEmbeddingWeight*emb
	}
	if p.NegationMismatch {
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
