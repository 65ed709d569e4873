package evaluators

import "context"

var sexismDetector = Definition{
	Slug:        "sexism-detector",
	Category:    CategorySecurity,
	Description: "Detects sexist language and bias in the text.",
	Inputs:      []Field{textInput("text", "Text", "The text to check for sexism.")},
	Config:      []Field{thresholdConfig("sexist")},
	Outputs:     []Field{safetyOutput("is_safe", "Is safe", `"unsafe" when the sexism probability exceeds the threshold, else "safe".`)},
	Side:        SideOutput,
	Score:       "is_safe",
	PassDoc:     `is_safe == "safe"`,
	run:         runSexism,
	pass:        passWhenSafe("is_safe"),
}

func runSexism(ctx context.Context, req Request) (Result, error) {
	return nil, errNotImplemented
}
