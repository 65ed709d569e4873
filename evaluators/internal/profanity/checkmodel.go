package profanity

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"strings"
	"unicode"
	"unicode/utf8"
)

// checkModel is the profanity-check 1.0.3 classifier (CountVectorizer +
// CalibratedClassifierCV of 5 LinearSVC folds with sigmoid calibration).
type checkModel struct {
	vocab map[string]int32
	folds []Fold
}

// Fold is one calibrated fold of profanity-check: p = 1/(1+exp(A·d+B)) with
// d = Intercept + Coef·counts.
type Fold struct {
	Coef            []float64
	Intercept, A, B float64
}

// probability is predict_proba(text)[:, 1] of profanity-check: the mean
// over folds of 1/(1+exp(a·d+b)), d = intercept + coef·counts, where counts
// are the vocabulary tokens of lower-cased text (runs of two or more
// letters, digits or underscores).
func (m *checkModel) probability(text string) float64 {
	lower := strings.ToLower(text)
	var d [8]float64
	nf := len(m.folds)
	for k := range nf {
		d[k] = m.folds[k].Intercept
	}
	forEachToken(lower, func(tok string) {
		j, ok := m.vocab[tok]
		if !ok {
			return
		}
		for k := range nf {
			d[k] += m.folds[k].Coef[j]
		}
	})
	var p float64
	for k, f := range m.folds {
		p += 1 / (1 + math.Exp(f.A*d[k]+f.B))
	}
	return p / float64(nf)
}

// forEachToken calls fn for every run of at least two characters of
// [\p{L}\p{N}_] in s: the Go equivalent of Python's (?u)\b\w\w+\b.
func forEachToken(s string, fn func(string)) {
	start, n := -1, 0
	for i, r := range s {
		if unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.N, r) || r == '_' {
			if start < 0 {
				start, n = i, 0
			}
			n++
			continue
		}
		if start >= 0 && n >= 2 {
			fn(s[start:i])
		}
		start = -1
	}
	if start >= 0 && n >= 2 {
		fn(s[start:])
	}
}

// Binary form of the weights (little endian), written by
// `go run ./evaluators/internal/train profanity`:
//
//	"PCHK" nVocab(uint32) nFolds(uint32)
//	nVocab × (uvarint length, token bytes), in column order
//	nFolds × (intercept, a, b float64; nVocab × coef float64)
const checkMagic = "PCHK"

// maxFolds bounds the folds a model may have (the fold sums live on the
// stack).
const maxFolds = 8

func loadCheckModel(data []byte) (*checkModel, error) {
	r := bytes.NewReader(data)
	head := make([]byte, len(checkMagic)+8)
	if _, err := r.Read(head); err != nil || string(head[:4]) != checkMagic {
		return nil, errors.New("profanity-check weights: bad magic")
	}
	nVocab := binary.LittleEndian.Uint32(head[4:])
	nFolds := binary.LittleEndian.Uint32(head[8:])
	if nFolds == 0 || nFolds > maxFolds || nVocab == 0 || nVocab > 1<<24 {
		return nil, fmt.Errorf("profanity-check weights: bad sizes (%d tokens, %d folds)", nVocab, nFolds)
	}
	m := &checkModel{vocab: make(map[string]int32, nVocab)}
	for i := range nVocab {
		n, err := binary.ReadUvarint(r)
		if err != nil || n > 1024 {
			return nil, fmt.Errorf("profanity-check weights: token %d: bad length", i)
		}
		tok := make([]byte, n)
		if _, err := r.Read(tok); err != nil || !utf8.Valid(tok) {
			return nil, fmt.Errorf("profanity-check weights: token %d: truncated or not UTF-8", i)
		}
		m.vocab[string(tok)] = int32(i)
	}
	readF := func() (float64, error) {
		var b [8]byte
		if _, err := r.Read(b[:]); err != nil {
			return 0, err
		}
		return math.Float64frombits(binary.LittleEndian.Uint64(b[:])), nil
	}
	for k := range nFolds {
		f := Fold{Coef: make([]float64, nVocab)}
		for _, p := range []*float64{&f.Intercept, &f.A, &f.B} {
			v, err := readF()
			if err != nil {
				return nil, fmt.Errorf("profanity-check weights: fold %d: truncated", k)
			}
			*p = v
		}
		for j := range f.Coef {
			v, err := readF()
			if err != nil {
				return nil, fmt.Errorf("profanity-check weights: fold %d: truncated", k)
			}
			f.Coef[j] = v
		}
		m.folds = append(m.folds, f)
	}
	if r.Len() != 0 {
		return nil, fmt.Errorf("profanity-check weights: %d trailing bytes", r.Len())
	}
	return m, nil
}

// EncodeWeights writes the profanity-check vocabulary (tokens in column
// order) and folds in the binary form the package embeds.
func EncodeWeights(tokens []string, folds []Fold) []byte {
	var b []byte
	b = append(b, checkMagic...)
	b = binary.LittleEndian.AppendUint32(b, uint32(len(tokens)))
	b = binary.LittleEndian.AppendUint32(b, uint32(len(folds)))
	for _, t := range tokens {
		b = binary.AppendUvarint(b, uint64(len(t)))
		b = append(b, t...)
	}
	for _, f := range folds {
		for _, v := range append([]float64{f.Intercept, f.A, f.B}, f.Coef...) {
			b = binary.LittleEndian.AppendUint64(b, math.Float64bits(v))
		}
	}
	return b
}
