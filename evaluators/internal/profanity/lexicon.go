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
	// words has a bit for the wordKey of every one-word entry and phrase
	// start: a word whose bit is clear is in neither map, so most words
	// of a text cost a bit test instead of two map lookups.
	words [1 << 16 / 64]uint64
}

// wordKey hashes a word's length and its first two and last bytes.
func wordKey(w []byte) uint16 {
	n := len(w)
	if n == 0 {
		return 0
	}
	h := uint32(n)<<24 | uint32(w[0])<<16 | uint32(w[min(1, n-1)])<<8 | uint32(w[n-1])
	return uint16(h * 0x9e3779b1 >> 16)
}

func (l *lexicon) addWord(w string) {
	k := wordKey([]byte(w))
	l.words[k/64] |= 1 << (k % 64)
}

// mayHold reports whether w may be a one-word entry or a phrase start.
func (l *lexicon) mayHold(w []byte) bool {
	k := wordKey(w)
	return l.words[k/64]&(1<<(k%64)) != 0
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
			l.addWord(first)
		} else {
			l.byLen[len(e)] = append(l.byLen[len(e)], e)
			l.addWord(e)
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

// isWordByte reports whether c belongs to a word of folded text (see
// wordsOf): a letter, digit, underscore or byte of a non-ASCII character.
func isWordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_' || c >= 0x80
}

// nextWord returns the bounds of the first word of folded at or after i,
// with start == len(folded) when there is none.
func nextWord(folded []byte, i int) (start, end int) {
	for i < len(folded) && !isWordByte(folded[i]) {
		i++
	}
	start = i
	for i < len(folded) && isWordByte(folded[i]) {
		i++
	}
	return start, i
}

// matches reports whether a word or word sequence of folded text is an
// entry, as given or with runs of equal letters cut to one. It scans the
// words in place; scratch is reused for phrases and collapsed words, so
// the scan allocates only when scratch lacks capacity.
func (l *lexicon) matches(folded []byte, scratch *[]byte) bool {
	for i := 0; ; {
		ws, we := nextWord(folded, i)
		if ws == len(folded) {
			return false
		}
		i = we
		w := folded[ws:we]
		may := l.mayHold(w)
		if may && l.entries[string(w)] {
			return true
		}
		if may && l.phraseStarts[string(w)] {
			phrase := append((*scratch)[:0], w...)
			next := we
			for n := 1; n < maxPhraseWords; n++ {
				s, e := nextWord(folded, next)
				if s == len(folded) {
					break
				}
				next = e
				phrase = append(append(phrase, ' '), folded[s:e]...)
				if l.entries[string(phrase)] {
					*scratch = phrase
					return true
				}
			}
			*scratch = phrase
		}
		if hasDoubleLetter(w) {
			*scratch = appendCollapsedRepeats((*scratch)[:0], w)
			if l.mayHold(*scratch) && l.entries[string(*scratch)] {
				return true
			}
		}
	}
}

// maskChars are the symbols people put in place of letters ("f*ck").
const maskChars = "*@#$%!?"

// maskTrim are the characters stripped from both ends of a token before
// masked matching.
const maskTrim = `"'()[]{}.,;:!?`

// isMask and isTrim are maskChars and maskTrim as byte tables.
var isMask, isTrim = byteSet(maskChars), byteSet(maskTrim)

func byteSet(chars string) (t [256]bool) {
	for i := 0; i < len(chars); i++ {
		t[chars[i]] = true
	}
	return t
}

// matchesMasked reports whether a space-separated token of normalised
// text, stripped of surrounding punctuation, matches a one-word entry of
// the same length when each mask character stands for any letter. The
// token must have at least four bytes, one to half of them masks, and
// its other characters must be letters.
//
// text is normalised text (textclass.Normalize) or ASCII text as given:
// for ASCII text Normalize only lower-cases letters and turns runs of
// white space and control characters into one space, so tokens are
// split at those bytes and compared lower-cased here, without building
// the normalised string.
func (l *lexicon) matchesMasked(text string) bool {
	for i := 0; i < len(text); {
		for i < len(text) && isSeparatorByte(text[i]) {
			i++
		}
		start := i
		for i < len(text) && !isSeparatorByte(text[i]) {
			i++
		}
		tok := text[start:i]
		for len(tok) > 0 && isTrim[tok[0]] {
			tok = tok[1:]
		}
		for len(tok) > 0 && isTrim[tok[len(tok)-1]] {
			tok = tok[:len(tok)-1]
		}
		masks := 0
		ok := len(tok) >= 4
		for k := 0; ok && k < len(tok); k++ {
			switch c := lowerASCII(tok[k]); {
			case isMask[c]:
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

// isSeparatorByte reports whether c separates tokens of normalised text
// (a space) or, in ASCII text, becomes a space when normalised (white
// space and control characters).
func isSeparatorByte(c byte) bool { return c <= ' ' || c == 0x7f }

// lowerASCII lower-cases an ASCII letter and returns any other byte as is.
func lowerASCII(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

func maskedEqual(tok, entry string) bool {
	for i := 0; i < len(tok); i++ {
		if isMask[tok[i]] {
			if entry[i] < 'a' || entry[i] > 'z' {
				return false
			}
			continue
		}
		if lowerASCII(tok[i]) != entry[i] {
			return false
		}
	}
	return true
}

// matchesSpaced reports whether a run of three or more single letters
// separated by spaces in normalised text spells an entry, also when the
// run starts or ends with the words "a" or "i" ("i f u c k" → "fuck"),
// which textclass.Fold joins into the word. run is reused for the
// letters, so the scan allocates only when run lacks capacity.
func (l *lexicon) matchesSpaced(normalised string, run *[]byte) bool {
	letters := (*run)[:0]
	defer func() { *run = letters[:0] }()
	for i := 0; i < len(normalised); {
		for i < len(normalised) && isSeparatorByte(normalised[i]) {
			i++
		}
		start := i
		for i < len(normalised) && !isSeparatorByte(normalised[i]) {
			i++
		}
		if start == i {
			break
		}
		f := normalised[start:i]
		t := strings.TrimLeft(strings.TrimRight(f, `.,;:!?"')`), `"'(`)
		if len(t) == 1 && t[0] >= 'a' && t[0] <= 'z' {
			letters = append(letters, t[0])
			if len(t) != len(f) { // punctuation ends the run
				if l.spells(letters) {
					return true
				}
				letters = letters[:0]
			}
			continue
		}
		if l.spells(letters) {
			return true
		}
		letters = letters[:0]
	}
	return l.spells(letters)
}

// spells reports whether a run of spaced single letters spells an entry,
// as a whole or without a leading or trailing "a" or "i" (see
// matchesSpaced). Runs shorter than three letters spell nothing.
func (l *lexicon) spells(run []byte) bool {
	if len(run) < 3 {
		return false
	}
	if l.entries[string(run)] {
		return true
	}
	if (run[0] == 'a' || run[0] == 'i') && l.entries[string(run[1:])] {
		return true
	}
	last := run[len(run)-1]
	return (last == 'a' || last == 'i') && l.entries[string(run[:len(run)-1])]
}

// hasDoubleLetter reports whether s has two equal ASCII letters in a row.
func hasDoubleLetter(s []byte) bool {
	for i := 1; i < len(s); i++ {
		if s[i] == s[i-1] && s[i] >= 'a' && s[i] <= 'z' {
			return true
		}
	}
	return false
}
