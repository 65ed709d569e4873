package pii

import (
	"strings"
	"testing"
)

// prose1KB is about 1 KB of ordinary prose with capitalised words and
// numbers but no personal data.
var prose1KB = strings.Repeat("The annual report of the Northern Railway Company was published on Tuesday; it says 48 million passengers travelled in 2025. ", 8)

// mixed1KB is about 1 KB of text holding several entities.
var mixed1KB = strings.Repeat("Dear team, please call John Whitfield on 541-714-1388 or mail jane.doe@example.com about card 4111 1111 1111 1111. ", 8)

func BenchmarkAnalyzeProse1KB(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		Analyze(prose1KB)
	}
}

func BenchmarkAnalyzeMixed1KB(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		Analyze(mixed1KB)
	}
}
