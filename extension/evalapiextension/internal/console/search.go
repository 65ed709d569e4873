package console

import (
	"net/url"
	"unicode/utf8"

	"github.com/evalcol/evalcol/internal/warehouse"
)

// previewRunes is the length of a list preview (first prompt, last
// completion), in characters.
const previewRunes = 120

// searchHitTitle is the tooltip of a search hit's mark.
const searchHitTitle = "search hit"

// preview cuts text to about previewRunes characters for a list row: the
// start, or, when the first search hit lies beyond, a window that begins a
// little before it (so the hit shows); the hits in the window are marked.
// Cut ends are shown with "…". The parts are text, escaped by the
// template.
func preview(text string, terms []string) []textPart {
	if text == "" {
		return nil
	}
	hits := warehouse.SearchHits(text, terms)
	start := 0
	if len(hits) > 0 && utf8.RuneCountInString(text[:hits[0][1]]) > previewRunes {
		start = backRunes(text, hits[0][0], 20)
	}
	end := forwardRunes(text, start, previewRunes)
	var parts []textPart
	if start > 0 {
		parts = append(parts, textPart{Text: "…"})
	}
	parts = append(parts, markRanges(text[start:end], shiftHits(hits, start, end))...)
	if end < len(text) {
		parts = append(parts, textPart{Text: "…"})
	}
	return parts
}

// backRunes returns the byte offset n characters before i in s (0 at
// most).
func backRunes(s string, i, n int) int {
	for ; n > 0 && i > 0; n-- {
		_, size := utf8.DecodeLastRuneInString(s[:i])
		i -= size
	}
	return i
}

// forwardRunes returns the byte offset n characters after i in s.
func forwardRunes(s string, i, n int) int {
	for ; n > 0 && i < len(s); n-- {
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
	}
	return i
}

// shiftHits keeps the hits within [start, end), relative to start.
func shiftHits(hits [][2]int, start, end int) [][2]int {
	var out [][2]int
	for _, h := range hits {
		if h[0] >= start && h[1] <= end {
			out = append(out, [2]int{h[0] - start, h[1] - start})
		}
	}
	return out
}

// markRanges cuts text at the ranges (in order, not overlapping), marked.
func markRanges(text string, ranges [][2]int) []textPart {
	var parts []textPart
	at := 0
	for _, r := range ranges {
		if r[0] > at {
			parts = append(parts, textPart{Text: text[at:r[0]]})
		}
		parts = append(parts, textPart{Text: text[r[0]:r[1]], Mark: true, Title: searchHitTitle, Hit: true})
		at = r[1]
	}
	if at < len(text) {
		parts = append(parts, textPart{Text: text[at:]})
	}
	return parts
}

// markHits marks the search hits of terms in a message already cut into
// parts (parts nil: content whole); the parts an evaluation's finding
// marked stay as they are. It returns nil when nothing is marked at all.
func markHits(parts []textPart, content string, terms []string) []textPart {
	if len(terms) == 0 {
		return parts
	}
	if parts == nil {
		if hits := warehouse.SearchHits(content, terms); len(hits) > 0 {
			return markRanges(content, hits)
		}
		return nil
	}
	var out []textPart
	for _, p := range parts {
		if p.Mark {
			out = append(out, p)
			continue
		}
		out = append(out, markRanges(p.Text, warehouse.SearchHits(p.Text, terms))...)
	}
	return out
}

// withSearch adds a search (q) to a console link that has a query string.
func withSearch(link, q string) string {
	if q == "" {
		return link
	}
	return link + "&q=" + url.QueryEscape(q)
}
