package evaluators

import (
	"context"
	"testing"
)

func TestPIIDetector(t *testing.T) {
	cases := []struct {
		name      string
		text      string
		threshold any // nil: default 0.7
		want      bool
	}{
		{"email", "Write to jane.doe@example.com today.", nil, true},
		{"credit card passes Luhn", "My card 4111 1111 1111 1111 was charged.", nil, true},
		{"credit card fails Luhn", "My card 4111 1111 1111 1112 was charged.", nil, false},
		{"ssn with context", "Here's my SSN: 460-89-9847", nil, true},
		{"invalid ssn area", "Here's my SSN: 000-89-9847", nil, false},
		{"phone formatted", "Our number is 541-714-1388, ask for Sam.", nil, true},
		{"phone hidden by high threshold", "Our number is 541-714-1388.", 0.99, false},
		{"plain prose", "The weather was lovely and we walked along the river.", nil, false},
		{"invalid ip", "Ping 999.1.1.1 from the ip console.", nil, false},
		{"zero threshold flags weak matches", "Order 1234567 shipped.", 0.0, true},
		{"street address", "Please ship it to 221 Baker Street, Apt. 4.", nil, true},
		{"european street address", "The office moved to Villacher Strasse 89 last year.", nil, true},
		{"unit alone is below the default threshold", "Take the lift to Suite 501 upstairs.", nil, false},
		{"unit alone at a low threshold", "Take the lift to Suite 501 upstairs.", 0.4, true},
		{"known given name and surname", "Yesterday Helena Whitfield phoned the office.", nil, true},
		{"census surname after an unknown given name", "The keynote is by Zorvan Kowalczyk.", nil, true},
		// Presidio's label counts organisations, places, dates, ages,
		// groups, titles and zip codes as PII too (issue 18).
		{"organisation", "Russell Investments is a design agency.", nil, true},
		{"place", "We flew from San Jose to Los Angeles.", nil, true},
		{"dates", "He served from 2011 to 2017 and retired on 25 January 2018.", nil, true},
		{"lower-case place after a cue", "she moved to leipzig last year", nil, true},
		{"age", "I turned 41 today", nil, true},
		{"employer", "I work for Baxter-Holt.", nil, true},
		{"military address", "psc 1234 box 5678 apo ae 09876", nil, true},
		{"nationality", "My neighbours are Portuguese.", nil, true},
		{"capitalised English words are no names", "Capitalized words like Wisdom and Discipline are often mistaken with names.", nil, false},
		{"generic place", "Let's meet at the park after lunch.", nil, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var cfg map[string]any
			if c.threshold != nil {
				cfg = map[string]any{"probability_threshold": c.threshold}
			}
			res, err := Evaluate(context.Background(), "pii-detector", map[string]any{"text": c.text}, cfg)
			if err != nil {
				t.Fatal(err)
			}
			if got := res["has_pii"]; got != c.want {
				t.Errorf("has_pii(%q) = %v, want %v", c.text, got, c.want)
			}
		})
	}
}

func TestPIIDetectorBadThreshold(t *testing.T) {
	_, err := Evaluate(context.Background(), "pii-detector", map[string]any{"text": "x"}, map[string]any{"probability_threshold": 1.5})
	if KindOf(err) != KindInvalidInput {
		t.Fatalf("err = %v, want invalid input", err)
	}
	if want := "config.probability_threshold must be between 0 and 1, got 1.5"; err.Error() != want {
		t.Errorf("err = %q, want %q", err.Error(), want)
	}
}

func BenchmarkPIIDetectorProse(b *testing.B) {
	input := map[string]any{"text": prose1KB}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Evaluate(ctx, "pii-detector", input, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// prose1KB is about 1 KB of ordinary prose with capitalised words and
// numbers; under Presidio's label its weekday, month and years are
// DATE_TIME entities.
var prose1KB = `The annual report of the Northern Railway Company was published on Tuesday. It describes 
how the network carried 48 million passengers last year, up from 45 million, and how the new timetable 
cut the average delay to under four minutes. The board thanks the staff of the maintenance depots, whose 
work on the old viaducts kept the lines open through the winter storms. Investment in signalling will 
continue: 120 kilometres of track are due to be upgraded by 2027, and the workshops at the central yard 
will be extended. Ticket prices rise by 2.5 percent in March, less than inflation. The report also notes 
that the customer satisfaction survey improved for the third year in a row, with punctuality and 
cleanliness the most praised aspects. Passengers asked for more bicycle spaces and better information 
when trains are cancelled; both are part of the plan for next year. The chair closed by thanking the 
communities along the coast line for their patience during the summer engineering works.`
