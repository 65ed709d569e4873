package profanity

import (
	"strings"

	"github.com/evalcol/evalcol/evaluators/internal/textclass"
)

// maxPhraseWords bounds the length in words of a lexicon phrase.
const maxPhraseWords = 6

// lexicon is a set of profane words and phrases in folded form
// (textclass.Fold), words separated by one space.
type lexicon struct {
	entries map[string]bool
	// phraseStarts holds the first word of every multi-word entry.
	phraseStarts map[string]bool
	// byLen lists the one-word entries by byte length, for masked
	// matching ("f*ck", "f@ck").
	byLen map[int][]string
}

// newLexicon builds the lexicon from text with one entry per line.
func newLexicon(text string) *lexicon {
	l := &lexicon{entries: map[string]bool{}, phraseStarts: map[string]bool{}, byLen: map[int][]string{}}
	for _, line := range strings.Split(text, "\n") {
		e := strings.Join(wordsOf(textclass.Fold(line)), " ")
		if e == "" || l.entries[e] {
			continue
		}
		l.entries[e] = true
		if first, _, multi := strings.Cut(e, " "); multi {
			l.phraseStarts[first] = true
		} else {
			l.byLen[len(e)] = append(l.byLen[len(e)], e)
		}
	}
	return l
}

// wordsOf splits folded text into words: runs of letters, digits,
// underscores and non-ASCII characters.
func wordsOf(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '_' || r >= 0x80)
	})
}

// matches reports whether a word or word sequence of folded text is an
// entry, as given or with runs of equal letters cut to one.
func (l *lexicon) matches(folded string) bool {
	words := wordsOf(folded)
	for i, w := range words {
		if l.entries[w] {
			return true
		}
		if l.phraseStarts[w] {
			phrase := w
			for n := 1; n < maxPhraseWords && i+n < len(words); n++ {
				phrase += " " + words[i+n]
				if l.entries[phrase] {
					return true
				}
			}
		}
		if hasDoubleLetter(w) && l.entries[collapseRepeats(w)] {
			return true
		}
	}
	return false
}

// maskChars are the symbols people put in place of letters ("f*ck").
const maskChars = "*@#$%!?"

// matchesMasked reports whether a space-separated token of normalised
// text, stripped of surrounding punctuation, matches a one-word entry of
// the same length when each mask character stands for any letter. The
// token must have at least four bytes, one to half of them masks, and
// its other characters must be letters.
func (l *lexicon) matchesMasked(normalised string) bool {
	for _, tok := range strings.Fields(normalised) {
		tok = strings.Trim(tok, `"'()[]{}.,;:!?`)
		masks := 0
		ok := len(tok) >= 4
		for i := 0; ok && i < len(tok); i++ {
			switch c := tok[i]; {
			case strings.IndexByte(maskChars, c) >= 0:
				masks++
			case c < 'a' || c > 'z':
				ok = false
			}
		}
		if !ok || masks == 0 || 2*masks > len(tok) {
			continue
		}
		for _, e := range l.byLen[len(tok)] {
			if maskedEqual(tok, e) {
				return true
			}
		}
	}
	return false
}

func maskedEqual(tok, entry string) bool {
	for i := 0; i < len(tok); i++ {
		if strings.IndexByte(maskChars, tok[i]) >= 0 {
			if entry[i] < 'a' || entry[i] > 'z' {
				return false
			}
			continue
		}
		if tok[i] != entry[i] {
			return false
		}
	}
	return true
}

// matchesSpaced reports whether a run of three or more single letters
// separated by spaces in normalised text spells an entry, also when the
// run starts or ends with the words "a" or "i" ("i f u c k" → "fuck"),
// which textclass.Fold joins into the word.
func (l *lexicon) matchesSpaced(normalised string) bool {
	fields := strings.Fields(normalised)
	var run []byte
	check := func() bool {
		defer func() { run = run[:0] }()
		if len(run) < 3 {
			return false
		}
		s := string(run)
		cands := []string{s}
		if run[0] == 'a' || run[0] == 'i' {
			cands = append(cands, s[1:])
		}
		if last := run[len(run)-1]; last == 'a' || last == 'i' {
			cands = append(cands, s[:len(s)-1])
		}
		for _, c := range cands {
			if l.entries[c] {
				return true
			}
		}
		return false
	}
	for _, f := range fields {
		t := strings.TrimRight(f, `.,;:!?"')`)
		t = strings.TrimLeft(t, `"'(`)
		if len(t) == 1 && t[0] >= 'a' && t[0] <= 'z' {
			run = append(run, t[0])
			if t != f && check() { // punctuation ends the run
				return true
			}
			continue
		}
		if check() {
			return true
		}
	}
	return check()
}

// hasDoubleLetter reports whether s has two equal ASCII letters in a row.
func hasDoubleLetter(s string) bool {
	for i := 1; i < len(s); i++ {
		if s[i] == s[i-1] && s[i] >= 'a' && s[i] <= 'z' {
			return true
		}
	}
	return false
}
