package textsim

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// abbreviations end with a "." that does not end a sentence.
var abbreviations = map[string]bool{
	"mr": true, "mrs": true, "ms": true, "dr": true, "prof": true, "st": true, "jr": true, "sr": true,
	"vs": true, "etc": true, "e.g": true, "i.e": true, "inc": true, "ltd": true, "co": true, "no": true,
	"u.s": true, "u.k": true, "mt": true, "ft": true, "gen": true, "col": true, "lt": true, "approx": true,
}

// Sentences splits s into trimmed, non-empty sentences, as substrings of s.
// A sentence ends at a line break, or at ".", "!" or "?" (with any closing
// quotes or brackets) followed by a space or the end of the text, or
// directly followed by an upper-case letter after a lower-case word
// ("century.First"). A "." after a single letter (an initial) or a known
// abbreviation ("Dr.", "e.g.") does not end a sentence.
func Sentences(s string) []string {
	var out []string
	start := 0
	emit := func(end int) {
		if t := strings.TrimSpace(s[start:end]); t != "" {
			out = append(out, t)
		}
		start = end
	}
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch r {
		case '\n':
			emit(i)
		case '.', '!', '?':
			end := i + size
			for end < len(s) && strings.ContainsRune("\"')]}\u201d\u2019", rune(s[end])) {
				end++
			}
			if sentenceEndsAt(s, i, r, end) {
				emit(end)
				i = end
				continue
			}
		}
		i += size
	}
	emit(len(s))
	return out
}

// sentenceEndsAt reports whether the mark r at i, whose closing
// punctuation ends at end, ends a sentence.
func sentenceEndsAt(s string, i int, r rune, end int) bool {
	if end < len(s) {
		next, _ := utf8.DecodeRuneInString(s[end:])
		switch {
		case unicode.IsSpace(next):
		case unicode.IsUpper(next) && end == i+1 && i > 1 && isLowerASCII(s[i-1]) && isLowerASCII(s[i-2]):
		default:
			return false
		}
	}
	if r != '.' {
		return true
	}
	w := lastWord(s[:i])
	if first, size := utf8.DecodeRuneInString(w); size == len(w) && unicode.IsUpper(first) {
		return false // an initial: "J. K. Rowling"
	}
	return !abbreviations[strings.ToLower(w)]
}

func isLowerASCII(c byte) bool { return c >= 'a' && c <= 'z' }

// lastWord returns the trailing run of letters and inner dots of s.
func lastWord(s string) string {
	j := len(s)
	for j > 0 {
		r, size := utf8.DecodeLastRuneInString(s[:j])
		if !unicode.IsLetter(r) && r != '.' {
			break
		}
		j -= size
	}
	return strings.Trim(s[j:], ".")
}
