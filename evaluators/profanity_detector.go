package evaluators

import (
	"context"
	"fmt"

	"github.com/evalcol/evalcol/evaluators/internal/profanity"
)

var profanityDetector = Definition{
	Slug:        "profanity-detector",
	Category:    CategorySecurity,
	Description: "Detects profanity, including leetspeak, spaced-out and accented spellings.",
	Inputs:      []Field{textInput("text", "Text", "The text to check for profanity.")},
	Outputs:     []Field{boolOutput("has_profanity", "Has profanity", "Whether the text contains profanity.")},
	Side:        SideOutput,
	Score:       "has_profanity",
	PassDoc:     "has_profanity == false",
	run:         runProfanity,
	explain:     explainProfanity,
	pass:        passWhenFalse("has_profanity"),
	guard: func(r Result) Result {
		b, _ := r["has_profanity"].(bool)
		return Result{"has_profanity": b, "is_safe": !b}
	},
}

// runProfanity flags the text when the profanity score exceeds 0.5
// (profanity-check's own rule): a whole-token lexicon match, or the
// profanity-check probability of the text or of its normalised variants.
func runProfanity(_ context.Context, req Request) (Result, error) {
	d, err := profanity.Default()
	if err != nil {
		return nil, &Error{Kind: KindInternal, Msg: "profanity model unavailable", Err: fmt.Errorf("profanity-detector: %w", err)}
	}
	return Result{"has_profanity": d.HasProfanity(req.Text("text"))}, nil
}
