package textclass

import (
	"math"
	"math/rand/v2"
)

// nbRatios returns the naive-Bayes log-count ratio of every bucket (Wang
// and Manning 2012) over the examples at idx: log((p_j/|p|)/(q_j/|q|)),
// where p_j (q_j) is alpha plus the number of positive (negative) examples
// that have a feature in bucket j. Its absolute value scales the features,
// so every ratio is returned as |r| (the sign is learned by the model), at
// least floor.
func nbRatios(examples []example, idx []int, bits int, alpha float64) []float32 {
	n := 1 << bits
	p := make([]float64, n)
	q := make([]float64, n)
	seen := make([]int32, n)
	for k, i := range idx {
		e := examples[i]
		dst := q
		if e.label {
			dst = p
		}
		for _, x := range e.feats {
			j := x >> 1
			if seen[j] == int32(k+1) {
				continue
			}
			seen[j] = int32(k + 1)
			dst[j]++
		}
	}
	var sp, sq float64
	for j := range n {
		p[j] += alpha
		q[j] += alpha
		sp += p[j]
		sq += q[j]
	}
	r := make([]float32, n)
	for j := range n {
		r[j] = float32(math.Abs(math.Log((p[j] / sp) / (q[j] / sq))))
	}
	return r
}

// bucketScale is r[j], or 1 when r is nil.
func bucketScale(r []float32, j uint32) float32 {
	if r == nil {
		return 1
	}
	return r[j]
}

// fitScaled trains logistic regression with AdaGrad on the examples at
// idx, every feature of bucket j scaled by r[j] (r nil: no scaling, which
// is exact: x·1 rounds to x).
func fitScaled(examples []example, idx []int, r []float32, opts TrainOptions, stream uint64) (float64, []float32) {
	n := 1 << opts.Features.HashBits
	w := make([]float32, n)
	g2 := make([]float32, n)
	var bias, biasG2 float64
	wPos, wNeg := 1.0, 1.0
	if opts.ClassWeight {
		pos := 0
		for _, i := range idx {
			if examples[i].label {
				pos++
			}
		}
		if pos > 0 && pos < len(idx) {
			wPos = float64(len(idx)) / (2 * float64(pos))
			wNeg = float64(len(idx)) / (2 * float64(len(idx)-pos))
		}
	}
	order := append([]int(nil), idx...)
	rng := rand.New(rand.NewPCG(uint64(opts.Seed), stream))
	const eps = 1e-8
	lr := opts.LearningRate
	for range opts.Epochs {
		rng.Shuffle(len(order), func(a, b int) { order[a], order[b] = order[b], order[a] })
		for _, i := range order {
			e := examples[i]
			var s float64
			for _, x := range e.feats {
				v := float64(w[x>>1] * bucketScale(r, x>>1))
				if x&1 != 0 {
					v = -v
				}
				s += v
			}
			p := sigmoid(bias + s*e.scale)
			y, cw := 0.0, wNeg
			if e.label {
				y, cw = 1, wPos
			}
			g := cw * (p - y)
			biasG2 += g * g
			bias -= lr * g / math.Sqrt(biasG2+eps)
			for _, x := range e.feats {
				j := x >> 1
				gx := g * e.scale * float64(bucketScale(r, j))
				if x&1 != 0 {
					gx = -gx
				}
				gx += opts.L2 * float64(w[j])
				g2[j] += float32(gx * gx)
				w[j] -= float32(lr * gx / math.Sqrt(float64(g2[j])+eps))
			}
		}
	}
	return bias, w
}
