package evaluators

import "context"

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
	pass:        passWhenFalse("has_profanity"),
}

func runProfanity(ctx context.Context, req Request) (Result, error) {
	return nil, errNotImplemented
}
