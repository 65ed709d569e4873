package evaluators

import (
	"context"
	"github.com/evalcol/evalcol/evaluators/internal/textsim"
)

var semanticSimilarity = Definition{
	Slug:        "semantic-similarity",
	Category:    CategoryQuality,
	Description: "Scores how close in meaning the completion is to a reference text.",
	Inputs: []Field{
		textInput("completion", "Completion", "The text to compare."),
		textInput("reference", "Reference", "The reference text."),
	},
	Outputs: []Field{scoreOutput("similarity_score", "Similarity score", "0 (unrelated) to 1 (same meaning).")},
	Side:    SideOutput,
	Score:   "similarity_score",
	PassDoc: "similarity_score >= 0.5",
	run:     runSemanticSimilarity,
	explain: explainSimilarity,
	pass:    passWhenAtLeastHalf("similarity_score"),
}

// runSemanticSimilarity scores the closeness in meaning of completion and
// reference lexically (no embedding model), as textsim.Similarity: 0.5 ×
// the IDF-weighted cosine of the stemmed content words, where a word that
// WordNet relates (synonym or direct hypernym) to an unmatched word of the
// other text counts as 0.6 of a match, + 0.3 × the cosine of
// the character trigrams + 0.2 × the order similarity (longest common
// subsequence) of the content words, times 0.8 when exactly one text is
// negated. The weights were chosen a priori, not fitted. Texts equal up to
// case and surrounding space score 1.
func runSemanticSimilarity(_ context.Context, req Request) (Result, error) {
	return Result{"similarity_score": textsim.Similarity(req.Text("completion"), req.Text("reference"))}, nil
}
