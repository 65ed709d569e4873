package toxicity

import (
	"fmt"
	"slices"
)

// maxAnchorSets bounds the anchor sets so that Detect can mark the
// present ones in an array on the stack.
const maxAnchorSets = 128

// anchorIndex finds, in one pass over a text, which anchor sets have an
// anchor in it: each anchor is keyed by a hash of its first three bytes, so a
// text costs one array probe per byte and a comparison with the few
// anchors under that key, instead of one substring search per anchor.
type anchorIndex struct {
	// slot numbers, by gramKey of the first three bytes, the list in
	// byGram of the anchors with that key (0: none).
	slot [1 << 16]uint16
	// used has a bit for each key of slot that is not 0: a text's
	// 3-grams are tested against this 8 KB bitmap, which stays in the
	// CPU cache, before the 128 KB slot table.
	used   [1 << 16 / 64]uint64
	byGram [][]anchorRef
	sets   int
}

// anchorRef is one anchor string and the sets it belongs to (an anchor
// of several sets is compared once).
type anchorRef struct {
	anchor string
	sets   anchorBits
}

// add registers anchors as a new set and returns its number.
func (x *anchorIndex) add(anchors []string) int {
	if x.byGram == nil {
		x.byGram = [][]anchorRef{nil} // slot 0 means none
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
		key := gramKey(an[0], an[1], an[2])
		if x.slot[key] == 0 {
			x.slot[key] = uint16(len(x.byGram))
			x.used[key/64] |= 1 << (key % 64)
			x.byGram = append(x.byGram, nil)
		}
		k := x.slot[key]
		refs := x.byGram[k]
		i := slices.IndexFunc(refs, func(r anchorRef) bool { return r.anchor == an })
		if i < 0 {
			i = len(refs)
			x.byGram[k] = append(refs, anchorRef{anchor: an})
		}
		x.byGram[k][i].sets.add(set)
	}
	return set
}

// gramKey hashes three bytes to an index of anchorIndex.slot.
func gramKey(a, b, c byte) uint16 {
	return uint16((uint32(a)<<16 | uint32(b)<<8 | uint32(c)) * 0x9e3779b1 >> 16)
}

// anchorBits is a set of anchor set numbers, one bit each.
type anchorBits [maxAnchorSets / 64]uint64

func (b *anchorBits) add(set int)      { b[set>>6] |= 1 << (set & 63) }
func (b *anchorBits) has(set int) bool { return b[set>>6]&(1<<(set&63)) != 0 }

// covers reports whether b holds every set of o.
func (b *anchorBits) covers(o *anchorBits) bool {
	for i := range b {
		if o[i]&^b[i] != 0 {
			return false
		}
	}
	return true
}

// union adds every set of o to b.
func (b *anchorBits) union(o *anchorBits) {
	for i := range b {
		b[i] |= o[i]
	}
}

// present marks in found the sets with an anchor in s.
func (x *anchorIndex) present(s string, found *[maxAnchorSets]bool) {
	var bits anchorBits
	x.mark(s, &bits)
	for set := range found {
		found[set] = bits.has(set)
	}
}

// mark adds to found the sets with an anchor in s.
func (x *anchorIndex) mark(s string, found *anchorBits) {
	for i := 0; i+3 <= len(s); i++ {
		key := gramKey(s[i], s[i+1], s[i+2])
		if x.used[key/64]&(1<<(key%64)) == 0 {
			continue
		}
		k := x.slot[key]
		for r := range x.byGram[k] {
			ref := &x.byGram[k][r]
			if !found.covers(&ref.sets) && len(s)-i >= len(ref.anchor) && s[i:i+len(ref.anchor)] == ref.anchor {
				found.union(&ref.sets)
			}
		}
	}
}
