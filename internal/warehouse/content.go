package warehouse

import (
	"strings"
	"unicode/utf8"

	"github.com/evalcol/evalcol/internal/genai"
)

// DeriveContent sets the prompts, completions, input and output of sp from
// its span attributes, as internal/genai reads them, and marks sp
// DerivedContent. For a span the exporter converted, this gives the values
// it derived from the original (typed) attributes; stores that keep each
// text once call it at read.
func DeriveContent(sp *Span) {
	c := genai.ExtractStrings(sp.SpanAttributes)
	sp.Prompts, sp.Completions = c.PromptMap(), c.CompletionMap()
	sp.Input, sp.Output = c.Input, c.Output
	sp.DerivedContent = true
}

// ContentKey returns the key of the span attribute whose value is text,
// verbatim, so that a store can keep a reference to it instead of a second
// copy: the smallest such key, and only keys a JSON path or an array
// lookup can name safely (no '"' or '\'). It returns "" for an empty text,
// a text that is not valid UTF-8 (stores keep attributes as valid UTF-8,
// so the original bytes would be lost) or when no attribute holds it (a
// text taken out of JSON messages, or joined from parts).
func ContentKey(attrs map[string]string, text string) string {
	if text == "" || !utf8.ValidString(text) {
		return ""
	}
	key := ""
	for k, v := range attrs {
		if len(v) == len(text) && v == text && (key == "" || k < key) && !strings.ContainsAny(k, "\"\\") {
			key = k
		}
	}
	return key
}
