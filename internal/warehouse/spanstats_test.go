package warehouse

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestLatencyBin: every duration falls in the bin whose bounds hold it.
func TestLatencyBin(t *testing.T) {
	for _, ms := range []int64{0, 1, 2, 3, 4, 5, 7, 8, 11, 12, 100, 1000, 1414, 1415, 65535, 1 << 31, 1<<32 + 7, 1 << 40, math.MaxInt64} {
		i := LatencyBin(ms)
		lo, hi := LatencyBinBounds(i)
		if float64(ms) < lo || float64(ms) >= hi {
			t.Errorf("LatencyBin(%d) = %d, whose bounds [%g, %g) do not hold it", ms, i, lo, hi)
		}
	}
	if LatencyBin(-5) != 0 {
		t.Error("a negative duration is not in the first bin")
	}
}

// TestLatencyPercentile: percentiles read from the histogram are within
// one bin's width of the exact ones (nearest rank), for a spread of
// distributions.
func TestLatencyPercentile(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, tc := range []struct {
		name string
		draw func() int64
	}{
		{"uniform", func() int64 { return r.Int64N(2000) }},
		{"log-normal", func() int64 { return int64(math.Exp(r.NormFloat64()*1.5 + 5)) }},
		{"bimodal", func() int64 {
			if r.IntN(10) == 0 {
				return 30000 + r.Int64N(5000)
			}
			return 40 + r.Int64N(20)
		}},
		{"constant", func() int64 { return 250 }},
		{"tiny", func() int64 { return r.Int64N(3) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			bins := make([]int64, LatencyBins)
			d := make([]int64, 5000)
			for i := range d {
				d[i] = tc.draw()
				bins[LatencyBin(d[i])]++
			}
			slices.Sort(d)
			for _, p := range []float64{0.5, 0.95, 0.99} {
				exact := d[int(math.Ceil(p*float64(len(d))))-1]
				got, ok := LatencyPercentile(bins, p)
				lo, hi := LatencyBinBounds(LatencyBin(exact))
				if !ok || math.Abs(got-float64(exact)) > hi-lo {
					t.Errorf("p%g = %.1f, exact %d (bin [%g, %g))", p*100, got, exact, lo, hi)
				}
			}
		})
	}
	if _, ok := LatencyPercentile(make([]int64, LatencyBins), 0.5); ok {
		t.Error("an empty histogram has a percentile")
	}
}
