package toxicity

import (
	_ "embed"
	"strings"

	"github.com/evalcol/evalcol/evaluators/internal/textclass"
)

// realVariantsText lists the real English words that are one deletion,
// transposition or insertion away from a word of RepairVocabulary, and
// the word pairs that join into one: they are never repaired. Written by
// `go run ./evaluators/internal/train lexicons` from the Debian wamerican
// word list (SCOWL, see data/README.md).
//
//go:embed data/real-variants.txt
var realVariantsText string

// RepairVocabulary is Vocabulary plus the given one-word slurs.
func RepairVocabulary(slurs []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, w := range append(Vocabulary(), slurs...) {
		if isPlainWord(w) && !seen[w] {
			seen[w] = true
			out = append(out, w)
		}
	}
	return out
}

// NewRepairer returns the repairer of obfuscated spellings of
// RepairVocabulary(slurs).
func NewRepairer(slurs []string) *textclass.Repairer {
	return textclass.NewRepairer(RepairVocabulary(slurs), strings.Split(strings.TrimSpace(realVariantsText), "\n"))
}
