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

// names1KB is about 1 KB of prose about people and places, the worst case
// of the PERSON recognizer (every capitalised word is looked up).
var names1KB = strings.Repeat("Producer Helena Markovic met Jonas Whitfield in San Diego; Dr. Kowalczyk said the Northern Railway Company would pay. ", 8)

// addresses1KB is about 1 KB of text dense with street addresses, the
// worst case of the STREET_ADDRESS recognizer (every gate opens).
var addresses1KB = strings.Repeat("Ship to 221 Baker Street, Apt. 4, or Koskikatu 25, Rue Gafsa 62, P.O. Box 287; she lives at 9721 Dalmatinova 43. ", 8)

func BenchmarkAnalyzeNames1KB(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		Analyze(names1KB)
	}
}

func BenchmarkAnalyzeAddresses1KB(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		Analyze(addresses1KB)
	}
}

// BenchmarkNameListLoad measures building the surname set from the
// embedded gzip list, paid once per process on the first PERSON lookup.
func BenchmarkNameListLoad(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		loadSurnames()
	}
}

// digits1KB is about 1 KB of text dense with numbers: phone numbers,
// dates, amounts, order numbers and addresses of servers, the worst case
// of the PHONE_NUMBER recognizer (every run of digits is a candidate).
var digits1KB = strings.Repeat("Order 20240117 of 2024-01-17 10:42 cost $1,249.99 (ref 8837 2210 4471); host 10.20.30.40, call +44 20 7946 0958 or 555-0142. ", 8)

func BenchmarkAnalyzeDigits1KB(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		Analyze(digits1KB)
	}
}

// lists1KB is about 1 KB of lists of names and intersections, the worst
// case of the list, particle and corner rules.
var lists1KB = strings.Repeat("Talbeck, Kowalczyk and Whitfield were there; Zorvan van der Quell met us at the corner of Main and Elm. ", 10)

func BenchmarkAnalyzeLists1KB(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		Analyze(lists1KB)
	}
}
