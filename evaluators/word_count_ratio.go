package evaluators

import "context"

var wordCountRatio = Definition{
	Slug:        "word-count-ratio",
	Category:    CategoryStyle,
	Description: "Ratio of the word counts (as word-count: Python str.split()) of two texts: numerator / denominator; 0 when the denominator has no word.",
	Inputs: []Field{
		textInput("numerator_text", "Numerator text", "The text whose words are divided by the denominator's (e.g. the completion)."),
		textInput("denominator_text", "Denominator text", "The text whose words divide the numerator's (e.g. the prompt)."),
	},
	Outputs: []Field{scoreOutput("word_ratio", "Word ratio", "words(numerator_text) / words(denominator_text), at least 0; 0 when denominator_text has no word (JSON has no infinity).")},
	Side:    SideBoth,
	Score:   "word_ratio",
	PassDoc: "always passes (a ratio has no verdict)",
	run:     runWordCountRatio,
	pass:    passAlways,
}

// runWordCountRatio divides the word counts of the two texts, counted as
// word-count counts them (countWords). A denominator without a word
// (empty or only whitespace) answers 0: the ratio is undefined there and
// JSON can carry neither NaN nor infinity.
func runWordCountRatio(_ context.Context, req Request) (Result, error) {
	return Result{"word_ratio": ratio(countWords(req.Text("numerator_text")), countWords(req.Text("denominator_text")))}, nil
}
