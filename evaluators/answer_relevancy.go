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
	pass:    passWhenTrue("is_relevant"),
}

// relevancyThreshold is the relevance from which an answer is relevant,
// calibrated on relevancy/trecqa-dev.jsonl (public domain): macro F1 0.62
// at 0.6, 0.70 at 0.7, 0.72 at 0.75 and 0.8, 0.70 at 0.85.
const relevancyThreshold = 0.75

// runAnswerRelevancy judges whether the answer addresses the question with
// textsim.Relevance, a lexical stand-in for Ragas answer relevancy: 0.6 ×
// the weighted share of the question's content words (stemmed, stop words
// out, words weighted by IDF, numbers and names weighing 1.5) found in the
// answer + 0.4 when the answer holds, beyond the question's own words,
// what the question word
// asks for (a number for "how many/much/long", a number or month for
// "when"/"what year", a capitalised name for "who"/"where"/"what city",
// any new content word otherwise), the latter only when the answer shares
// a word with the question. The answer is relevant when the score
// is at least 0.75, so a relevant answer takes up most (at least 7/12) of
// the question's weighted content words and holds the kind of answer asked
// for. An empty answer is not relevant.
func runAnswerRelevancy(_ context.Context, req Request) (Result, error) {
	return Result{"is_relevant": textsim.Relevance(req.Text("question"), req.Text("answer")) >= relevancyThreshold}, nil
}
