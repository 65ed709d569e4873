package evaluators

import "context"

var toxicityDetector = Definition{
	Slug:        "toxicity-detector",
	Category:    CategorySecurity,
	Description: "Detects toxic or harmful language: insults, hate, threats, obscenity.",
	Inputs:      []Field{textInput("text", "Text", "The text to check for toxicity.")},
	Config:      []Field{thresholdConfig("toxic")},
	Outputs:     []Field{safetyOutput("is_safe", "Is safe", `"unsafe" when the toxicity probability exceeds the threshold, else "safe".`)},
	Side:        SideOutput,
	Score:       "is_safe",
	PassDoc:     `is_safe == "safe"`,
	run:         runToxicity,
	pass:        passWhenSafe("is_safe"),
}

func runToxicity(ctx context.Context, req Request) (Result, error) {
	return nil, errNotImplemented
}
