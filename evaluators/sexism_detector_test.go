package evaluators

import (
	"context"
	"strings"
	"testing"
)

func TestSexismDetector(t *testing.T) {
	tests := []struct {
		name      string
		text      string
		threshold any
		want      string
	}{
		{"kitchen", "Women belong in the kitchen, not in the office.", nil, UnsafeLabel},
		{"derogation", "All women are manipulative whores who only want money.", nil, UnsafeLabel},
		{"incompetence", "Females are too emotional to be leaders.", nil, UnsafeLabel},
		{"gendered slur", "Shut up, you stupid bitch.", nil, UnsafeLabel},
		{"generalisation", "Women are too stupid to vote and should stay quiet.", nil, UnsafeLabel},
		{"neutral", "The weather is lovely today and the kids are playing in the park.", nil, SafeLabel},
		{"neutral about a woman", "My sister just started her new job as an engineer in Berlin.", nil, SafeLabel},
		{"placeholders only", "[USER] [URL]", nil, SafeLabel},
		{"neutral about work", "Please review the attached quarterly report before Monday.", nil, SafeLabel},
		{"threshold 1 never flags", "Women belong in the kitchen, not in the office.", 1.0, SafeLabel},
		{"threshold 0 flags anything", "The weather is lovely today.", 0.0, UnsafeLabel},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var cfg map[string]any
			if tt.threshold != nil {
				cfg = map[string]any{"threshold": tt.threshold}
			}
			res, err := Evaluate(context.Background(), "sexism-detector", map[string]any{"text": tt.text}, cfg)
			if err != nil {
				t.Fatal(err)
			}
			if got := res["is_safe"]; got != tt.want {
				t.Errorf("is_safe(%q) = %v, want %v", tt.text, got, tt.want)
			}
		})
	}
}

func TestSexismDetectorMissingText(t *testing.T) {
	_, err := Evaluate(context.Background(), "sexism-detector", map[string]any{}, nil)
	if KindOf(err) != KindInvalidInput || !strings.Contains(err.Error(), "input.text is required") {
		t.Fatalf("error = %v, want invalid input about input.text", err)
	}
}

func BenchmarkSexismDetector1KB(b *testing.B) {
	req, err := sexismDetector.NewRequest(map[string]any{"text": benchText1KB()}, nil)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := sexismModel(); err != nil { // decode the model outside the timed loop
		b.Fatal(err)
	}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := sexismDetector.Run(ctx, req); err != nil {
			b.Fatal(err)
		}
	}
}
