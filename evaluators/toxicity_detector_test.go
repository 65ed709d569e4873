package evaluators

import (
	"context"
	"strings"
	"testing"
)

func TestToxicityDetector(t *testing.T) {
	tests := []struct {
		name      string
		text      string
		threshold any // nil: default 0.5
		want      string
	}{
		{"insult", "You are a stupid worthless idiot", nil, UnsafeLabel},
		{"obscene", "shut the fuck up you bitch", nil, UnsafeLabel},
		{"threat", "I will kill you", nil, UnsafeLabel},
		{"threat with adverb", "we are going to find you and we're gonna hurt you", nil, UnsafeLabel},
		{"kill yourself", "just go kill yourself", nil, UnsafeLabel},
		{"slur", "get out of here you wetback", nil, UnsafeLabel},
		{"leet slur", "k1ke", nil, UnsafeLabel},
		{"clean", "Thank you for the lovely dinner last night.", nil, SafeLabel},
		{"clean question", "What time does the library open on Sunday?", nil, SafeLabel},
		{"kill a process", "How do I kill a process on Linux?", nil, SafeLabel},
		{"threshold 1 never flags", "I will kill you", 1.0, SafeLabel},
		{"threshold 0 flags everything", "Thank you for the lovely dinner last night.", 0.0, UnsafeLabel},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var cfg map[string]any
			if tt.threshold != nil {
				cfg = map[string]any{"threshold": tt.threshold}
			}
			res, err := Evaluate(context.Background(), "toxicity-detector", map[string]any{"text": tt.text}, cfg)
			if err != nil {
				t.Fatal(err)
			}
			if got := res["is_safe"]; got != tt.want {
				t.Errorf("is_safe(%q) = %v, want %v", tt.text, got, tt.want)
			}
		})
	}
}

func TestToxicityDetectorBadThreshold(t *testing.T) {
	_, err := Evaluate(context.Background(), "toxicity-detector", map[string]any{"text": "hi"}, map[string]any{"threshold": 1.5})
	if KindOf(err) != KindInvalidInput || !strings.Contains(err.Error(), "config.threshold must be between 0 and 1") {
		t.Fatalf("error = %v, want invalid config.threshold", err)
	}
}

func BenchmarkToxicityDetector1KB(b *testing.B) {
	req, err := toxicityDetector.NewRequest(map[string]any{"text": benchText1KB()}, nil)
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := toxicityDetector.Run(ctx, req); err != nil {
			b.Fatal(err)
		}
	}
}

// benchText1KB is 1 KiB of ordinary English.
func benchText1KB() string {
	return strings.Repeat("The quick brown fox jumps over the lazy dog, again and again. ", 17)[:1024]
}
