package textclass

import (
	"unicode"
	"unicode/utf8"
	"unsafe"

	"golang.org/x/text/unicode/norm"
)

// NormOptions selects the optional folding steps of normalisation.
type NormOptions struct {
	// Fold maps leetspeak digits and symbols inside words to letters
	// (0→o, 1→i, 3→e, 4→a, 5→s, 7→t, @→a, $→s, !→i), joins spaced-out
	// letters ("f u c k", "s.h.i.t" → "fuck", "shit") and shortens runs of
	// three or more equal letters to two ("fuuuck" → "fuuck").
	Fold bool
	// StripSocial removes social-media noise: HTML entities ("&amp;",
	// "&#8220;"), URLs, @mentions, the retweet marker "RT" and the '#' of
	// hashtags.
	StripSocial bool
}

// Normalize returns the shared normal form of s: compatibility
// decomposition (NFKD, which folds full-width letters, ligatures and the
// like as NFKC does), combining marks dropped (so "fück" → "fuck"), lower
// case, and every run of white space (and control characters) turned into
// one space, with no leading or trailing space.
func Normalize(s string) string {
	return string(appendNormalized(nil, s, NormOptions{}))
}

// Fold is Normalize plus leetspeak, spacing and repeated-letter folding
// (NormOptions.Fold).
func Fold(s string) string {
	return string(appendNormalized(nil, s, NormOptions{Fold: true}))
}

// NormalizeWith is Normalize with the optional folding steps of opts.
func NormalizeWith(s string, opts NormOptions) string {
	return string(appendNormalized(nil, s, opts))
}

// appendNormalized appends the normal form of s to dst. It allocates only
// when dst lacks capacity.
func appendNormalized(dst []byte, s string, opts NormOptions) []byte {
	start := len(dst)
	if opts.StripSocial {
		dst = appendStripSocial(dst, s)
		// Normalise the stripped text in place: copy it out of the way
		// first would allocate, so normalise from a second region.
		mid := len(dst)
		dst = appendBasic(dst, bytesAsString(dst[start:mid]))
		n := copy(dst[start:], dst[mid:])
		dst = dst[:start+n]
	} else {
		dst = appendBasic(dst, s)
	}
	if opts.Fold {
		dst = dst[:start+foldInPlace(dst[start:])]
	}
	return dst
}

// appendBasic appends NFKD, mark-free, lower-case, space-collapsed s.
func appendBasic(dst []byte, s string) []byte {
	base := len(dst)
	space := true // suppress leading space
	emit := func(r rune) {
		if unicode.IsSpace(r) || unicode.IsControl(r) {
			space = true
			return
		}
		if space && len(dst) > base && dst[len(dst)-1] != ' ' {
			dst = append(dst, ' ')
		}
		space = false
		dst = utf8.AppendRune(dst, unicode.ToLower(r))
	}
	if isASCII(s) {
		for i := 0; i < len(s); i++ {
			c := s[i]
			switch {
			case c == ' ' || (c >= '\t' && c <= '\r') || c < 0x20 || c == 0x7f:
				space = true
			default:
				if space && len(dst) > base && dst[len(dst)-1] != ' ' {
					dst = append(dst, ' ')
				}
				space = false
				if c >= 'A' && c <= 'Z' {
					c += 'a' - 'A'
				}
				dst = append(dst, c)
			}
		}
		return dst
	}
	var it norm.Iter
	it.InitString(norm.NFKD, s)
	for !it.Done() {
		seg := it.Next()
		for len(seg) > 0 {
			r, size := utf8.DecodeRune(seg)
			seg = seg[size:]
			if unicode.Is(unicode.Mn, r) {
				continue
			}
			emit(r)
		}
	}
	return dst
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// appendStripSocial appends s without HTML entities, URLs, @mentions, "RT"
// markers and hashtag signs (each replaced by a space).
func appendStripSocial(dst []byte, s string) []byte {
	for i := 0; i < len(s); {
		c := s[i]
		atWordStart := i == 0 || isSpaceByte(s[i-1])
		switch {
		case c == '&':
			if n := entityLen(s[i:]); n > 0 {
				dst = append(dst, ' ')
				i += n
				continue
			}
		case atWordStart && c == '@' && i+1 < len(s) && isWordByte(s[i+1]):
			i = skipToSpace(s, i)
			dst = append(dst, ' ')
			continue
		case atWordStart && (hasPrefixFold(s[i:], "http://") || hasPrefixFold(s[i:], "https://") || hasPrefixFold(s[i:], "www.")):
			i = skipToSpace(s, i)
			dst = append(dst, ' ')
			continue
		case atWordStart && c == 'R' && i+1 < len(s) && s[i+1] == 'T' && (i+2 == len(s) || !isWordByte(s[i+2])):
			dst = append(dst, ' ')
			i += 2
			continue
		case atWordStart && c == '#':
			dst = append(dst, ' ')
			i++
			continue
		}
		dst = append(dst, c)
		i++
	}
	return dst
}

// entityLen returns the length of the HTML entity at the start of s
// ("&amp;", "&#8220;", "&#x27;"), or 0.
func entityLen(s string) int {
	for i := 1; i < len(s) && i <= 10; i++ {
		c := s[i]
		switch {
		case c == ';':
			if i > 1 {
				return i + 1
			}
			return 0
		case c == '#' && i == 1, c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		default:
			return 0
		}
	}
	return 0
}

func skipToSpace(s string, i int) int {
	for i < len(s) && !isSpaceByte(s[i]) {
		i++
	}
	return i
}

func hasPrefixFold(s, prefix string) bool {
	if len(s) < len(prefix) {
		return false
	}
	for i := 0; i < len(prefix); i++ {
		c := s[i]
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != prefix[i] {
			return false
		}
	}
	return true
}

func isSpaceByte(c byte) bool { return c == ' ' || (c >= '\t' && c <= '\r') }

// isWordByte reports whether c belongs to a word: an ASCII letter, digit or
// underscore, or any byte of a non-ASCII character.
func isWordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c >= utf8.RuneSelf
}

// leet maps a leetspeak character to the letter it stands for, or 0.
func leet(c byte) byte {
	switch c {
	case '0':
		return 'o'
	case '1', '!', '|':
		return 'i'
	case '3':
		return 'e'
	case '4', '@':
		return 'a'
	case '5', '$':
		return 's'
	case '7', '+':
		return 't'
	}
	return 0
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= utf8.RuneSelf }

// foldInPlace applies leetspeak, spacing and repeat folding to normalised
// text b and returns the new length. The result is never longer than b.
func foldInPlace(b []byte) int {
	// 1. Leetspeak: a leet digit next to a letter, or a leet symbol with
	// letters on both sides within its word ("b!tch", "a$$hole"), becomes
	// the letter it stands for. Numbers and trailing "!" stay as they are.
	for i := range b {
		l := leet(b[i])
		if l == 0 {
			continue
		}
		left, right := letterBefore(b, i), letterAfter(b, i)
		if (b[i] >= '0' && b[i] <= '9' && (left || right)) || (left && right) {
			b[i] = l
		}
	}
	// 2. Spacing: three or more single letters separated by one space or
	// one of . - _ * are joined ("f u c k", "s.h.i.t").
	w := 0
	for r := 0; r < len(b); {
		if r == 0 || !isLetterOrDigit(b[r-1]) {
			if n := spacedRun(b[r:]); n > 0 {
				for k := 0; k < n; k += 2 {
					b[w] = b[r+k]
					w++
				}
				r += n
				continue
			}
		}
		b[w] = b[r]
		w++
		r++
	}
	b = b[:w]
	// 3. Repeats: runs of three or more equal letters become two.
	w = 0
	for r := range b {
		if w >= 2 && b[r] == b[w-1] && b[r] == b[w-2] && isLetter(b[r]) && b[r] < utf8.RuneSelf {
			continue
		}
		b[w] = b[r]
		w++
	}
	return w
}

// spacedRun returns the byte length of a run of at least three single
// ASCII letters separated by one and the same separator (space . - _ *)
// at the start of b (the run must start and end at word boundaries), or 0.
func spacedRun(b []byte) int {
	if len(b) < 2 {
		return 0
	}
	sep := b[1]
	if sep != ' ' && sep != '.' && sep != '-' && sep != '_' && sep != '*' {
		return 0
	}
	n := 0
	i := 0
	for i < len(b) && b[i] >= 'a' && b[i] <= 'z' {
		n++
		if i+1 == len(b) || b[i+1] != sep || i+2 >= len(b) || !(b[i+2] >= 'a' && b[i+2] <= 'z') || (i+3 < len(b) && isLetterOrDigit(b[i+3])) {
			i++
			break
		}
		i += 2
	}
	if n < 3 {
		return 0
	}
	return i
}

func isLetterOrDigit(c byte) bool { return isLetter(c) || c >= '0' && c <= '9' }

// letterBefore reports whether a letter precedes b[i] in its word, past
// other leet characters.
func letterBefore(b []byte, i int) bool {
	for j := i - 1; j >= 0; j-- {
		if isLetter(b[j]) {
			return true
		}
		if leet(b[j]) == 0 {
			return false
		}
	}
	return false
}

// letterAfter reports whether a letter follows b[i] in its word, past other
// leet characters.
func letterAfter(b []byte, i int) bool {
	for j := i + 1; j < len(b); j++ {
		if isLetter(b[j]) {
			return true
		}
		if leet(b[j]) == 0 {
			return false
		}
	}
	return false
}

// bytesAsString views b as a string without copying. The caller must not
// change b[:len(b)] while the string is in use (appending past it is fine).
func bytesAsString(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}

// AppendFold appends Fold(s) to dst and returns the extended slice. It
// allocates only when dst lacks capacity.
func AppendFold(dst []byte, s string) []byte {
	return appendNormalized(dst, s, NormOptions{Fold: true})
}

// AppendNormalized appends Normalize(s) to dst and returns the extended
// slice. It allocates only when dst lacks capacity.
func AppendNormalized(dst []byte, s string) []byte {
	return appendNormalized(dst, s, NormOptions{})
}
