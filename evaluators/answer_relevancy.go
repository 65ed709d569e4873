package evaluators

import "context"

var answerRelevancy = Definition{
	Slug:        "answer-relevancy",
	Category:    CategoryQuality,
	Description: "Checks whether the answer addresses the question.",
	Inputs: []Field{
		textInput("answer", "Answer", "The answer to check."),
		textInput("question", "Question", "The question that was asked."),
	},
	Outputs: []Field{boolOutput("is_relevant", "Is relevant", "Whether the answer addresses the question.")},
	Side:    SideBoth,
	Score:   "is_relevant",
	PassDoc: "is_relevant == true",
	run:     runAnswerRelevancy,
	pass:    passWhenTrue("is_relevant"),
}

func runAnswerRelevancy(ctx context.Context, req Request) (Result, error) {
	return nil, errNotImplemented
}
