package injection

import (
	"bytes"
	"fmt"
	"unicode/utf8"
)

// anchorIndex finds the occurrences of every phrase rule's anchors in one
// pass over the lower-cased text, instead of one substring search per
// anchor (145 of them): a table keyed by the first two bytes of an anchor
// says which anchors may start at a position.
type anchorIndex struct {
	anchors [][]byte
	// byPair maps the first two bytes of an anchor to 1 + its index in
	// lists; 0 means no anchor starts with those bytes.
	byPair *[1 << 16]uint16
	// pairs has a bit for each pair of byPair that is not 0: a text's
	// byte pairs are tested against this 8 KB bitmap, which stays in the
	// CPU cache, before the 128 KB table.
	pairs [1 << 16 / 64]uint64
	lists [][]int32
	// ruleAnchors[i] are the anchor indexes of phraseRules[i], in the
	// rule's order.
	ruleAnchors [][]int32
}

// occurrence is one anchor found at a byte offset.
type occurrence struct {
	anchor int32
	at     int32
}

// maxOccurrences bounds the anchors recorded in one scan; text with more
// falls back to searching per rule, with the same result.
const maxOccurrences = 256

// phraseAnchors indexes the anchors of phraseRules; built once.
var phraseAnchors = newAnchorIndex(phraseRules)

func newAnchorIndex(rules []phraseRule) *anchorIndex {
	idx := &anchorIndex{byPair: new([1 << 16]uint16), ruleAnchors: make([][]int32, len(rules))}
	ids := map[string]int32{}
	for i, r := range rules {
		for _, a := range r.anchors {
			if len(a) < 2 {
				panic(fmt.Sprintf("injection: anchor %q of rule %s is shorter than 2 bytes", a, r.name))
			}
			id, ok := ids[string(a)]
			if !ok {
				id = int32(len(idx.anchors))
				ids[string(a)] = id
				idx.anchors = append(idx.anchors, a)
				pair := uint16(a[0])<<8 | uint16(a[1])
				if idx.byPair[pair] == 0 {
					idx.lists = append(idx.lists, nil)
					idx.byPair[pair] = uint16(len(idx.lists))
					idx.pairs[pair/64] |= 1 << (pair % 64)
				}
				l := idx.byPair[pair] - 1
				idx.lists[l] = append(idx.lists[l], id)
			}
			idx.ruleAnchors[i] = append(idx.ruleAnchors[i], id)
		}
	}
	return idx
}

// scan records the anchor occurrences in lower, in order of position, into
// out and returns how many it found; ok is false when out was too small.
func (idx *anchorIndex) scan(lower []byte, out []occurrence) (n int, ok bool) {
	for i := 0; i+1 < len(lower); i++ {
		pair := uint16(lower[i])<<8 | uint16(lower[i+1])
		if idx.pairs[pair/64]&(1<<(pair%64)) == 0 {
			continue
		}
		l := idx.byPair[pair]
		for _, a := range idx.lists[l-1] {
			if !bytes.HasPrefix(lower[i:], idx.anchors[a]) {
				continue
			}
			if n == len(out) {
				return n, false
			}
			out[n] = occurrence{anchor: a, at: int32(i)}
			n++
		}
	}
	return n, true
}

// matchOccurrences is matchAround on the occurrences found by scan: for each
// of the rule's anchors, the regular expression runs around its
// occurrences, each starting past the previous one, until one matches.
func (idx *anchorIndex) matchOccurrences(rule int, text string, lower []byte, occ []occurrence) bool {
	r := &phraseRules[rule]
	for _, a := range idx.ruleAnchors[rule] {
		next := 0
		alen := len(idx.anchors[a])
		for _, o := range occ {
			if o.anchor != a || int(o.at) < next {
				continue
			}
			at := int(o.at)
			if lo, hi := window(text, at, alen); r.matchWindow(text[lo:hi], lower[lo:hi]) {
				return true
			}
			next = at + alen
		}
	}
	return false
}

// window returns the bounds of the text around an anchor of length alen at
// byte offset at, widened to whole runes.
func window(text string, at, alen int) (lo, hi int) {
	lo, hi = max(0, at-regexWindowBefore), min(len(text), at+alen+regexWindowAfter)
	for lo > 0 && !utf8.RuneStart(text[lo]) {
		lo--
	}
	for hi < len(text) && !utf8.RuneStart(text[hi]) {
		hi++
	}
	return lo, hi
}
