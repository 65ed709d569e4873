package warehouse

import (
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Full-text search in a span's prompts and completions (SpanQuery.Text,
// TraceQuery.Text, the `q` parameter): the search text is one or more
// terms, each a bare word or a "quoted phrase"; a span matches when its
// search text (SearchText) contains every term, case-insensitively, as a
// substring. Terms need at least MinSearchTermRunes characters (SQLite's
// trigram index cannot look up shorter ones).
const (
	// MaxSearchBytes bounds a search text.
	MaxSearchBytes = 200
	// MaxSearchTerms bounds the terms of a search text.
	MaxSearchTerms = 8
	// MinSearchTermRunes is the shortest term, in characters.
	MinSearchTermRunes = 3
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

// SearchHits returns the byte ranges of text where a term occurs,
// case-insensitively (Unicode simple case folding), in order and not
// overlapping (the longest term wins where two start at one place).
func SearchHits(text string, terms []string) [][2]int {
	if len(terms) == 0 {
		return nil
	}
	sorted := append([]string(nil), terms...)
	sort.SliceStable(sorted, func(i, j int) bool { return len(sorted[i]) > len(sorted[j]) })
	var hits [][2]int
	for i := 0; i < len(text); {
		matched := 0
		for _, t := range sorted {
			if n := prefixFold(text[i:], t); n > 0 {
				matched = n
				break
			}
		}
		if matched > 0 {
			hits = append(hits, [2]int{i, i + matched})
			i += matched
			continue
		}
		_, size := utf8.DecodeRuneInString(text[i:])
		i += size
	}
	return hits
}

// prefixFold returns the length in s of a prefix equal to term under
// simple case folding, 0 when s does not start with it.
func prefixFold(s, term string) int {
	n := 0
	for _, tr := range term {
		if n >= len(s) {
			return 0
		}
		sr, size := utf8.DecodeRuneInString(s[n:])
		if sr != tr && !foldEqual(sr, tr) {
			return 0
		}
		n += size
	}
	return n
}

func foldEqual(a, b rune) bool {
	for r := unicode.SimpleFold(a); r != a; r = unicode.SimpleFold(r) {
		if r == b {
			return true
		}
	}
	return false
}
