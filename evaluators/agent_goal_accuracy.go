package evaluators

import (
	"context"
	"math"

	"github.com/evalcol/evalcol/evaluators/internal/judge"
	"github.com/evalcol/evalcol/evaluators/internal/textsim"
)

var agentGoalAccuracy = Definition{
	Slug:        "agent-goal-accuracy",
	Category:    CategoryQuality,
	Description: "Rates how accurately the agent's final answer achieved the goal, against a reference outcome.",
	Inputs: []Field{
		textInput("question", "Question", "The user's goal or question."),
		textInput("completion", "Completion", "The agent's final answer."),
		textInput("reference", "Reference", "The expected outcome."),
	},
	Outputs: []Field{scoreOutput("accuracy_score", "Accuracy score", "0 (goal missed) to 1 (the reference outcome achieved).")},
	Side:    SideBoth,
	Score:   "accuracy_score",
	PassDoc: "accuracy_score >= 0.5",
	run:     runAgentGoalAccuracy,
	pass:    passWhenAtLeastHalf("accuracy_score"),
}

// Weights of the goal accuracy blend.
const (
	goalReferenceWeight  = 0.6
	goalSimilarityWeight = 0.25
	goalQuestionWeight   = 0.15
	// goalFailureFactor scales the score of a completion that reports a
	// failure or contradicts the reference.
	goalFailureFactor = 0.3
)

// runAgentGoalAccuracy is Ragas's agent goal accuracy with a reference
// (does the outcome match the reference outcome) with lexical and
// word-vector evidence instead of an LLM:
//
//	0.6 × soft coverage of the reference's content words by the completion
//	  (judge.SoftCoverage: stems, IDF weights, GloVe neighbours: the
//	  reference's facts reached)
//	+ 0.25 × textsim.Similarity(completion, reference)
//	+ 0.15 × soft coverage of the question's content words (the goal
//	  taken up),
//
// times 0.3 when the completion reports a failure (judge.Failure: "I
// could not book") or contradicts the reference (textsim.Contradiction:
// another number or name, opposite polarity; judge.EntitySwap: a name or
// number of the reference, question words included, replaced by another:
// "Friday" for "Monday"). A completion equal to the
// reference up to case, space and punctuation scores 1; an empty one 0.
func runAgentGoalAccuracy(_ context.Context, req Request) (Result, error) {
	q, c, ref := req.Text("question"), req.Text("completion"), req.Text("reference")
	return Result{"accuracy_score": goalAccuracy(q, c, ref)}, nil
}

func goalAccuracy(question, completion, reference string) float64 {
	if textsim.NormalizedEqual(completion, reference) && completion != "" {
		return 1
	}
	ct, rt, qt := textsim.Tokenize(completion), textsim.Tokenize(reference), textsim.Tokenize(question)
	if len(ct) == 0 {
		return 0
	}
	refCov, refTotal := judge.SoftCoverage(rt, ct)
	if refTotal == 0 {
		refCov = 1
	}
	qCov, qTotal := judge.SoftCoverage(qt, ct)
	if qTotal == 0 {
		qCov = 1
	}
	s := goalReferenceWeight*refCov + goalSimilarityWeight*textsim.Similarity(completion, reference) + goalQuestionWeight*qCov
	if judge.Failure(completion) || textsim.Contradiction(ct, rt, qt) || judge.EntitySwap(ct, rt, qt) {
		s *= goalFailureFactor
	}
	return math.Max(0, math.Min(1, s))
}
