package evaluators

import (
	"context"
	"math"
	"sort"

	"github.com/evalcol/evalcol/evaluators/internal/judge"
	"github.com/evalcol/evalcol/evaluators/internal/textsim"
)

var answerCompleteness = Definition{
	Slug:        "answer-completeness",
	Category:    CategoryQuality,
	Description: "Rates whether the completion contains all the information the context holds for answering the question.",
	Inputs: []Field{
		textInput("question", "Question", "The question that was asked."),
		textInput("completion", "Completion", "The answer to rate."),
		textInput("context", "Context", "The context that holds the complete information."),
	},
	Outputs: []Field{scoreOutput("answer_completeness_score", "Answer completeness score", "0 (nothing of what the context says on the question) to 1 (all of it).")},
	Side:    SideBoth,
	Score:   "answer_completeness_score",
	PassDoc: "answer_completeness_score >= 0.5",
	run:     runAnswerCompleteness,
	pass:    passWhenAtLeastHalf("answer_completeness_score"),
}

// completenessSentences is the most context sentences that make up the
// answer's key information.
const completenessSentences = 3

// runAnswerCompleteness finds what a complete answer must say and checks
// the completion says it:
//
//   - the context's sentences are ranked by textsim.AnswerRelevance to
//     the question (answer-relevancy's model); the key sentences are those
//     of probability at least 0.5, at most 3, or the best one when none
//     reaches 0.5;
//   - the key information is their content words that the question does
//     not already hold ("Paris" in "The capital of France is Paris." for
//     "What is the capital of France?");
//   - the score is the soft coverage of those words by the completion
//     (judge.SoftCoverage: stems, IDF weights, names and numbers 1.5,
//     GloVe neighbours).
//
// When the key sentences add nothing to the question, the score is
// textsim.AnswerRelevance(question, completion). An empty completion
// scores 0.
func runAnswerCompleteness(_ context.Context, req Request) (Result, error) {
	q, c, ctx := req.Text("question"), req.Text("completion"), req.Text("context")
	return Result{"answer_completeness_score": completeness(q, c, ctx)}, nil
}

func completeness(question, completion, ctx string) float64 {
	ct := textsim.Tokenize(completion)
	if len(ct) == 0 {
		return 0
	}
	qt := textsim.Tokenize(question)
	type scored struct {
		s string
		p float64
	}
	var sents []scored
	for _, s := range textsim.Sentences(ctx) {
		sents = append(sents, scored{s, textsim.AnswerRelevance(question, s)})
	}
	sort.SliceStable(sents, func(i, j int) bool { return sents[i].p > sents[j].p })
	qSet := textsim.NewKeySet(qt)
	var key []textsim.Token
	for i, s := range sents {
		if i >= completenessSentences || (i > 0 && s.p < 0.5) {
			break
		}
		for _, t := range textsim.Tokenize(s.s) {
			if t.Content() && !qSet.Has(t.Key) && !qSet.Has(t.Lower) {
				key = append(key, t)
			}
		}
	}
	cov, total := judge.SoftCoverage(key, ct)
	if total == 0 {
		return textsim.AnswerRelevance(question, completion)
	}
	return math.Min(1, cov)
}
