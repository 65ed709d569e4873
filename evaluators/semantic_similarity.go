package evaluators

import "context"

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
	pass:    passWhenAtLeastHalf("similarity_score"),
}

func runSemanticSimilarity(ctx context.Context, req Request) (Result, error) {
	return nil, errNotImplemented
}
