package evaluators

import "context"

var faithfulness = Definition{
	Slug:        "faithfulness",
	Category:    CategoryQuality,
	Description: "Checks whether the completion is supported by the context (no hallucinated facts).",
	Inputs: []Field{
		textInput("completion", "Completion", "The answer to check."),
		textInput("context", "Context", "The retrieved context the answer must be faithful to."),
		textInput("question", "Question", "The question that was asked."),
	},
	Outputs: []Field{boolOutput("is_faithful", "Is faithful", "Whether the completion's claims are supported by the context.")},
	Side:    SideBoth,
	Score:   "is_faithful",
	PassDoc: "is_faithful == true",
	run:     runFaithfulness,
	pass:    passWhenTrue("is_faithful"),
}

func runFaithfulness(ctx context.Context, req Request) (Result, error) {
	return nil, errNotImplemented
}
