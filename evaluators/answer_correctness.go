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
	// contradictionFactor scales the score of a completion that
	// contradicts the ground truth (textsim.Contradiction).
	contradictionFactor = 0.3
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
//     found in the completion;
//   - semantic similarity: the lexical part of semantic-similarity
//     (textsim.LexicalSimilarity: stemmed IDF cosine with WordNet credit,
//     character trigrams, word order; word vectors left out, as they rate
//     near misses such as "Sydney" for "Canberra" as close);
//   - the score is multiplied by 0.3 when the completion contradicts the
//     ground truth (textsim.Contradiction): a number of the ground truth
//     missing and another number given ("1898" for "1889"), a name of the
//     ground truth missing and another capitalised name given ("Buzz
//     Aldrin" for "Neil Armstrong"), or opposite negation polarity. 0.3
//     was chosen among 0.2, 0.3 and 0.5 on the tuning templates of the
//     functional suite (evaluators/internal/quality/testdata).
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
	c, g, q := textsim.Tokenize(completion), textsim.Tokenize(truth), textsim.Tokenize(question)
	factual := textsim.AnswerF1(c, g, textsim.NewKeySet(q))
	semantic := textsim.LexicalSimilarity(completion, truth, c, g)
	s := correctnessFactualWeight*factual + correctnessSemanticWeight*semantic
	if textsim.Contradiction(c, g, q) {
		s *= contradictionFactor
	}
	return s
}
