package evaluators

import (
	"context"
	"unicode/utf8"
)

var wordCount = Definition{
	Slug:        "word-count",
	Category:    CategoryStyle,
	Description: "Counts the words of the text: runs of non-whitespace, split as Python's str.split() does.",
	Inputs:      []Field{textInput("text", "Text", "The text to count.")},
	Outputs:     []Field{{Name: "word_count", Type: TypeInteger, Label: "Word count", Description: "Number of words."}},
	Side:        SideOutput,
	Score:       "word_count",
	PassDoc:     "always passes (a count has no verdict)",
	run:         runWordCount,
	pass:        passAlways,
}

func runWordCount(_ context.Context, req Request) (Result, error) {
	return Result{"word_count": countWords(req.Text("text"))}, nil
}

// countWords counts the fields of s separated by Python's str.isspace()
// characters: Go's unicode.IsSpace set plus U+001C..U+001F (the information
// separators). Invalid UTF-8 bytes count as non-space.
func countWords(s string) int {
	n := 0
	inWord := false
	for i := 0; i < len(s); {
		r, size := rune(s[i]), 1
		if r >= utf8.RuneSelf {
			r, size = utf8.DecodeRuneInString(s[i:])
		}
		i += size
		if isPythonSpace(r) {
			inWord = false
			continue
		}
		if !inWord {
			n++
			inWord = true
		}
	}
	return n
}

// isPythonSpace reports whether Python's str.isspace() is true for r (the
// 29 code points listed, checked against CPython 3.11).
func isPythonSpace(r rune) bool {
	switch r {
	case '\t', '\n', '\v', '\f', '\r', ' ', 0x1c, 0x1d, 0x1e, 0x1f, 0x85, 0xa0,
		0x1680, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000:
		return true
	}
	return r >= 0x2000 && r <= 0x200a
}
