package evaluators

import (
	"context"
	"unicode/utf8"
)

var charCount = Definition{
	Slug:        "char-count",
	Category:    CategoryStyle,
	Description: "Counts the characters (Unicode code points) of the text, as Python's len(str).",
	Inputs:      []Field{textInput("text", "Text", "The text to count.")},
	Outputs:     []Field{{Name: "char_count", Type: TypeInteger, Label: "Character count", Description: "Number of Unicode code points."}},
	Side:        SideOutput,
	Score:       "char_count",
	PassDoc:     "always passes (a count has no verdict)",
	run:         runCharCount,
	pass:        passAlways,
}

func runCharCount(_ context.Context, req Request) (Result, error) {
	return Result{"char_count": utf8.RuneCountInString(req.Text("text"))}, nil
}
