package spanconv

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"

	"github.com/evalcol/evalcol/internal/warehouse"
)

// Redaction modes of the prompt and completion text of spans (Options.Redact).
const (
	// RedactNone stores the text as it came.
	RedactNone = ""
	// RedactDrop removes it: empty prompts, completions, input and output,
	// and no content attributes.
	RedactDrop = "drop"
	// RedactHash replaces every text by "sha256:" and the hex SHA-256 of
	// it, so equal texts can still be matched but not read.
	RedactHash = "hash"
)

// CheckRedact reports whether mode is a redaction mode.
func CheckRedact(mode string) error {
	switch mode {
	case RedactNone, RedactDrop, RedactHash:
		return nil
	}
	return fmt.Errorf("%q is not one of drop, hash (or empty: keep the text)", mode)
}

// redact applies mode to the LLM content of s: its prompts, completions,
// input and output, and the span attributes that carry prompt or
// completion text (contentKeys, the keys internal/genai reads it from).
// Hashing keeps keys and empty values as they are.
func redact(s *warehouse.Span, mode string) {
	switch mode {
	case RedactDrop:
		s.Prompts, s.Completions, s.Input, s.Output = map[string]string{}, map[string]string{}, "", ""
		for k := range s.SpanAttributes {
			if isContentKey(k) {
				delete(s.SpanAttributes, k)
			}
		}
	case RedactHash:
		for _, m := range []map[string]string{s.Prompts, s.Completions} {
			for k, v := range m {
				m[k] = hashText(v)
			}
		}
		for k, v := range s.SpanAttributes {
			if isContentKey(k) {
				s.SpanAttributes[k] = hashText(v)
			}
		}
		s.Input, s.Output = hashText(s.Input), hashText(s.Output)
	}
}

// hashText is "sha256:" and the hex SHA-256 of v ("" stays "").
func hashText(v string) string {
	if v == "" {
		return ""
	}
	sum := sha256.Sum256([]byte(v))
	return "sha256:" + hex.EncodeToString(sum[:])
}
