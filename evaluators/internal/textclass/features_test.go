package textclass

import (
	"math"
	"slices"
	"testing"

	"github.com/evalcol/evalcol/internal/testcorpus"
)

// visitReference is the callback form appendFeatures replaced, kept as
// the reference its output must equal.
func (f Features) visitReference(b []byte, fn func(feature)) {
	shift := 64 - uint(f.HashBits)
	emit := func(h uint64) {
		h = mix(h)
		fn(feature(h>>shift)<<1 | feature(h&1))
	}
	if f.WordNgrams > 0 {
		var window [maxWordNgrams]uint64
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
			acc := uint64(0x77)
			for n := 1; n <= f.WordNgrams && n <= filled; n++ {
				acc = (acc^window[maxWordNgrams-n])*fnvPrime + uint64(n)
				emit(acc)
			}
		}
	}
	if f.CharMaxN > 0 {
		n := len(b) + 2
		at := func(i int) byte {
			if i == 0 || i == n-1 {
				return ' '
			}
			return b[i-1]
		}
		for i := 0; i < n; i++ {
			h := uint64(fnvOffset) ^ 0x5bd1e995
			for k := 0; k < f.CharMaxN && i+k < n; k++ {
				h ^= uint64(at(i + k))
				h *= fnvPrime
				if k+1 >= f.CharMinN {
					emit(h + uint64(k))
				}
			}
		}
	}
}

// TestAppendFeaturesMatchesReference: the same features in the same order
// as the callback form, on thousands of varied texts, for several feature
// shapes and normal forms.
func TestAppendFeaturesMatchesReference(t *testing.T) {
	shapes := []Features{
		DefaultFeatures(),
		{WordNgrams: 2, CharMinN: 2, CharMaxN: 5, HashBits: 18},
		{WordNgrams: 3, CharMinN: 1, CharMaxN: 3, HashBits: 12},
		{WordNgrams: 8, HashBits: 26},
		{CharMinN: 4, CharMaxN: 16, HashBits: 1},
	}
	var got, want []feature
	n := 0
	for _, text := range testcorpus.Texts() {
		for i, opts := range []NormOptions{{}, {Fold: true, StripSocial: true}} {
			b := appendNormalized(nil, text, opts)
			f := shapes[(n+i)%len(shapes)]
			want = want[:0]
			f.visitReference(b, func(x feature) { want = append(want, x) })
			got = f.appendFeatures(got[:0], b)
			if !slices.Equal(got, want) {
				t.Fatalf("%+v on %q: %d features, want %d (or a different order)", f, b, len(got), len(want))
			}
		}
		n++
	}
}

// TestHalfWeightsScoreExactly: the float16 weight table gives, bit for
// bit, the scores of the float32 weights, and a weight that is not a
// float16 value turns it off.
func TestHalfWeightsScoreExactly(t *testing.T) {
	models := windowModels(t)
	for name, m := range models {
		if m.halfWeights() == nil {
			t.Fatalf("%s: trained weights are not float16 values", name)
		}
		plain := &Model{features: m.features, bias: m.bias, weights: m.weights, platt: m.platt}
		plain.halfOnce.Do(func() {}) // no compact table: the float32 path
		for i, text := range testcorpus.Texts() {
			if i%4 != 0 {
				continue
			}
			if got, want := m.Score(text), plain.Score(text); math.Float64bits(got) != math.Float64bits(want) {
				t.Fatalf("%s on %q: score %v with float16 weights, %v with float32", name, text, got, want)
			}
		}
	}
	odd := &Model{features: Features{WordNgrams: 1, HashBits: 4}, weights: make([]float32, 16)}
	odd.weights[3] = 0.1 // not a float16 value
	if odd.halfWeights() != nil {
		t.Error("a model with a weight that is not a float16 value got a float16 table")
	}
}
