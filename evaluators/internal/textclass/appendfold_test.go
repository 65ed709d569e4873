package textclass

import "testing"

func TestAppendFoldMatchesFold(t *testing.T) {
	tests := []struct{ name, prefix, text string }{
		{"empty", "", ""},
		{"plain", "", "Hello,   World!"},
		{"leetspeak", "", "You are an 1d10t, f u c k off"},
		{"accents and full width", "", "Ｆüｃk the café"},
		{"keeps prefix", "x: ", "  Spaced   OUT  "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := string(AppendFold([]byte(tt.prefix), tt.text))
			if want := tt.prefix + Fold(tt.text); got != want {
				t.Errorf("AppendFold(%q, %q) = %q, want %q", tt.prefix, tt.text, got, want)
			}
		})
	}
}
