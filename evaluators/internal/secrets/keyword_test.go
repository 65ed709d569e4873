package secrets

import (
	"strings"
	"testing"

	"github.com/evalcol/evalcol/internal/testcorpus"
)

// TestKeywordScanMatchesContains: the one-pass keyword scan agrees with a
// substring search per keyword on thousands of varied texts and on every
// keyword at the start, the end and alone.
func TestKeywordScanMatchesContains(t *testing.T) {
	texts := testcorpus.Texts()
	for _, k := range secretKeywords {
		texts = append(texts, k, "x"+k, k+"x", k[:len(k)-1], "see the "+k[:len(k)-1]+" and more")
	}
	found := 0
	for _, text := range texts {
		lower := asciiLower(text)
		want := false
		for _, k := range secretKeywords {
			want = want || strings.Contains(lower, k)
		}
		if got := hasSecretKeyword(lower); got != want {
			t.Fatalf("hasSecretKeyword(%q) = %v, want %v", lower, got, want)
		}
		if want {
			found++
		}
	}
	if found < 100 {
		t.Errorf("only %d texts hold a keyword", found)
	}
}
