package evaluators

import (
	"context"

	"github.com/evalcol/evalcol/evaluators/internal/textsim"
)

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
	explain: explainRelevancy,
	pass:    passWhenTrue("is_relevant"),
}

// runAnswerRelevancy judges whether the answer addresses the question with
// textsim.AnswerRelevance, a lexical and word-vector stand-in for Ragas
// answer relevancy: a logistic blend of the weighted share of the
// question's content words (stemmed, stop words out, IDF-weighted, names
// and numbers 1.5) found in the answer, the same share where a missing
// question word counts as found by its closest answer word in GloVe space
// (cosine at least 0.7), whether the answer holds the kind of answer asked
// for (a number for "how many", a date for "when", a name for "who"), and
// the cosine of the two texts' sentence vectors. Its coefficients were fit
// on half of the questions of TrecQA dev (public domain) and checked on the
// other half. The answer is relevant when the probability is at least 0.5.
// An empty answer is not relevant.
func runAnswerRelevancy(_ context.Context, req Request) (Result, error) {
	return Result{"is_relevant": textsim.AnswerRelevance(req.Text("question"), req.Text("answer")) >= 0.5}, nil
}
