package textclass

import (
	"bytes"
	"compress/flate"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"sync"
)

// Model is a trained classifier: logistic regression over hashed features,
// followed by Platt scaling (p = sigmoid(A·score + B)) fit on held-out
// scores, so Probability is a calibrated P(positive). A Model is safe for
// concurrent use.
type Model struct {
	features Features
	bias     float64
	weights  []float32 // 2^HashBits, already rounded through float16
	platt    platt
	bufs     sync.Pool // *[]byte normalisation buffers
	feats    sync.Pool // *[]feature buffers of Score
	// half holds the weights as float16 bits, half the memory of
	// weights, so more of the table stays in the CPU caches; nil when a
	// weight is not a float16 value (see halfWeights).
	half     []uint16
	halfOnce sync.Once
	// windowScorers pools the prefix sums of MaxWindowProbability.
	windowScorers sync.Pool
	unitsOnce     sync.Once
	unitsInfo     weightUnits // see units
}

// platt holds the calibration p = sigmoid(A·score + B).
type platt struct{ A, B float64 }

func (c platt) apply(score float64) float64 { return sigmoid(c.A*score + c.B) }

func sigmoid(z float64) float64 {
	if z >= 0 {
		return 1 / (1 + math.Exp(-z))
	}
	e := math.Exp(z)
	return e / (1 + e)
}

// Features returns the feature options the model was trained with.
func (m *Model) Features() Features { return m.features }

// Probability returns the calibrated probability that text is positive.
func (m *Model) Probability(text string) float64 {
	return m.platt.apply(m.Score(text))
}

// Score returns the uncalibrated linear score (log-odds of the trained
// logistic regression) of text.
func (m *Model) Score(text string) float64 {
	bp, _ := m.bufs.Get().(*[]byte)
	if bp == nil {
		b := make([]byte, 0, 4096)
		bp = &b
	}
	buf := appendNormalized((*bp)[:0], text, m.features.Norm)
	score := m.scoreNormalized(buf)
	*bp = buf[:0]
	m.bufs.Put(bp)
	return score
}

// scoreNormalized is Score of already normalised text b.
func (m *Model) scoreNormalized(b []byte) float64 {
	b = collapseRepeats(nil, b)
	fp, _ := m.feats.Get().(*[]feature)
	if fp == nil {
		f := make([]feature, 0, 8192)
		fp = &f
	}
	feats := m.features.appendFeatures((*fp)[:0], b)
	sum := m.sumWeights(feats)
	count := len(feats)
	*fp = feats[:0]
	m.feats.Put(fp)
	if count == 0 {
		return m.bias
	}
	return m.bias + sum/math.Sqrt(float64(count))
}

// sumWeights adds up the signed weights of feats. The lookups are spread
// over the whole weight table, so most miss the CPU cache: gathering the
// features first and summing them in one tight loop lets the CPU have
// many lookups in flight at once, which the per-feature callback did not.
func (m *Model) sumWeights(feats []feature) float64 {
	if h := m.halfWeights(); h != nil {
		var sum float64
		for _, x := range feats {
			// The feature's sign bit flips the weight's: -v exactly.
			sum += float64(halfValues[h[x>>1]^uint16(x&1)<<15]) // in feature order
		}
		return sum
	}
	w := m.weights
	var sum float64
	for _, x := range feats {
		v := float64(w[x>>1])
		if x&1 != 0 {
			v = -v
		}
		sum += v // in feature order, so scores are bit-for-bit those of training
	}
	return sum
}

// halfWeights returns the weights as float16 bits, or nil when one of
// them is not a float16 value (the compact table would change it).
func (m *Model) halfWeights() []uint16 {
	m.halfOnce.Do(func() {
		h := make([]uint16, len(m.weights))
		for i, w := range m.weights {
			h[i] = float32ToHalf(w)
			if math.Float32bits(halfValues[h[i]]) != math.Float32bits(w) {
				return
			}
		}
		m.half = h
	})
	return m.half
}

// halfValues maps every float16 bit pattern to its float32 value.
var halfValues = func() *[1 << 16]float32 {
	var t [1 << 16]float32
	for i := range t {
		t[i] = halfToFloat32(uint16(i))
	}
	return &t
}()

// Binary format (little endian):
//
//	"EVTC" version(1) WordNgrams CharMinN CharMaxN HashBits flags  (1 byte each)
//	bias A B                                                      (float64 each)
//	raw-DEFLATE stream of 2^HashBits float16 weights
const (
	magic         = "EVTC"
	formatVersion = 1
	headerLen     = len(magic) + 6 + 3*8
	flagFold      = 1 << 0
	flagSocial    = 1 << 1
)

// MarshalBinary encodes the model compactly and deterministically: a
// fixed header and the weights as DEFLATE-compressed float16 values.
func (m *Model) MarshalBinary() ([]byte, error) {
	f := m.features
	var flags byte
	if f.Norm.Fold {
		flags |= flagFold
	}
	if f.Norm.StripSocial {
		flags |= flagSocial
	}
	var out bytes.Buffer
	out.WriteString(magic)
	out.Write([]byte{formatVersion, byte(f.WordNgrams), byte(f.CharMinN), byte(f.CharMaxN), byte(f.HashBits), flags})
	for _, v := range []float64{m.bias, m.platt.A, m.platt.B} {
		out.Write(binary.LittleEndian.AppendUint64(nil, math.Float64bits(v)))
	}
	zw, err := flate.NewWriter(&out, flate.BestCompression)
	if err != nil {
		return nil, fmt.Errorf("textclass: compress weights: %w", err)
	}
	raw := make([]byte, 2*len(m.weights))
	for i, w := range m.weights {
		binary.LittleEndian.PutUint16(raw[2*i:], float32ToHalf(w))
	}
	if _, err := zw.Write(raw); err != nil {
		return nil, fmt.Errorf("textclass: compress weights: %w", err)
	}
	if err := zw.Close(); err != nil {
		return nil, fmt.Errorf("textclass: compress weights: %w", err)
	}
	return out.Bytes(), nil
}

// Load decodes a model written by MarshalBinary.
func Load(data []byte) (*Model, error) {
	if len(data) < headerLen || string(data[:len(magic)]) != magic {
		return nil, errors.New("textclass: not a model (bad magic or too short)")
	}
	h := data[len(magic):]
	if h[0] != formatVersion {
		return nil, fmt.Errorf("textclass: unsupported model format version %d (want %d)", h[0], formatVersion)
	}
	f := Features{
		WordNgrams: int(h[1]), CharMinN: int(h[2]), CharMaxN: int(h[3]), HashBits: int(h[4]),
		Norm: NormOptions{Fold: h[5]&flagFold != 0, StripSocial: h[5]&flagSocial != 0},
	}
	if err := f.validate(); err != nil {
		return nil, fmt.Errorf("textclass: load: %w", err)
	}
	fl := h[6:]
	m := &Model{features: f}
	m.bias = math.Float64frombits(binary.LittleEndian.Uint64(fl[0:]))
	m.platt.A = math.Float64frombits(binary.LittleEndian.Uint64(fl[8:]))
	m.platt.B = math.Float64frombits(binary.LittleEndian.Uint64(fl[16:]))
	raw := make([]byte, 2<<f.HashBits)
	zr := flate.NewReader(bytes.NewReader(data[headerLen:]))
	if _, err := io.ReadFull(zr, raw); err != nil {
		return nil, fmt.Errorf("textclass: load weights: %w", err)
	}
	if n, _ := zr.Read(make([]byte, 1)); n != 0 {
		return nil, errors.New("textclass: load weights: trailing data after weights")
	}
	m.weights = make([]float32, 1<<f.HashBits)
	for i := range m.weights {
		m.weights[i] = halfToFloat32(binary.LittleEndian.Uint16(raw[2*i:]))
	}
	return m, nil
}
