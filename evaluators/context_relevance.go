package evaluators

import (
	"context"
	"math"

	"github.com/evalcol/evalcol/evaluators/internal/textsim"
)

var contextRelevance = Definition{
	Slug:        "context-relevance",
	Category:    CategoryQuality,
	Description: "Rates whether the retrieved context holds the information needed to answer the query.",
	Inputs: []Field{
		textInput("query", "Query", "The query or question."),
		textInput("context", "Context", "The retrieved context to rate."),
		{Name: "completion", Type: TypeString, Label: "Completion", Description: "The answer given from the context; accepted (Traceloop's SDK sends it) but not needed to rate the context."},
	},
	Config:  []Field{{Name: "model", Type: TypeString, Label: "Model", Description: "Accepted for compatibility with Traceloop's LLM judge and ignored: evalcol rates offline, with no LLM."}},
	Outputs: []Field{scoreOutput("relevance_score", "Relevance score", "0..1: the probability that the context holds what the query asks for.")},
	Side:    SideBoth,
	Score:   "relevance_score",
	PassDoc: "relevance_score >= 0.5",
	run:     runContextRelevance,
	pass:    passWhenAtLeastHalf("relevance_score"),
}

// runContextRelevance is answer-relevancy's model applied to the context:
// the score is the highest textsim.AnswerRelevance(query, s) over the
// context's sentences s (the whole context when it is one sentence; a
// logistic blend of the
// query's words found in the text, exactly or as GloVe neighbours, the
// kind of answer asked for — a number for "how many", a date for "when",
// a name for "who" — and sentence-vector cosine, fit on half of TrecQA
// dev's questions). A context with one sentence that answers the query
// is relevant however much else it holds. The completion and
// config.model are not used.
func runContextRelevance(_ context.Context, req Request) (Result, error) {
	q, ctx := req.Text("query"), req.Text("context")
	sents := textsim.Sentences(ctx)
	if len(sents) <= 1 {
		return Result{"relevance_score": textsim.AnswerRelevance(q, ctx)}, nil
	}
	best := 0.0
	for _, s := range sents {
		best = math.Max(best, textsim.AnswerRelevance(q, s))
	}
	return Result{"relevance_score": best}, nil
}
