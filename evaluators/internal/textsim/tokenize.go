// Package textsim holds the lexical text tools shared by the judge
// evaluators (faithfulness, answer correctness and relevancy, semantic
// similarity, uncertainty, conversation quality): tokenising, stop words,
// Snowball stemming, number and negation extraction, sentence splitting,
// token and character n-gram overlap, weighted cosine (optionally crediting
// words related in WordNet), and the claim-support and question-relevance
// scores built on them.
//
// Everything works offline on CPU with no model; the word lists are
// embedded and parsed once.
package textsim

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/kljensen/snowball/english"
)

// Token is one word or number of a text.
type Token struct {
	// Text is the token as written.
	Text string
	// Lower is Text lower-cased, with typographic apostrophes made ASCII.
	Lower string
	// Key is the token's matching key: the Snowball English stem of Lower
	// for a word, the normalised digits for a number ("1,500" -> "1500",
	// "3rd" -> "3") and for a number word ("two" -> "2", "second" -> "2").
	Key string
	// Number is set for a token written with digits.
	Number bool
	// Stop is set for a stop word (see stopwords.txt).
	Stop bool
	// Negation is set for a negation word: not, no, never, n't, none, ...
	Negation bool
	// Capital is set when the token starts with an upper-case letter.
	Capital bool
	// SentenceStart is set for the first token of a sentence.
	SentenceStart bool
	// Start and End are the byte offsets of the token in the text.
	Start, End int
}

// Content reports whether the token carries meaning for overlap: a number
// or a word that is not a stop word.
func (t Token) Content() bool { return t.Number || !t.Stop }

// Entity reports whether the token looks like part of a name: capitalised,
// not at the start of a sentence, and not a stop word.
func (t Token) Entity() bool { return t.Capital && !t.SentenceStart && !t.Stop && !t.Number }

// Tokenize splits s into words and numbers. A word is a run of letters and
// digits with inner apostrophes ("don't", "n't", "O'Neill"); a number is a
// run of digits with inner "," or "." before a digit, and an optional
// letter suffix ("1990s", "3rd") that the key drops. Everything else
// (punctuation, symbols, spaces) separates tokens; ".", "!", "?" and line
// breaks also end a sentence.
func Tokenize(s string) []Token {
	toks := make([]Token, 0, len(s)/5+1)
	sentenceStart := true
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case unicode.IsDigit(r):
			end := max(scanNumber(s, i), i+size) // always advance
			toks = append(toks, numberToken(s[i:end], sentenceStart, i))
			sentenceStart = false
			i = end
		case unicode.IsLetter(r):
			end := max(scanWord(s, i), i+size)
			toks = append(toks, wordToken(s[i:end], sentenceStart, i))
			sentenceStart = false
			i = end
		case r == '<' && strings.HasPrefix(s[i:], numPlaceholder):
			// A masked number, as corpora that hide numbers write them.
			end := i + len(numPlaceholder)
			toks = append(toks, Token{Text: s[i:end], Lower: numPlaceholder, Key: numPlaceholder, Number: true, SentenceStart: sentenceStart, Start: i, End: end})
			sentenceStart = false
			i = end
		default:
			if r == '.' || r == '!' || r == '?' || r == '\n' {
				sentenceStart = true
			}
			i += size
		}
	}
	return toks
}

// numPlaceholder is how some corpora (TrecQA among them) mask a number;
// Tokenize reads it as a number token.
const numPlaceholder = "<num>"

// scanWord returns the end of the word starting at i.
func scanWord(s string, i int) int {
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		if unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r) {
			i += size
			continue
		}
		if isApostrophe(r) && i+size < len(s) {
			next, _ := utf8.DecodeRuneInString(s[i+size:])
			if unicode.IsLetter(next) {
				i += size
				continue
			}
		}
		break
	}
	return i
}

// scanNumber returns the end of the number starting at i.
func scanNumber(s string, i int) int {
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case unicode.IsDigit(r): // any script's digits: "٦", "６"
			i += size
		case (r == ',' || r == '.') && i+1 < len(s) && isDigitAt(s, i+1):
			i++
		default:
			// A letter suffix: "1990s", "3rd", "5km".
			for i < len(s) {
				r, size := utf8.DecodeRuneInString(s[i:])
				if !unicode.IsLetter(r) {
					break
				}
				i += size
			}
			return i
		}
	}
	return i
}

// isDigitAt reports whether a digit (of any script) starts at s[i].
func isDigitAt(s string, i int) bool {
	r, _ := utf8.DecodeRuneInString(s[i:])
	return unicode.IsDigit(r)
}

func isApostrophe(r rune) bool { return r == '\'' || r == '\u2019' || r == '\u2018' }

func numberToken(text string, sentenceStart bool, start int) Token {
	digits := text
	for j := 0; j < len(text); j++ {
		if c := text[j]; c != ',' && c != '.' && (c < '0' || c > '9') {
			digits = text[:j]
			break
		}
	}
	if strings.IndexByte(digits, ',') >= 0 {
		digits = strings.ReplaceAll(digits, ",", "")
	}
	return Token{Text: text, Lower: strings.ToLower(text), Key: digits, Number: true, SentenceStart: sentenceStart, Start: start, End: start + len(text)}
}

func wordToken(text string, sentenceStart bool, start int) Token {
	first, _ := utf8.DecodeRuneInString(text)
	lower := lowerWord(text)
	t := Token{Text: text, Lower: lower, Capital: unicode.IsUpper(first), SentenceStart: sentenceStart, Start: start, End: start + len(text)}
	lx := lexicon()
	_, t.Stop = lx.stop[lower]
	t.Negation = isNegation(lower)
	switch {
	case lx.numberWords[lower] != "":
		t.Key = lx.numberWords[lower]
	case t.Stop:
		t.Key = lower
	default:
		t.Key = english.Stem(lower, true)
	}
	return t
}

// lowerWord lower-cases w and turns typographic apostrophes into "'",
// without allocating when w is already plain lower-case ASCII.
func lowerWord(w string) string {
	plain := true
	for j := 0; j < len(w); j++ {
		if c := w[j]; c >= utf8.RuneSelf || (c >= 'A' && c <= 'Z') {
			plain = false
			break
		}
	}
	if plain {
		return w
	}
	w = strings.ToLower(w)
	if strings.ContainsAny(w, "\u2019\u2018") {
		w = strings.NewReplacer("\u2019", "'", "\u2018", "'").Replace(w)
	}
	return w
}

func isNegation(lower string) bool {
	switch lower {
	case "not", "no", "never", "n't", "none", "nobody", "nothing", "neither", "nor", "nowhere", "cannot", "without":
		return true
	}
	return strings.HasSuffix(lower, "n't")
}

// Negations counts the negation tokens of toks.
func Negations(toks []Token) int {
	n := 0
	for _, t := range toks {
		if t.Negation {
			n++
		}
	}
	return n
}

// Numbers returns the keys of the digit numbers of toks, in order.
func Numbers(toks []Token) []string {
	var out []string
	for _, t := range toks {
		if t.Number {
			out = append(out, t.Key)
		}
	}
	return out
}

// IsStopWord reports whether the lower-case word w is a stop word.
func IsStopWord(w string) bool {
	_, ok := lexicon().stop[w]
	return ok
}
