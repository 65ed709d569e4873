package textclass

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
)

// TrainOptions are the options of Train. Zero values take the defaults
// named on each field.
type TrainOptions struct {
	// Features selects the features (required; see DefaultFeatures).
	Features Features
	// L2 is the L2 penalty added to each touched weight's gradient
	// (default 1e-6; negative means none).
	L2 float64
	// Epochs is the number of passes over the data (default 10).
	Epochs int
	// LearningRate is the AdaGrad step size (default 0.2).
	LearningRate float64
	// Seed seeds the shuffling and the calibration folds.
	Seed int64
	// ClassWeight weights each class by n / (2·n_class) during training
	// (the "balanced" weighting), for imbalanced data.
	ClassWeight bool
	// CalibrationFolds is the number of cross-fitting folds whose
	// out-of-fold scores fit the Platt calibration (default 5, minimum 2).
	CalibrationFolds int
	// BalancedCalibration fits the calibration with class-balanced sample
	// weights, so 0.5 is the point of equal error on both classes rather
	// than the point of best accuracy under the training prior.
	BalancedCalibration bool
	// MacroF1OperatingPoint shifts the calibrated log-odds after fitting so
	// that 0.5 is the threshold of best macro-F1 on the out-of-fold scores.
	// Probability is then an operating-point score rather than a
	// calibrated probability; use it when the consumer thresholds at 0.5
	// and both classes matter equally.
	MacroF1OperatingPoint bool
}

func (o TrainOptions) withDefaults() TrainOptions {
	if o.L2 == 0 {
		o.L2 = 1e-6
	} else if o.L2 < 0 {
		o.L2 = 0
	}
	if o.Epochs <= 0 {
		o.Epochs = 10
	}
	if o.LearningRate <= 0 {
		o.LearningRate = 0.2
	}
	if o.CalibrationFolds < 2 {
		o.CalibrationFolds = 5
	}
	return o
}

// example is one training text as hashed features.
type example struct {
	feats []feature
	scale float64
	label bool
}

// Train fits a model to texts and labels (true = positive). It is
// deterministic: the same inputs in the same order and options give the
// same model. The Platt calibration is fit on out-of-fold scores of
// CalibrationFolds cross-fitted models; the returned model is then trained
// on all the data.
func Train(texts []string, labels []bool, opts TrainOptions) (*Model, error) {
	if len(texts) != len(labels) {
		return nil, fmt.Errorf("textclass: train: %d texts but %d labels", len(texts), len(labels))
	}
	if err := opts.Features.validate(); err != nil {
		return nil, fmt.Errorf("textclass: train: %w", err)
	}
	opts = opts.withDefaults()
	pos := 0
	for _, l := range labels {
		if l {
			pos++
		}
	}
	if pos == 0 || pos == len(labels) {
		return nil, errors.New("textclass: train: need both positive and negative examples")
	}
	if len(texts) < opts.CalibrationFolds {
		return nil, fmt.Errorf("textclass: train: %d texts, fewer than %d calibration folds", len(texts), opts.CalibrationFolds)
	}
	examples := make([]example, len(texts))
	var buf []byte
	for i, t := range texts {
		buf = appendNormalized(buf[:0], t, opts.Features.Norm)
		feats, scale := opts.Features.collect(buf, nil)
		examples[i] = example{feats: feats, scale: scale, label: labels[i]}
	}

	// Cross-fitting: fold of example i is perm[i] mod k.
	rng := rand.New(rand.NewPCG(uint64(opts.Seed), 0x9e3779b97f4a7c15))
	perm := rng.Perm(len(examples))
	k := opts.CalibrationFolds
	oof := make([]float64, len(examples))
	for fold := range k {
		var train, held []int
		for i := range examples {
			if perm[i]%k == fold {
				held = append(held, i)
			} else {
				train = append(train, i)
			}
		}
		bias, w := fit(examples, train, opts, uint64(fold+1))
		for _, i := range held {
			oof[i] = linear(bias, w, examples[i])
		}
	}
	all := make([]int, len(examples))
	for i := range all {
		all[i] = i
	}
	bias, w := fit(examples, all, opts, 0)
	for i := range w {
		w[i] = halfToFloat32(float32ToHalf(w[i]))
	}
	m := &Model{features: opts.Features, bias: bias, weights: w}
	m.platt = fitPlatt(oof, labels, opts.BalancedCalibration)
	if opts.MacroF1OperatingPoint {
		t := bestMacroF1Threshold(oof, labels)
		// p' = sigmoid(A·s + B - A·t): p' = 0.5 at score t.
		m.platt.B = -m.platt.A * t
	}
	return m, nil
}

// bestMacroF1Threshold returns the score threshold (midway between two
// adjacent distinct scores) with the best macro-F1 when scores above it
// are predicted positive; the first best in score order.
func bestMacroF1Threshold(scores []float64, labels []bool) float64 {
	idx := make([]int, len(scores))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int { return cmp.Compare(scores[a], scores[b]) })
	var pos float64
	for _, l := range labels {
		if l {
			pos++
		}
	}
	neg := float64(len(labels)) - pos
	f1 := func(tp, fp, fn float64) float64 {
		if tp == 0 {
			return 0
		}
		return 2 * tp / (2*tp + fp + fn)
	}
	// Threshold below every score: everything positive.
	tp, fp := pos, neg
	best := (f1(tp, fp, 0) + f1(0, 0, tp)) / 2
	bestT := scores[idx[0]] - 1
	for k := 0; k < len(idx); {
		j := k
		for j < len(idx) && scores[idx[j]] == scores[idx[k]] {
			if labels[idx[j]] {
				tp--
			} else {
				fp--
			}
			j++
		}
		fn, tn := pos-tp, neg-fp
		if mf := (f1(tp, fp, fn) + f1(tn, fn, fp)) / 2; mf > best {
			best = mf
			if j < len(idx) {
				bestT = (scores[idx[k]] + scores[idx[j]]) / 2
			} else {
				bestT = scores[idx[k]] + 1
			}
		}
		k = j
	}
	return bestT
}

func linear(bias float64, w []float32, e example) float64 {
	var s float64
	for _, x := range e.feats {
		v := float64(w[x>>1])
		if x&1 != 0 {
			v = -v
		}
		s += v
	}
	return bias + s*e.scale
}

// fit trains logistic regression with AdaGrad on the examples at idx.
func fit(examples []example, idx []int, opts TrainOptions, stream uint64) (float64, []float32) {
	return fitScaled(examples, idx, nil, opts, stream)
}

// fitPlatt fits p = sigmoid(A·s + B) to scores and labels by Newton's
// method on the log loss with Platt's smoothed targets, optionally with
// class-balanced sample weights.
func fitPlatt(scores []float64, labels []bool, balanced bool) platt {
	var nPos, nNeg float64
	for _, l := range labels {
		if l {
			nPos++
		} else {
			nNeg++
		}
	}
	tPos, tNeg := (nPos+1)/(nPos+2), 1/(nNeg+2)
	wPos, wNeg := 1.0, 1.0
	if balanced {
		n := nPos + nNeg
		wPos, wNeg = n/(2*nPos), n/(2*nNeg)
	}
	a, b := 1.0, 0.0
	loss := func(a, b float64) float64 {
		var l float64
		for i, s := range scores {
			t, sw := tNeg, wNeg
			if labels[i] {
				t, sw = tPos, wPos
			}
			z := a*s + b
			// log(1+exp(z)) - t·z, computed stably.
			l += sw * (math.Max(z, 0) + math.Log1p(math.Exp(-math.Abs(z))) - t*z)
		}
		return l
	}
	cur := loss(a, b)
	for range 100 {
		var ga, gb, haa, hab, hbb float64
		for i, s := range scores {
			t, sw := tNeg, wNeg
			if labels[i] {
				t, sw = tPos, wPos
			}
			p := sigmoid(a*s + b)
			d := sw * (p - t)
			ga += d * s
			gb += d
			h := sw * p * (1 - p)
			haa += h * s * s
			hab += h * s
			hbb += h
		}
		haa += 1e-12
		hbb += 1e-12
		det := haa*hbb - hab*hab
		if det <= 0 {
			break
		}
		da := (hbb*ga - hab*gb) / det
		db := (haa*gb - hab*ga) / det
		step := 1.0
		for step > 1e-10 {
			na, nb := a-step*da, b-step*db
			if nl := loss(na, nb); nl < cur {
				a, b, cur = na, nb, nl
				break
			}
			step /= 2
		}
		if step <= 1e-10 || math.Abs(da)+math.Abs(db) < 1e-10 {
			break
		}
	}
	return platt{A: a, B: b}
}
