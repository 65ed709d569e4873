package toxicity

import "fmt"

// maxAnchorSets bounds the anchor sets so that Detect can mark the
// present ones in an array on the stack.
const maxAnchorSets = 128

// anchorIndex finds, in one pass over a text, which anchor sets have an
// anchor in it: each anchor is keyed by its first three bytes, so a text
// costs one array probe per byte and a map lookup per probable hit,
// instead of one substring search per anchor.
type anchorIndex struct {
	first  [1 << 16]bool // first two bytes of some anchor
	byGram map[[3]byte][]anchorRef
	sets   int
}

type anchorRef struct {
	anchor string
	set    int
}

// add registers anchors as a new set and returns its number.
func (x *anchorIndex) add(anchors []string) int {
	if x.byGram == nil {
		x.byGram = map[[3]byte][]anchorRef{}
	}
	set := x.sets
	x.sets++
	if x.sets > maxAnchorSets {
		panic(fmt.Sprintf("toxicity: more than %d anchor sets", maxAnchorSets))
	}
	for _, an := range anchors {
		if len(an) < 3 {
			panic(fmt.Sprintf("toxicity: anchor %q shorter than 3 bytes", an))
		}
		x.first[int(an[0])<<8|int(an[1])] = true
		g := [3]byte{an[0], an[1], an[2]}
		x.byGram[g] = append(x.byGram[g], anchorRef{an, set})
	}
	return set
}

// present marks in found the sets with an anchor in s.
func (x *anchorIndex) present(s string, found *[maxAnchorSets]bool) {
	for i := 0; i+3 <= len(s); i++ {
		if !x.first[int(s[i])<<8|int(s[i+1])] {
			continue
		}
		for _, ref := range x.byGram[[3]byte{s[i], s[i+1], s[i+2]}] {
			if !found[ref.set] && len(s)-i >= len(ref.anchor) && s[i:i+len(ref.anchor)] == ref.anchor {
				found[ref.set] = true
			}
		}
	}
}
