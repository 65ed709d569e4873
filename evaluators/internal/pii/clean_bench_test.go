package pii

import (
	"strings"
	"testing"
)

// clean1KB is about 1 KB of prose without any entity (no name, place,
// date, number or organisation): the worst case of HasPII, which runs
// every recognizer to the end.
var clean1KB = strings.Repeat("Please restart the router, wait a moment and try again; if the light stays red, call us back and we will help you. ", 9)

func BenchmarkHasPIIClean1KB(b *testing.B) {
	for b.Loop() {
		HasPII(clean1KB, DefaultThreshold)
	}
}

func BenchmarkHasPIIProse1KB(b *testing.B) {
	for b.Loop() {
		HasPII(prose1KB, DefaultThreshold)
	}
}

func BenchmarkHasPIINames1KB(b *testing.B) {
	for b.Loop() {
		HasPII(names1KB, DefaultThreshold)
	}
}

// BenchmarkLexiconLoad measures the one-time load of the gazetteers
// (places, English words, NRP lexicon) on the first call.
func BenchmarkLexiconLoad(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		loadLexicons()
	}
}
