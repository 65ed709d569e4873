package evaluators

import (
	"context"
	"github.com/evalcol/evalcol/evaluators/internal/textsim"
)

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

// runFaithfulness checks the completion against the context, in the spirit
// of Ragas faithfulness (the share of the answer's claims that the context
// supports), with lexical evidence instead of an LLM judge:
//
//   - each sentence of the completion with a content word is a claim;
//   - a claim's support is the weighted share of its content tokens
//     (Snowball-stemmed, stop words left out, words weighted by IDF in a
//     general corpus, numbers and capitalised names weighing 1.5) that
//     occur in the context, halved for every number in
//     digits that the context lacks, and halved again when its negation
//     polarity differs from that of the context sentence covering it best,
//     where only negations followed within three words by a word of the
//     claim count ("Rebel Without a Cause" does not negate "director")
//     (textsim.ClaimSupport);
//   - a claim is supported when its support is at least 0.8
//     (textsim.SupportThreshold: "mostly" in the context), and the
//     completion is faithful when at least half of its claims are.
//
// A completion with no claim (empty, or only stop words such as "Yes.")
// is faithful: it asserts nothing the context could contradict. The
// question is not used: restating it is neither support nor contradiction.
func runFaithfulness(_ context.Context, req Request) (Result, error) {
	s := textsim.ClaimSupport(req.Text("completion"), req.Text("context"))
	return Result{"is_faithful": s.SupportedShare() >= 0.5}, nil
}
