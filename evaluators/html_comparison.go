package evaluators

import "context"

var htmlComparison = Definition{
	Slug:        "html-comparison",
	Category:    CategoryFormatting,
	Description: "Scores the structural and content similarity of two HTML documents.",
	Inputs: []Field{
		textInput("html1", "First HTML", "The first document."),
		textInput("html2", "Second HTML", "The second document."),
	},
	Outputs: []Field{scoreOutput("similarity_score", "Similarity score", "0 (disjoint) to 1 (same structure, attributes and text).")},
	Side:    SideOutput,
	Score:   "similarity_score",
	PassDoc: "similarity_score >= 0.5",
	run:     runHTMLComparison,
	pass:    passWhenAtLeastHalf("similarity_score"),
}

func runHTMLComparison(ctx context.Context, req Request) (Result, error) {
	return nil, errNotImplemented
}
