package pii

import (
	"sync"
	"unicode"
	"unicode/utf8"
)

// token is a word (letters and marks) or a number (ASCII digits) of a text,
// the unit of the entity rules of entities.go.
type token struct {
	start, end int
	key        string // lower-cased, without diacritics (digits as written)
	num        bool   // all ASCII digits
	title      bool   // an upper-case letter, then lower-case letters
	upper      bool   // two or more letters, all upper-case
	inner      bool   // an upper-case letter after a lower-case one ("iPhone")
	lower      bool   // all letters lower-case
	sentStart  bool   // first token of the text, or after . ! ? : a line break or a quote
}

// isKeyRune reports whether r belongs to a token.
func isKeyRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r) }

// tokenBuf is reused across calls to keep tokenising free of allocations
// but one string per call.
type tokenBuf struct {
	toks    []token
	arena   []byte
	spans   [][2]int
	flags   []uint32
	covered []bool
}

var tokenPool = sync.Pool{New: func() any { return &tokenBuf{} }}

// tokenize splits text into words and numbers (a digit run and a letter
// run glued together are two tokens: "1990s" is "1990" + "s").
func tokenize(text string, tb *tokenBuf) []token {
	toks := tb.toks[:0]
	arena := tb.arena[:0]
	spans := tb.spans[:0]
	for i := 0; i < len(text); {
		c := text[i]
		if c < utf8.RuneSelf {
			switch {
			case c >= '0' && c <= '9':
				j := i + 1
				for j < len(text) && text[j] >= '0' && text[j] <= '9' {
					j++
				}
				spans = append(spans, [2]int{-1, -1})
				toks = append(toks, token{start: i, end: j, key: text[i:j], num: true, sentStart: sentenceStart(text, i)})
				i = j
				continue
			case !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'):
				i++
				continue
			}
		} else if r, size := utf8.DecodeRuneInString(text[i:]); !unicode.IsLetter(r) {
			i += size
			continue
		}
		// A word: letters and marks. Lower-case ASCII words (most words)
		// are their own key; others are lower-cased into the arena.
		j := i
		simple := true
		for j < len(text) {
			c := text[j]
			if c >= 'a' && c <= 'z' {
				j++
				continue
			}
			if c >= 'A' && c <= 'Z' || c >= utf8.RuneSelf {
				simple = false
			}
			break
		}
		if simple {
			toks = append(toks, token{start: i, end: j, key: text[i:j], lower: true, sentStart: sentenceStart(text, i)})
			spans = append(spans, [2]int{-1, -1})
			i = j
			continue
		}
		t := token{start: i, sentStart: sentenceStart(text, i)}
		a := len(arena)
		ascii := true
		nUpper, nLower := 0, 0
		prevLower := false
		j = i
		for j < len(text) {
			c := text[j]
			if c < utf8.RuneSelf {
				switch {
				case c >= 'a' && c <= 'z':
					nLower++
					prevLower = true
					arena = append(arena, c)
				case c >= 'A' && c <= 'Z':
					if prevLower {
						t.inner = true
					}
					nUpper++
					prevLower = false
					arena = append(arena, c+'a'-'A')
				default:
					goto done
				}
				j++
				continue
			}
			r, size := utf8.DecodeRuneInString(text[j:])
			if !unicode.IsLetter(r) && !unicode.IsMark(r) {
				break
			}
			ascii = false
			switch {
			case unicode.IsUpper(r):
				if prevLower {
					t.inner = true
				}
				nUpper++
				prevLower = false
			case unicode.IsLower(r):
				nLower++
				prevLower = true
			}
			j += size
		}
	done:
		t.end = j
		if !ascii {
			arena = append(arena[:a], foldName(text[i:j])...)
		}
		spans = append(spans, [2]int{a, len(arena)})
		first, _ := utf8.DecodeRuneInString(text[i:])
		t.upper = nLower == 0 && nUpper >= 2
		t.lower = nUpper == 0
		t.title = unicode.IsUpper(first) && nUpper == 1 && nLower > 0
		toks = append(toks, t)
		i = j
	}
	keys := string(arena)
	for k := range toks {
		if spans[k][0] >= 0 {
			toks[k].key = keys[spans[k][0]:spans[k][1]]
		}
	}
	tb.toks, tb.arena, tb.spans = toks, arena, spans
	return toks
}

// sentenceStart reports whether offset i starts a sentence: only spaces
// lie between it and the start of the text, a line break, or one of
// . ! ? : " “ ( [ (a capital there says nothing about a name).
func sentenceStart(text string, i int) bool {
	for i > 0 {
		c := text[i-1]
		switch c {
		case ' ', '\t':
			i--
			continue
		case '\n', '\r', '.', '!', '?', ':', '"', '(', '[', '*', '-', '>':
			return true
		}
		if c >= utf8.RuneSelf {
			r, size := utf8.DecodeLastRuneInString(text[:i])
			if r == '“' || r == '‘' || r == '«' || r == '¿' || r == '¡' || r == '•' {
				return true
			}
			_ = size
		}
		return false
	}
	return true
}
