package evaluators

import (
	"context"
	"github.com/evalcol/evalcol/evaluators/internal/textsim"
)

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

// Weights of the correctness blend, those of Ragas answer correctness:
// factual overlap dominates, semantic similarity refines.
const (
	correctnessFactualWeight  = 0.75
	correctnessSemanticWeight = 0.25
)

// runAnswerCorrectness scores the completion against the ground truth as
// Ragas answer correctness does (0.75 × a factual F1 + 0.25 × semantic
// similarity), with tokens standing in for LLM-extracted claims:
//
//   - factual F1: precision is the weighted share of the completion's
//     content tokens (stemmed, stop words out, numbers kept exact, words
//     weighted by IDF, numbers and names weighing 1.5) found in the ground
//     truth, leaving out the
//     words the completion only repeats from the question ("The head office
//     is in Delhi" for "... head office in what city?" is all answer);
//     recall is the weighted share of the ground truth's content tokens
//     found in the completion; the F1 is halved when one side is negated
//     and the other is not;
//   - semantic similarity: textsim.Similarity (see semantic-similarity).
//
// A completion equal to the ground truth up to case, space and
// punctuation scores 1; an empty completion scores 0 unless the ground
// truth is empty too.
func runAnswerCorrectness(_ context.Context, req Request) (Result, error) {
	return Result{"correctness_score": correctness(req.Text("question"), req.Text("completion"), req.Text("ground_truth"))}, nil
}

func correctness(question, completion, truth string) float64 {
	if textsim.NormalizedEqual(completion, truth) {
		return 1
	}
	c, g := textsim.Tokenize(completion), textsim.Tokenize(truth)
	factual := textsim.AnswerF1(c, g, textsim.NewKeySet(textsim.Tokenize(question)))
	if textsim.Negations(c)%2 != textsim.Negations(g)%2 {
		factual /= 2
	}
	semantic := textsim.TokenSimilarity(completion, truth, c, g)
	return correctnessFactualWeight*factual + correctnessSemanticWeight*semantic
}
