package evaluators

import (
	"context"
	"unicode/utf8"
)

var charCountRatio = Definition{
	Slug:        "char-count-ratio",
	Category:    CategoryStyle,
	Description: "Ratio of the character counts (Unicode code points, as char-count) of two texts: numerator / denominator; 0 when the denominator is empty.",
	Inputs: []Field{
		textInput("numerator_text", "Numerator text", "The text whose characters are divided by the denominator's (e.g. the completion)."),
		textInput("denominator_text", "Denominator text", "The text whose characters divide the numerator's (e.g. the prompt)."),
	},
	Outputs: []Field{scoreOutput("char_ratio", "Character ratio", "chars(numerator_text) / chars(denominator_text), at least 0; 0 when denominator_text is empty (JSON has no infinity).")},
	Side:    SideBoth,
	Score:   "char_ratio",
	PassDoc: "always passes (a ratio has no verdict)",
	run:     runCharCountRatio,
	pass:    passAlways,
}

// runCharCountRatio divides the code point counts of the two texts,
// counted as char-count counts them. An empty denominator answers 0,
// whatever the numerator: the ratio is undefined there and JSON can carry
// neither NaN nor infinity; an empty numerator answers 0 too.
func runCharCountRatio(_ context.Context, req Request) (Result, error) {
	return Result{"char_ratio": ratio(utf8.RuneCountInString(req.Text("numerator_text")), utf8.RuneCountInString(req.Text("denominator_text")))}, nil
}

// ratio is n / d as a float64, 0 when d is 0.
func ratio(n, d int) float64 {
	if d == 0 {
		return 0
	}
	return float64(n) / float64(d)
}
