package textclass

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sync"
)

// Stack is a stacked ensemble: several hashed n-gram models (members, each
// trained on its own target, e.g. the main label or one fine-grained
// category) and optional hand-written lexicon features, combined by a
// small logistic regression fit on the members' out-of-fold scores. All
// members share one normalisation, so a text is normalised once per call.
// A Stack is safe for concurrent use.
type Stack struct {
	norm    NormOptions
	members []*Model
	lexicon *Lexicon  // nil: no lexicon features
	coef    []float64 // one per member score, then one per lexicon feature
	bias    float64
	bufs    sync.Pool // *[]byte normalisation buffers
}

// StackMember describes one member model of a Stack.
type StackMember struct {
	// Features of the member; Features.Norm is ignored (the Stack's
	// normalisation applies).
	Features Features
	// Target is the index of the member's labels in TrainStack's targets.
	Target int
}

// StackOptions are the options of TrainStack.
type StackOptions struct {
	// Norm is the normalisation shared by every member and the lexicon.
	Norm NormOptions
	// Members lists the member models (at least one).
	Members []StackMember
	// GenderLexicon adds the features of NewGenderLexicon to the combiner.
	GenderLexicon bool
	// NBAlpha, when positive, scales each member's features by their
	// naive-Bayes log-count ratio with this smoothing (NB-LR, Wang and
	// Manning 2012); 0 trains plain logistic regression.
	NBAlpha float64
	// Epochs, LearningRate, L2 and Seed train each member as in
	// TrainOptions (same defaults).
	Epochs       int
	LearningRate float64
	L2           float64
	Seed         int64
	// Folds is the number of cross-fitting folds for the out-of-fold
	// member scores (default 5, minimum 2).
	Folds int
	// CombinerL2 is the ridge penalty of the combiner (default 1).
	CombinerL2 float64
	// MacroF1OperatingPoint shifts the combiner's bias so that 0.5 is the
	// threshold of best macro-F1 on its out-of-fold scores (as in
	// TrainOptions).
	MacroF1OperatingPoint bool
}

// StackReport holds out-of-fold figures measured while training a Stack:
// every figure is on texts the scoring model did not see.
type StackReport struct {
	// MemberAUC is the ROC AUC of each member's out-of-fold score against
	// the main label (targets[0]).
	MemberAUC []float64
	// AUC and MacroF1 are the ROC AUC and the macro-F1 at probability 0.5
	// of the stacked model's out-of-fold probabilities, where the combiner
	// and its operating point were fit on the other folds.
	AUC, MacroF1 float64
}

// TrainStack fits a Stack to texts. targets[0] holds the labels the Stack
// predicts; members may be trained on other rows of targets (e.g.
// one-vs-rest fine-grained categories). It is deterministic.
func TrainStack(texts []string, targets [][]bool, opts StackOptions) (*Stack, StackReport, error) {
	var rep StackReport
	if len(targets) == 0 || len(opts.Members) == 0 {
		return nil, rep, errors.New("textclass: train stack: need at least one target and one member")
	}
	for t, labels := range targets {
		if len(labels) != len(texts) {
			return nil, rep, fmt.Errorf("textclass: train stack: target %d has %d labels for %d texts", t, len(labels), len(texts))
		}
		if !hasBothClasses(labels) {
			return nil, rep, fmt.Errorf("textclass: train stack: target %d needs positive and negative examples", t)
		}
	}
	if opts.Folds < 2 {
		opts.Folds = 5
	}
	if opts.CombinerL2 <= 0 {
		opts.CombinerL2 = 1
	}
	if len(texts) < opts.Folds {
		return nil, rep, fmt.Errorf("textclass: train stack: %d texts, fewer than %d folds", len(texts), opts.Folds)
	}
	for i, mb := range opts.Members {
		mb.Features.Norm = opts.Norm
		if err := mb.Features.validate(); err != nil {
			return nil, rep, fmt.Errorf("textclass: train stack: member %d: %w", i, err)
		}
		if mb.Target < 0 || mb.Target >= len(targets) {
			return nil, rep, fmt.Errorf("textclass: train stack: member %d: target %d outside 0..%d", i, mb.Target, len(targets)-1)
		}
	}
	normalized := make([][]byte, len(texts))
	for i, t := range texts {
		normalized[i] = appendNormalized(nil, t, opts.Norm)
	}
	rng := rand.New(rand.NewPCG(uint64(opts.Seed), 0x9e3779b97f4a7c15))
	perm := rng.Perm(len(texts))
	fold := make([]int, len(texts))
	for i := range fold {
		fold[i] = perm[i] % opts.Folds
	}

	s := &Stack{norm: opts.Norm}
	nFeat := len(opts.Members)
	if opts.GenderLexicon {
		s.lexicon = NewGenderLexicon()
		nFeat += GenderLexiconFeatures
	}
	X := make([][]float64, len(texts))
	for i := range X {
		X[i] = make([]float64, nFeat)
	}
	for k, mb := range opts.Members {
		f := mb.Features
		f.Norm = opts.Norm
		m, oof := trainMember(normalized, targets[mb.Target], fold, f, opts)
		s.members = append(s.members, m)
		for i := range X {
			X[i][k] = oof[i]
		}
		rep.MemberAUC = append(rep.MemberAUC, rocAUC(oof, targets[0]))
	}
	if s.lexicon != nil {
		for i, b := range normalized {
			s.lexicon.features(b, X[i][len(opts.Members):])
		}
	}

	// Out-of-fold combiner scores, for the report and the operating point.
	labels := targets[0]
	meta := make([]float64, len(texts))
	var tp, fp, fn, tn float64
	for k := range opts.Folds {
		var xs [][]float64
		var ys []bool
		for i := range X {
			if fold[i] != k {
				xs = append(xs, X[i])
				ys = append(ys, labels[i])
			}
		}
		coef, bias := fitDenseLR(xs, ys, opts.CombinerL2)
		inner := make([]float64, len(xs))
		for i, x := range xs {
			inner[i] = dot(coef, x) + bias
		}
		shift := 0.0
		if opts.MacroF1OperatingPoint {
			shift = bestMacroF1Threshold(inner, ys)
		}
		for i := range X {
			if fold[i] == k {
				meta[i] = dot(coef, X[i]) + bias
				switch pred := meta[i] > shift; {
				case pred && labels[i]:
					tp++
				case pred:
					fp++
				case labels[i]:
					fn++
				default:
					tn++
				}
			}
		}
	}
	rep.AUC = rocAUC(meta, labels)
	rep.MacroF1 = (f1Score(tp, fp, fn) + f1Score(tn, fn, fp)) / 2

	s.coef, s.bias = fitDenseLR(X, labels, opts.CombinerL2)
	if opts.MacroF1OperatingPoint {
		s.bias -= bestMacroF1Threshold(meta, labels)
	}
	return s, rep, nil
}

func hasBothClasses(labels []bool) bool {
	pos := 0
	for _, l := range labels {
		if l {
			pos++
		}
	}
	return pos > 0 && pos < len(labels)
}

func f1Score(tp, fp, fn float64) float64 {
	if tp == 0 {
		return 0
	}
	return 2 * tp / (2*tp + fp + fn)
}

func dot(a, b []float64) float64 {
	var s float64
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}

// trainMember trains one member on normalised texts: out-of-fold linear
// scores from cross-fitting, and the final model on all texts (weights
// rounded through float16, NB ratios folded into the weights).
func trainMember(normalized [][]byte, labels []bool, fold []int, f Features, opts StackOptions) (*Model, []float64) {
	to := TrainOptions{Features: f, L2: opts.L2, Epochs: opts.Epochs, LearningRate: opts.LearningRate, Seed: opts.Seed}.withDefaults()
	examples := make([]example, len(normalized))
	for i, b := range normalized {
		feats, scale := f.collect(b, nil)
		examples[i] = example{feats: feats, scale: scale, label: labels[i]}
	}
	train := func(idx []int, stream uint64) (float64, []float32) {
		if opts.NBAlpha <= 0 {
			return fit(examples, idx, to, stream)
		}
		r := nbRatios(examples, idx, f.HashBits, opts.NBAlpha)
		bias, w := fitScaled(examples, idx, r, to, stream)
		for j := range w {
			w[j] *= r[j]
		}
		return bias, w
	}
	oof := make([]float64, len(normalized))
	folds := slices.Max(fold) + 1
	for k := range folds {
		var idx []int
		for i := range fold {
			if fold[i] != k {
				idx = append(idx, i)
			}
		}
		bias, w := train(idx, uint64(k+1))
		for i := range fold {
			if fold[i] == k {
				oof[i] = linear(bias, w, examples[i])
			}
		}
	}
	all := make([]int, len(normalized))
	for i := range all {
		all[i] = i
	}
	bias, w := train(all, 0)
	for j := range w {
		w[j] = halfToFloat32(float32ToHalf(w[j]))
	}
	return &Model{features: f, bias: bias, weights: w, platt: platt{A: 1}}, oof
}

// fitDenseLR fits L2-regularised logistic regression (penalty lambda on
// the coefficients, not the bias) to dense rows by Newton's method.
func fitDenseLR(X [][]float64, y []bool, lambda float64) ([]float64, float64) {
	d := len(X[0]) + 1 // last: bias
	w := make([]float64, d)
	g := make([]float64, d)
	H := make([][]float64, d)
	for i := range H {
		H[i] = make([]float64, d+1)
	}
	xe := make([]float64, d)
	for range 50 {
		clear(g)
		for i := range H {
			clear(H[i])
		}
		for i, x := range X {
			copy(xe, x)
			xe[d-1] = 1
			p := sigmoid(dot(w, xe))
			t := 0.0
			if y[i] {
				t = 1
			}
			h := p * (1 - p)
			for a := range d {
				g[a] += (p - t) * xe[a]
				for b := range d {
					H[a][b] += h * xe[a] * xe[b]
				}
			}
		}
		for a := 0; a < d-1; a++ {
			g[a] += lambda * w[a]
			H[a][a] += lambda
		}
		H[d-1][d-1] += 1e-9
		for a := range d {
			H[a][d] = g[a]
		}
		step := solveAugmented(H)
		var size float64
		for a := range d {
			w[a] -= step[a]
			size += math.Abs(step[a])
		}
		if size < 1e-12 {
			break
		}
	}
	return w[:d-1], w[d-1]
}

// solveAugmented solves the linear system held by the n×(n+1) augmented
// matrix M (destroying M) by Gauss-Jordan elimination with partial
// pivoting.
func solveAugmented(M [][]float64) []float64 {
	n := len(M)
	for c := range n {
		piv := c
		for r := c + 1; r < n; r++ {
			if math.Abs(M[r][c]) > math.Abs(M[piv][c]) {
				piv = r
			}
		}
		M[c], M[piv] = M[piv], M[c]
		if M[c][c] == 0 {
			continue
		}
		for r := range n {
			if r != c && M[r][c] != 0 {
				f := M[r][c] / M[c][c]
				for k := c; k <= n; k++ {
					M[r][k] -= f * M[c][k]
				}
			}
		}
	}
	x := make([]float64, n)
	for i := range n {
		if M[i][i] != 0 {
			x[i] = M[i][n] / M[i][i]
		}
	}
	return x
}

// rocAUC returns the ROC AUC of scores against labels (ties count half).
func rocAUC(scores []float64, labels []bool) float64 {
	idx := make([]int, len(scores))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int {
		switch {
		case scores[a] < scores[b]:
			return -1
		case scores[a] > scores[b]:
			return 1
		}
		return 0
	})
	var pos, neg, rankSum float64
	for i := 0; i < len(idx); {
		j := i
		for j < len(idx) && scores[idx[j]] == scores[idx[i]] {
			j++
		}
		for k := i; k < j; k++ {
			if labels[idx[k]] {
				rankSum += float64(i+j+1) / 2
				pos++
			} else {
				neg++
			}
		}
		i = j
	}
	if pos == 0 || neg == 0 {
		return math.NaN()
	}
	return (rankSum - pos*(pos+1)/2) / (pos * neg)
}

// Probability returns the stacked probability that text is positive (with
// MacroF1OperatingPoint, 0.5 is the macro-F1 operating point).
func (s *Stack) Probability(text string) float64 {
	bp, _ := s.bufs.Get().(*[]byte)
	if bp == nil {
		b := make([]byte, 0, 4096)
		bp = &b
	}
	buf := appendNormalized((*bp)[:0], text, s.norm)
	z := s.bias
	for k, m := range s.members {
		z += s.coef[k] * m.scoreNormalized(buf)
	}
	if s.lexicon != nil {
		var lex [GenderLexiconFeatures]float64
		s.lexicon.features(buf, lex[:])
		z += dot(s.coef[len(s.members):], lex[:])
	}
	*bp = buf[:0]
	s.bufs.Put(bp)
	return sigmoid(z)
}

// Stack binary format (little endian):
//
//	"EVST" version(1) normFlags(1) lexicon(1) members(1)
//	per member: length(uint32) and the member's Model MarshalBinary bytes
//	bias and one coefficient per combiner input (float64 each)
const (
	stackMagic   = "EVST"
	stackVersion = 1
)

// MarshalBinary encodes the stack deterministically.
func (s *Stack) MarshalBinary() ([]byte, error) {
	var out bytes.Buffer
	out.WriteString(stackMagic)
	var flags, lex byte
	if s.norm.Fold {
		flags |= flagFold
	}
	if s.norm.StripSocial {
		flags |= flagSocial
	}
	if s.lexicon != nil {
		lex = 1
	}
	out.Write([]byte{stackVersion, flags, lex, byte(len(s.members))})
	for k, m := range s.members {
		b, err := m.MarshalBinary()
		if err != nil {
			return nil, fmt.Errorf("textclass: encode stack member %d: %w", k, err)
		}
		out.Write(binary.LittleEndian.AppendUint32(nil, uint32(len(b))))
		out.Write(b)
	}
	for _, v := range append([]float64{s.bias}, s.coef...) {
		out.Write(binary.LittleEndian.AppendUint64(nil, math.Float64bits(v)))
	}
	return out.Bytes(), nil
}

// LoadStack decodes a stack written by Stack.MarshalBinary.
func LoadStack(data []byte) (*Stack, error) {
	const head = len(stackMagic) + 4
	if len(data) < head || string(data[:len(stackMagic)]) != stackMagic {
		return nil, errors.New("textclass: not a stack (bad magic or too short)")
	}
	h := data[len(stackMagic):head]
	if h[0] != stackVersion {
		return nil, fmt.Errorf("textclass: unsupported stack format version %d (want %d)", h[0], stackVersion)
	}
	s := &Stack{norm: NormOptions{Fold: h[1]&flagFold != 0, StripSocial: h[1]&flagSocial != 0}}
	nIn := int(h[3])
	if h[2] != 0 {
		s.lexicon = NewGenderLexicon()
		nIn += GenderLexiconFeatures
	}
	if h[3] == 0 {
		return nil, errors.New("textclass: load stack: no members")
	}
	rest := data[head:]
	for k := range int(h[3]) {
		if len(rest) < 4 {
			return nil, fmt.Errorf("textclass: load stack member %d: truncated", k)
		}
		n := binary.LittleEndian.Uint32(rest)
		if uint64(len(rest)-4) < uint64(n) {
			return nil, fmt.Errorf("textclass: load stack member %d: truncated", k)
		}
		m, err := Load(rest[4 : 4+n])
		if err != nil {
			return nil, fmt.Errorf("textclass: load stack member %d: %w", k, err)
		}
		if m.features.Norm != s.norm {
			return nil, fmt.Errorf("textclass: load stack member %d: normalisation differs from the stack's", k)
		}
		s.members = append(s.members, m)
		rest = rest[4+n:]
	}
	if len(rest) != 8*(nIn+1) {
		return nil, fmt.Errorf("textclass: load stack: %d bytes of coefficients, want %d", len(rest), 8*(nIn+1))
	}
	s.bias = math.Float64frombits(binary.LittleEndian.Uint64(rest))
	s.coef = make([]float64, nIn)
	for i := range s.coef {
		s.coef[i] = math.Float64frombits(binary.LittleEndian.Uint64(rest[8*(i+1):]))
	}
	return s, nil
}

// EvaluateBinary returns the ROC AUC of scores against labels and the
// macro-F1 (mean F1 of both classes) when scores above threshold are
// predicted positive.
func EvaluateBinary(scores []float64, labels []bool, threshold float64) (auc, macroF1 float64) {
	var tp, fp, fn, tn float64
	for i, s := range scores {
		switch pred := s > threshold; {
		case pred && labels[i]:
			tp++
		case pred:
			fp++
		case labels[i]:
			fn++
		default:
			tn++
		}
	}
	return rocAUC(scores, labels), (f1Score(tp, fp, fn) + f1Score(tn, fn, fp)) / 2
}
