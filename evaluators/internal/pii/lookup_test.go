package pii

import (
	"strings"
	"testing"
)

// TestStackLookups checks that the allocation-free set lookups agree with
// the allocating forms they replace, on short, long and non-ASCII words.
func TestStackLookups(t *testing.T) {
	set := map[string]bool{
		"john": true, "soros": true, "street": true, "producer": true,
		strings.Repeat("a", 40): true, strings.Repeat("b", shortWord): true, "straße": true, "\u0130stanbul": true,
	}
	tests := []struct {
		name, word string
	}{
		{"capitalised ascii", "John"},
		{"upper ascii", "PRODUCER"},
		{"absent", "Railway"},
		{"empty", ""},
		{"diacritics", "Sörös"},
		{"long ascii", strings.Repeat("A", 40)},
		{"sharp s", "Straße"},
		{"dotted capital I", "\u0130STANBUL"},
		{"kelvin sign", "\u212aelvin"},
		{"exactly the buffer", strings.Repeat("B", shortWord)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got, want := inFolded(set, tt.word), set[foldName(tt.word)]; got != want {
				t.Errorf("inFolded(%q) = %v, set[foldName] = %v", tt.word, got, want)
			}
			if got, want := inLower(set, tt.word), set[strings.ToLower(tt.word)]; got != want {
				t.Errorf("inLower(%q) = %v, set[strings.ToLower] = %v", tt.word, got, want)
			}
		})
	}
}

func TestWithoutPossessive(t *testing.T) {
	tests := []struct{ in, want string }{
		{"John's", "John"},
		{"John’s", "John"},
		{"JOHN'S", "JOHN"},
		{"Johns", "Johns"},
		{"'s", ""},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			if got := withoutPossessive(tt.in); got != tt.want {
				t.Errorf("withoutPossessive(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}
