package evaluators

import "context"

var answerCorrectness = Definition{
	Slug:        "answer-correctness",
	Category:    CategoryQuality,
	Description: "Scores the factual agreement of the completion with the ground truth.",
	Inputs: []Field{
		textInput("question", "Question", "The question that was asked."),
		textInput("completion", "Completion", "The answer to score."),
		textInput("ground_truth", "Ground truth", "The correct answer."),
	},
	Outputs: []Field{scoreOutput("correctness_score", "Correctness score", "0 (wrong) to 1 (agrees with the ground truth).")},
	Side:    SideBoth,
	Score:   "correctness_score",
	PassDoc: "correctness_score >= 0.5",
	run:     runAnswerCorrectness,
	pass:    passWhenAtLeastHalf("correctness_score"),
}

func runAnswerCorrectness(ctx context.Context, req Request) (Result, error) {
	return nil, errNotImplemented
}
