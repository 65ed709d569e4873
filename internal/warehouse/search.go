package warehouse

import (
	"regexp"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Full-text search in a span's prompts and completions (SpanQuery.Text,
// TraceQuery.Text, the `q` parameter): the search text is one or more
// terms, each a bare word or a "quoted phrase"; a span matches when its
// search text (SearchText) holds every term, case-insensitively, at the
// start of a word: a term's words in sequence, separated by anything that
// is not a letter or a digit, its last word a prefix ("refund" finds
// "Refunds", "good morn" finds "Good, morning"; "fund" does not find
// "refund"). SearchPattern is that rule as a regular expression.
const (
	// MaxSearchBytes bounds a search text.
	MaxSearchBytes = 200
	// MaxSearchTerms bounds the terms of a search text.
	MaxSearchTerms = 8
	// MinSearchTermRunes is the shortest term, in characters.
	MinSearchTermRunes = 2
)

// SearchTerms splits a search text into its terms: runs of characters
// between white space, or between double quotes (a phrase, spaces kept;
// an unclosed quote runs to the end). A *QueryError (field "q") says why
// a text is refused: too long, too many terms, a term too short, none.
func SearchTerms(q string) ([]string, error) {
	if len(q) > MaxSearchBytes {
		return nil, queryErrorf("q", "is %d bytes long; at most %d", len(q), MaxSearchBytes)
	}
	if !utf8.ValidString(q) {
		return nil, queryErrorf("q", "is not valid UTF-8")
	}
	var terms []string
	add := func(t string) {
		if t = strings.TrimSpace(t); t != "" {
			terms = append(terms, t)
		}
	}
	for rest := q; rest != ""; {
		rest = strings.TrimLeftFunc(rest, unicode.IsSpace)
		if after, ok := strings.CutPrefix(rest, `"`); ok {
			phrase, tail, _ := strings.Cut(after, `"`)
			add(strings.Join(strings.Fields(phrase), " "))
			rest = tail
			continue
		}
		end := strings.IndexFunc(rest, func(r rune) bool { return unicode.IsSpace(r) || r == '"' })
		if end < 0 {
			end = len(rest)
		}
		add(rest[:end])
		rest = rest[end:]
	}
	if len(terms) == 0 {
		return nil, queryErrorf("q", "has no word to search for")
	}
	if len(terms) > MaxSearchTerms {
		return nil, queryErrorf("q", "has %d terms; at most %d", len(terms), MaxSearchTerms)
	}
	for _, t := range terms {
		if utf8.RuneCountInString(t) < MinSearchTermRunes {
			return nil, queryErrorf("q", "%q is shorter than %d characters; search words and phrases need at least %d", t, MinSearchTermRunes, MinSearchTermRunes)
		}
		for _, r := range t {
			if unicode.IsControl(r) {
				return nil, queryErrorf("q", "contains a control character")
			}
		}
		if len(searchWords(t)) == 0 {
			return nil, queryErrorf("q", "%q has no letter or digit to search for", t)
		}
	}
	return terms, nil
}

// SearchText is the text of a span that a search looks in: the contents
// of its prompts and completions (not their roles), then its input and
// output where no message holds them, one per line. Both backends index
// or scan the same text.
func SearchText(sp *Span) string {
	var parts []string
	for _, m := range []map[string]string{sp.Prompts, sp.Completions} {
		keys := make([]string, 0, len(m))
		for k := range m {
			if strings.HasSuffix(k, ".content") && m[k] != "" {
				keys = append(keys, k)
			}
		}
		sort.Strings(keys)
		for _, k := range keys {
			parts = append(parts, m[k])
		}
	}
	for _, s := range []string{sp.Input, sp.Output} {
		if s != "" && !containsString(parts, s) {
			parts = append(parts, s)
		}
	}
	return strings.Join(parts, "\n")
}

func containsString(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// searchWords splits a term into its words: runs of letters and digits.
func searchWords(term string) []string {
	return strings.FieldsFunc(term, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsNumber(r) })
}

// nonWord matches what separates words.
const nonWord = `[^\pL\pN]`

// SearchPattern returns the regular expression (RE2 syntax) of a term
// over lower-case text: a word start, then the term's words, lower-case,
// separated by non-word characters (its last word a prefix). The match's
// group 1 is the hit.
func SearchPattern(term string) string {
	words := searchWords(strings.ToLower(term))
	for i, w := range words {
		words[i] = regexp.QuoteMeta(w)
	}
	return `(?:^|` + nonWord + `)(` + strings.Join(words, nonWord+`+`) + `)`
}

// SearchNeedle returns the longest word of a term: every text the term
// matches holds it, case-insensitively (a cheap test before the pattern).
func SearchNeedle(term string) string {
	long := ""
	for _, w := range searchWords(term) {
		if len(w) > len(long) {
			long = w
		}
	}
	return long
}

// SearchHits returns the byte ranges of text where a term matches
// (SearchPattern, case-insensitively), in order and not overlapping (the
// earliest, then the longest, wins).
func SearchHits(text string, terms []string) [][2]int {
	var hits [][2]int
	for _, t := range terms {
		re, err := regexp.Compile(`(?i)` + SearchPattern(t))
		if err != nil {
			continue // cannot happen: the words are quoted
		}
		for _, m := range re.FindAllStringSubmatchIndex(text, -1) {
			hits = append(hits, [2]int{m[2], m[3]})
		}
	}
	sort.Slice(hits, func(i, j int) bool {
		if hits[i][0] != hits[j][0] {
			return hits[i][0] < hits[j][0]
		}
		return hits[i][1] > hits[j][1]
	})
	out := hits[:0]
	end := -1
	for _, h := range hits {
		if h[0] >= end {
			out = append(out, h)
			end = h[1]
		}
	}
	return out
}
