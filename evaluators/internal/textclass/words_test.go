package textclass

import "testing"

func TestHasWord(t *testing.T) {
	words := []string{"you", "mode", "u"}
	tests := []struct {
		s    string
		want bool
	}{
		{"are YOU there", true},
		{"developer Mode.", true},
		{"the model is abundant", false},
		{"youth and yours", false},
		{"i love u!", true},
		{"_you_", false},
		{"über-mode", true},
		{"", false},
		{"youmode", false},
	}
	for _, tt := range tests {
		if got := HasWord(tt.s, words); got != tt.want {
			t.Errorf("HasWord(%q) = %v, want %v", tt.s, got, tt.want)
		}
	}
}
