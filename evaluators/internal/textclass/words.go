package textclass

import "strings"

// HasWord reports whether s holds one of words as a whole word, ASCII
// letters compared in any case. A word is a maximal run of the bytes of
// \w ([0-9A-Za-z_]), the runs that regexp's \b delimits, so detectors use
// it as a cheap necessary condition before running an expression whose
// every match holds one of the words.
func HasWord(s string, words []string) bool {
	for i := 0; i < len(s); {
		if !isRegexpWordByte(s[i]) {
			i++
			continue
		}
		j := i
		for j < len(s) && isRegexpWordByte(s[j]) {
			j++
		}
		for _, w := range words {
			if len(w) == j-i && strings.EqualFold(s[i:j], w) {
				return true
			}
		}
		i = j
	}
	return false
}

// isRegexpWordByte reports whether c is a byte of \w.
func isRegexpWordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_'
}
