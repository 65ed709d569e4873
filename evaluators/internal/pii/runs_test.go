package pii

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// TestByteRunsFindTheSameMatches checks, for every pattern narrowed with
// byteRuns, that searching the runs finds exactly the matches of
// searching the whole text: on hand-picked edge cases (word characters and
// multi-byte letters next to a run, runs at the ends of the text) and on
// random texts built from fragments.
func TestByteRunsFindTheSameMatches(t *testing.T) {
	narrowed := []pattern{
		{re: emailPattern, runs: newByteRuns(emailBytes, "@")},
		{re: ssnDelimited, runs: newByteRuns(digitBytes+"- .", digitBytes)},
		{re: nineDigits, runs: newByteRuns(digitBytes, digitBytes)},
	}
	texts := []string{
		"mail jane.doe@example.com now", "jane@example.com", "éjane@example.com", "x@y.co,z@w.org", "a@b@c.de",
		"über@beispiel.de", "name@host.example.com.", "@@", "ssn 078-05-1120.", "078-05-1120", "a078-05-1120", "078-05-11200",
		"1 078 05 1120 2", "123456789", "x123456789", "é123456789é", "12345678 9", "078.05.1120 and 219-09-9999",
	}
	fragments := []string{"jane", ".", "@", "example", ".com", " ", "é", "a", "0", "123", "-", "45", "6789", "_", "+", ",", "ü", "\t", "9"}
	rng := rand.New(rand.NewPCG(7, 11))
	for range 3000 {
		var b strings.Builder
		for range 1 + rng.IntN(14) {
			b.WriteString(fragments[rng.IntN(len(fragments))])
		}
		texts = append(texts, b.String())
	}
	for _, p := range narrowed {
		for _, text := range texts {
			var whole [][2]int
			for _, m := range p.re.FindAllStringIndex(text, -1) {
				whole = append(whole, [2]int{m[0], m[1]})
			}
			var inRuns [][2]int
			p.runs.each(text, func(lo, hi int) {
				for _, m := range p.re.FindAllStringIndex(text[lo:hi], -1) {
					inRuns = append(inRuns, [2]int{m[0] + lo, m[1] + lo})
				}
			})
			if !slices.Equal(whole, inRuns) {
				t.Errorf("%s on %q: whole text %v, runs %v", p.re, text, whole, inRuns)
			}
		}
	}
}
