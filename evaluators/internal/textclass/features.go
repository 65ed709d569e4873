package textclass

import (
	"fmt"
	"math"
	"slices"
)

// Features are the options of feature extraction: hashed word n-grams
// (1..WordNgrams) and character n-grams (CharMinN..CharMaxN bytes, over the
// normalised text with a space before and after) of the normalised text,
// each hashed with FNV-1a into 2^HashBits signed buckets.
type Features struct {
	// WordNgrams is the longest word n-gram (0: no word features).
	WordNgrams int
	// CharMinN and CharMaxN bound the character n-grams (CharMaxN 0: none).
	CharMinN, CharMaxN int
	// HashBits is log2 of the number of buckets (1..26).
	HashBits int
	// Norm selects the optional folding steps of normalisation.
	Norm NormOptions
}

// DefaultFeatures are word uni- and bigrams and character 2- to 5-grams in
// 2^20 buckets.
func DefaultFeatures() Features {
	return Features{WordNgrams: 2, CharMinN: 2, CharMaxN: 5, HashBits: 20}
}

// maxWordNgrams bounds WordNgrams so the rolling window fits on the stack.
const maxWordNgrams = 8

func (f Features) validate() error {
	switch {
	case f.HashBits < 1 || f.HashBits > 26:
		return fmt.Errorf("features: HashBits %d outside 1..26", f.HashBits)
	case f.WordNgrams < 0 || f.WordNgrams > maxWordNgrams:
		return fmt.Errorf("features: WordNgrams %d outside 0..%d", f.WordNgrams, maxWordNgrams)
	case f.CharMaxN < 0 || f.CharMaxN > 16:
		return fmt.Errorf("features: CharMaxN %d outside 0..16", f.CharMaxN)
	case f.CharMaxN > 0 && (f.CharMinN < 1 || f.CharMinN > f.CharMaxN):
		return fmt.Errorf("features: CharMinN %d outside 1..CharMaxN (%d)", f.CharMinN, f.CharMaxN)
	case f.WordNgrams == 0 && f.CharMaxN == 0:
		return fmt.Errorf("features: no word or character n-grams selected")
	}
	return nil
}

const (
	fnvOffset = 14695981039346656037
	fnvPrime  = 1099511628211
)

// fnv1a hashes b with FNV-1a from seed h.
func fnv1a(h uint64, b []byte) uint64 {
	for _, c := range b {
		h ^= uint64(c)
		h *= fnvPrime
	}
	return h
}

// mix is a 64-bit finaliser (splitmix64) that spreads FNV hashes over all
// bits before bucketing.
func mix(h uint64) uint64 {
	h ^= h >> 30
	h *= 0xbf58476d1ce4e5b9
	h ^= h >> 27
	h *= 0x94d049bb133111eb
	h ^= h >> 31
	return h
}

// feature is a hashed feature: bucket index and sign (+1 or -1) packed as
// index<<1 | signBit.
type feature = uint32

// appendFeatures appends every hashed feature of normalised text b (which
// has no leading or trailing space) to dst: the word n-grams word by word
// (n = 1..WordNgrams words ending at each word), then the character
// n-grams of " "+b+" " start by start (CharMinN..CharMaxN bytes). It
// allocates only when dst lacks capacity.
func (f Features) appendFeatures(dst []feature, b []byte) []feature {
	shift := 64 - uint(f.HashBits)
	if f.WordNgrams > 0 {
		var window [maxWordNgrams]uint64 // hashes of the last words, newest last
		filled := 0
		for i := 0; i < len(b); {
			if !isWordByte(b[i]) {
				i++
				continue
			}
			j := i
			for j < len(b) && isWordByte(b[j]) {
				j++
			}
			h := fnv1a(fnvOffset, b[i:j])
			i = j
			copy(window[:], window[1:])
			window[maxWordNgrams-1] = h
			if filled < maxWordNgrams {
				filled++
			}
			// n-gram of the last n words, n = 1..WordNgrams.
			acc := uint64(0x77)
			for n := 1; n <= f.WordNgrams && n <= filled; n++ {
				acc = (acc^window[maxWordNgrams-n])*fnvPrime + uint64(n)
				x := mix(acc)
				dst = append(dst, feature(x>>shift)<<1|feature(x&1))
			}
		}
	}
	if f.CharMaxN > 0 {
		// Character n-grams of " " + b + " ", by start byte.
		n := len(b) + 2
		per := f.CharMaxN - f.CharMinN + 1
		dst = slices.Grow(dst, n*per)
		// Starts whose longest n-gram lies inside b (not the padding)
		// read b directly; the few others read the padded text.
		first, last := 1, n-f.CharMaxN // inner starts: first <= i < last
		i := 0
		for ; i < first && i < n; i++ {
			dst = f.appendCharGrams(dst, b, i, shift)
		}
		if f.CharMinN == 2 && f.CharMaxN == 5 {
			for ; i < last; i++ {
				w := b[i-1 : i+4 : i+4]
				h := (uint64(fnvOffset) ^ 0x5bd1e995 ^ uint64(w[0])) * fnvPrime
				h = (h ^ uint64(w[1])) * fnvPrime
				x1 := mix(h + 1)
				h = (h ^ uint64(w[2])) * fnvPrime
				x2 := mix(h + 2)
				h = (h ^ uint64(w[3])) * fnvPrime
				x3 := mix(h + 3)
				h = (h ^ uint64(w[4])) * fnvPrime
				x4 := mix(h + 4)
				dst = append(dst, feature(x1>>shift)<<1|feature(x1&1), feature(x2>>shift)<<1|feature(x2&1),
					feature(x3>>shift)<<1|feature(x3&1), feature(x4>>shift)<<1|feature(x4&1))
			}
		} else {
			for ; i < last; i++ {
				h := uint64(fnvOffset) ^ 0x5bd1e995 // separate from word hashes
				for k, c := range b[i-1 : i-1+f.CharMaxN] {
					h ^= uint64(c)
					h *= fnvPrime
					if k+1 >= f.CharMinN {
						x := mix(h + uint64(k))
						dst = append(dst, feature(x>>shift)<<1|feature(x&1))
					}
				}
			}
		}
		for ; i < n; i++ {
			dst = f.appendCharGrams(dst, b, i, shift)
		}
	}
	return dst
}

// appendCharGrams appends the character n-grams starting at byte i of
// " " + b + " ".
func (f Features) appendCharGrams(dst []feature, b []byte, i int, shift uint) []feature {
	n := len(b) + 2
	h := uint64(fnvOffset) ^ 0x5bd1e995 // separate from word hashes
	for k := 0; k < f.CharMaxN && i+k < n; k++ {
		c := byte(' ')
		if at := i + k - 1; uint(at) < uint(len(b)) {
			c = b[at]
		}
		h ^= uint64(c)
		h *= fnvPrime
		if k+1 >= f.CharMinN {
			x := mix(h + uint64(k))
			dst = append(dst, feature(x>>shift)<<1|feature(x&1))
		}
	}
	return dst
}

// collect returns the features of normalised text b and the scale
// 1/sqrt(count) every feature value is multiplied by.
func (f Features) collect(b []byte, dst []feature) ([]feature, float64) {
	dst = f.appendFeatures(dst[:0], b)
	if len(dst) == 0 {
		return dst, 0
	}
	return dst, 1 / math.Sqrt(float64(len(dst)))
}
