package evaluators

import (
	"context"
	"strings"
	"testing"
)

func TestProfanityDetector(t *testing.T) {
	tests := []struct {
		name string
		text string
		want bool
	}{
		{"plain", "This is bullshit.", true},
		{"leetspeak", "you are full of sh1t", true},
		{"at sign", "f@ck off", true},
		{"spaced", "f u c k this", true},
		{"dotted", "s.h.i.t", true},
		{"repeated", "fuuuuuuck", true},
		{"accented", "fück", true},
		{"clean", "Please review the attached quarterly report before Monday.", false},
		{"scunthorpe", "Scunthorpe United won on Saturday.", false},
		{"assassin", "The assassin escaped.", false},
		{"cocktail", "A cocktail party at eight.", false},
		{"class", "First class tickets are sold out.", false},
		{"grape", "Grape harvest starts in September.", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := Evaluate(context.Background(), "profanity-detector", map[string]any{"text": tt.text}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if got := res["has_profanity"]; got != tt.want {
				t.Errorf("has_profanity(%q) = %v, want %v", tt.text, got, tt.want)
			}
		})
	}
}

func TestProfanityDetectorBadInput(t *testing.T) {
	_, err := Evaluate(context.Background(), "profanity-detector", map[string]any{"text": 3.0}, nil)
	if KindOf(err) != KindInvalidInput || !strings.Contains(err.Error(), "input.text must be a string") {
		t.Fatalf("error = %v, want invalid input about input.text", err)
	}
}
