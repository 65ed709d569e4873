package models

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// variedTexts returns n different texts of about size bytes made of
// pseudo-words, so that scoring them touches many weights, as a stream of
// real spans does (scoring one text over and over keeps its weights in
// the CPU cache and flatters the lookups).
func variedTexts(n, size int) []string {
	rng := rand.New(rand.NewPCG(1, 2))
	texts := make([]string, n)
	for i := range texts {
		var b strings.Builder
		for b.Len() < size {
			for range 2 + rng.IntN(7) {
				b.WriteByte(byte('a' + rng.IntN(26)))
			}
			b.WriteByte(' ')
		}
		texts[i] = b.String()[:size]
	}
	return texts
}

// BenchmarkScoreVaried1KB scores different 1 KB texts with the embedded
// toxicity model (2^20 weights).
func BenchmarkScoreVaried1KB(b *testing.B) {
	m, err := Load("toxicity")
	if err != nil {
		b.Fatal(err)
	}
	texts := variedTexts(512, 1024)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		m.Score(texts[i%len(texts)])
		i++
	}
}
