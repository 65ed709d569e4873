package injection

import (
	"encoding/base64"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Hidden text: zero-width characters (U+200B–U+200F, U+2060–U+2064,
// U+FEFF, soft hyphen U+00AD) that split trigger words so plain matching
// misses them, and Unicode tag characters (U+E0000–U+E007F), which render
// as nothing but spell ASCII ("ASCII smuggling").

// isZeroWidth reports whether r is an invisible formatting character that
// may be stripped before matching.
func isZeroWidth(r rune) bool {
	return r >= 0x200B && r <= 0x200F || r >= 0x2060 && r <= 0x2064 || r == 0xFEFF || r == 0x00AD
}

// isTag reports whether r is a Unicode tag character.
func isTag(r rune) bool { return r >= 0xE0000 && r <= 0xE007F }

// hasHidden reports, without decoding runes, whether s holds a zero-width
// or tag character.
func hasHidden(s string) bool {
	for i := 0; i+1 < len(s); i++ {
		switch s[i] {
		case 0xC2: // U+00AD
			if s[i+1] == 0xAD {
				return true
			}
		case 0xE2: // U+200B–U+200F, U+2060–U+2064
			if i+2 < len(s) && (s[i+1] == 0x80 && s[i+2] >= 0x8B && s[i+2] <= 0x8F || s[i+1] == 0x81 && s[i+2] >= 0xA0 && s[i+2] <= 0xA4) {
				return true
			}
		case 0xEF: // U+FEFF
			if i+2 < len(s) && s[i+1] == 0xBB && s[i+2] == 0xBF {
				return true
			}
		case 0xF3: // U+E0000–U+E007F
			if i+2 < len(s) && s[i+1] == 0xA0 && (s[i+2] == 0x80 || s[i+2] == 0x81) {
				return true
			}
		}
	}
	return false
}

// minZeroWidthRun is the length of a run of consecutive zero-width
// characters that is taken as an encoded payload (binary steganography).
const minZeroWidthRun = 16

// minTagText is the length of invisible tag text taken as a hidden message
// even when no rule matches it (emoji flag sequences are shorter).
const minTagText = 10

// blackFlag starts emoji subdivision flags, whose tag characters are benign.
const blackFlag = 0x1F3F4

// matchHidden applies the rules to text with zero-width characters removed
// and to the ASCII spelled by its tag characters.
func matchHidden(text string, depth int) Finding {
	var visible, tags strings.Builder
	visible.Grow(len(text))
	run, longestRun := 0, 0
	prev := rune(0)
	inFlag := false
	for _, r := range text {
		switch {
		case isTag(r):
			if prev == blackFlag {
				inFlag = true
			}
			if !inFlag && r >= 0xE0020 && r <= 0xE007E {
				tags.WriteByte(byte(r - 0xE0000))
			}
			if r == 0xE007F { // cancel tag ends a flag
				inFlag = false
			}
		case isZeroWidth(r):
			if r != 0x00AD {
				run++
				longestRun = max(longestRun, run)
			}
		default:
			visible.WriteRune(r)
			inFlag = false
			if tags.Len() > 0 && !strings.HasSuffix(tags.String(), " ") {
				tags.WriteByte(' ')
			}
		}
		if !isZeroWidth(r) {
			run = 0
		}
		prev = r
	}
	var best Finding
	if longestRun >= minZeroWidthRun {
		best = Finding{Rule: "zero-width/run", Score: scoreZeroWidthRun}
	}
	if f := matchRules(visible.String(), nil, depth+1); f.Score > 0 {
		best = best.better(Finding{Rule: "zero-width>" + f.Rule, Score: f.Score})
	}
	if payload := strings.TrimSpace(tags.String()); payload != "" {
		if f := matchRules(payload, nil, depth+1); f.Score > 0 {
			best = best.better(Finding{Rule: "tag-text>" + f.Rule, Score: f.Score})
		}
		if len(payload) >= minTagText && strings.Contains(payload, " ") {
			best = best.better(Finding{Rule: "tag-text/hidden", Score: scoreTagText})
		}
	}
	return best
}

// minBase64Run is the shortest run of base64 characters that is decoded.
const minBase64Run = 24

// matchBase64 decodes every run of at least 24 base64 characters that
// decodes to printable UTF-8 text and applies the rules to it.
func matchBase64(text string, depth int) Finding {
	var best Finding
	for i := 0; i < len(text); {
		if !isBase64Byte(text[i]) {
			i++
			continue
		}
		j := i
		upper, lower := false, false
		for j < len(text) && isBase64Byte(text[j]) {
			c := text[j]
			upper = upper || c >= 'A' && c <= 'Z'
			lower = lower || c >= 'a' && c <= 'z'
			j++
		}
		run := text[i:j]
		for j < len(text) && text[j] == '=' {
			j++
		}
		i = j
		if len(run) < minBase64Run || !upper || !lower {
			continue
		}
		decoded, ok := decodeBase64Text(run)
		if !ok {
			continue
		}
		if f := matchRules(decoded, nil, depth+1); f.Score > 0 {
			best = best.better(Finding{Rule: "base64>" + f.Rule, Score: f.Score})
		}
	}
	return best
}

func isBase64Byte(c byte) bool {
	return c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '+' || c == '/'
}

// decodeBase64Text decodes an unpadded base64 run and reports whether the
// result is mostly printable UTF-8 text.
func decodeBase64Text(run string) (string, bool) {
	if len(run)%4 == 1 {
		run = run[:len(run)-1]
	}
	b, err := base64.RawStdEncoding.DecodeString(run)
	if err != nil || !utf8.Valid(b) {
		return "", false
	}
	s := string(b)
	total, printable := 0, 0
	for _, r := range s {
		total++
		if unicode.IsPrint(r) || unicode.IsSpace(r) || isZeroWidth(r) || isTag(r) {
			printable++
		}
	}
	return s, total > 0 && printable*10 >= total*9
}
