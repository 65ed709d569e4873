// Package wordvec holds pretrained English word vectors for the text
// evaluators: the 40,000 most frequent plain words of GloVe 6B (100
// dimensions, Public Domain Dedication and License; see MANIFEST.md),
// quantised to int8 with one scale per word and embedded in the binary
// (glove.bin.gz, written by gen_wordvec.go). The table is decoded once, on
// first use.
package wordvec

import (
	"bytes"
	"compress/gzip"
	_ "embed"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"sync"
)

// Dims is the number of dimensions of every vector.
const Dims = 100

//go:embed glove.bin.gz
var gloveData []byte

// Table maps words to vectors. A Table is immutable and safe for
// concurrent use.
type Table struct {
	index  map[string]int32
	scale  []float32 // per word: int8 unit → value
	norm   []float32 // per word: Euclidean norm of the dequantised vector
	values []int8    // Dims per word
}

// Default returns the embedded GloVe table, decoded on first use.
func Default() *Table {
	t, err := defaultTable()
	if err != nil {
		panic("wordvec: embedded table: " + err.Error())
	}
	return t
}

var defaultTable = sync.OnceValues(func() (*Table, error) { return Decode(gloveData) })

// Decode reads a table written by gen_wordvec.go: gzip of "EVWV",
// version (uint16, 1), dimensions (uint16), word count (uint32), the words
// (a length byte and the bytes each), then per word a float32 scale and
// its int8 values, all little endian.
func Decode(gz []byte) (*Table, error) {
	zr, err := gzip.NewReader(bytes.NewReader(gz))
	if err != nil {
		return nil, fmt.Errorf("wordvec: decode: %w", err)
	}
	raw, err := io.ReadAll(zr)
	if err != nil {
		return nil, fmt.Errorf("wordvec: decode: %w", err)
	}
	if len(raw) < 12 || string(raw[:4]) != "EVWV" {
		return nil, errors.New("wordvec: decode: not a word-vector table")
	}
	if v := binary.LittleEndian.Uint16(raw[4:]); v != 1 {
		return nil, fmt.Errorf("wordvec: decode: format version %d, want 1", v)
	}
	if d := binary.LittleEndian.Uint16(raw[6:]); d != Dims {
		return nil, fmt.Errorf("wordvec: decode: %d dimensions, want %d", d, Dims)
	}
	n := int(binary.LittleEndian.Uint32(raw[8:]))
	rest := raw[12:]
	t := &Table{index: make(map[string]int32, n), scale: make([]float32, n), norm: make([]float32, n), values: make([]int8, n*Dims)}
	for i := range n {
		if len(rest) < 1 || len(rest) < 1+int(rest[0]) {
			return nil, fmt.Errorf("wordvec: decode: word %d truncated", i)
		}
		t.index[string(rest[1:1+rest[0]])] = int32(i)
		rest = rest[1+rest[0]:]
	}
	if len(rest) != n*(4+Dims) {
		return nil, fmt.Errorf("wordvec: decode: %d bytes of vectors, want %d", len(rest), n*(4+Dims))
	}
	for i := range n {
		t.scale[i] = math.Float32frombits(binary.LittleEndian.Uint32(rest))
		var ss float32
		for j, b := range rest[4 : 4+Dims] {
			q := int8(b)
			t.values[i*Dims+j] = q
			ss += float32(q) * float32(q)
		}
		t.norm[i] = t.scale[i] * float32(math.Sqrt(float64(ss)))
		rest = rest[4+Dims:]
	}
	return t, nil
}

// Len is the number of words in the table.
func (t *Table) Len() int { return len(t.scale) }

// ID returns the index of the lower-case word w (its frequency rank among
// the table's words, 0 the most frequent), or -1 when w has no vector.
func (t *Table) ID(w string) int {
	if i, ok := t.index[w]; ok {
		return int(i)
	}
	return -1
}

// Each calls f with every word of the table and its ID, in no particular
// order.
func (t *Table) Each(f func(w string, id int)) {
	for w, i := range t.index {
		f(w, int(i))
	}
}

// Add adds weight × the vector of word id to dst (len Dims).
func (t *Table) Add(dst []float32, id int, weight float32) {
	s := weight * t.scale[id]
	v := t.values[id*Dims : id*Dims+Dims : id*Dims+Dims]
	dst = dst[:Dims]
	for j, q := range v {
		dst[j] += s * float32(q)
	}
}

// Vector writes the vector of word id to dst (len Dims).
func (t *Table) Vector(dst []float32, id int) {
	s := t.scale[id]
	v := t.values[id*Dims : id*Dims+Dims : id*Dims+Dims]
	dst = dst[:Dims]
	for j, q := range v {
		dst[j] = s * float32(q)
	}
}

// Cosine is the cosine of the vectors of words a and b.
func (t *Table) Cosine(a, b int) float32 {
	va := t.values[a*Dims : a*Dims+Dims : a*Dims+Dims]
	vb := t.values[b*Dims : b*Dims+Dims : b*Dims+Dims]
	var dot int32
	for j := range va {
		dot += int32(va[j]) * int32(vb[j])
	}
	na, nb := t.norm[a]/t.scale[a], t.norm[b]/t.scale[b]
	if na == 0 || nb == 0 {
		return 0
	}
	return float32(dot) / (na * nb)
}
