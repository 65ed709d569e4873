package evaluators

import (
	"context"
	"errors"
	"strings"
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

func TestPIIEntitiesConfig(t *testing.T) {
	contact := map[string]any{"entities": PIIContactEntities}
	cases := []struct {
		name string
		text string
		cfg  map[string]any
		want bool
	}{
		{"a country is PII by default", "What is the capital of France?", nil, true},
		{"a country is not a contact detail", "What is the capital of France?", contact, false},
		{"a language and a greeting", "Translate 'good morning' to Spanish", contact, false},
		{"a famous birth date", "Paul Simon was born on October 13, 1941 in Newark.", contact, false},
		{"an e-mail address", "Mail me at jane.doe@example.com tomorrow.", contact, true},
		{"a phone number in a reply", "Sure! You can reach the clinic on 541-714-1388.", contact, true},
		{"a card number", "My card 4111 1111 1111 1111 was charged twice.", contact, true},
		{"lower-case names and spaces", "Write to jane.doe@example.com", map[string]any{"entities": "email_address phone_number"}, true},
		{"only phone numbers asked for", "Write to jane.doe@example.com", map[string]any{"entities": "PHONE_NUMBER"}, false},
		{"an empty list is every type", "What is the capital of France?", map[string]any{"entities": " "}, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res, err := Evaluate(context.Background(), "pii-detector", map[string]any{"text": c.text}, c.cfg)
			if err != nil {
				t.Fatal(err)
			}
			if got := res["has_pii"]; got != c.want {
				t.Fatalf("has_pii = %v, want %v", got, c.want)
			}
		})
	}
}

func TestPIIEntitiesConfigRejectsUnknownTypes(t *testing.T) {
	_, err := Evaluate(context.Background(), "pii-detector", map[string]any{"text": "x"}, map[string]any{"entities": "EMAIL_ADDRESS, SHOE_SIZE"})
	var e *Error
	if !errors.As(err, &e) || e.Kind != KindInvalidInput || e.Field != "config.entities" {
		t.Fatalf("err = %v, want an invalid-input error on config.entities", err)
	}
	if !strings.Contains(e.Msg, `"SHOE_SIZE"`) || !strings.Contains(e.Msg, "EMAIL_ADDRESS") {
		t.Fatalf("message %q does not name the bad type and list the known ones", e.Msg)
	}
}

func TestPIIExplanation(t *testing.T) {
	d, _ := Lookup("pii-detector")
	text := "Hi, I'm in Paris. Mail jane.doe@example.com or call 541-714-1388."
	req, err := d.NewRequest(map[string]any{"text": text}, map[string]any{"entities": PIIContactEntities})
	if err != nil {
		t.Fatal(err)
	}
	res, err := d.Run(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	e := d.Explain(context.Background(), req, res)
	if e == nil {
		t.Fatal("no explanation of has_pii true")
	}
	want := map[string]string{"EMAIL_ADDRESS": "jane.doe@example.com", "PHONE_NUMBER": "541-714-1388"}
	if len(e.Findings) != len(want) {
		t.Fatalf("findings = %+v, want %d (Paris is not a contact detail)", e.Findings, len(want))
	}
	for _, f := range e.Findings {
		if text[f.Start:f.End] != want[f.Kind] || f.Text != want[f.Kind] {
			t.Errorf("%s at [%d,%d) = %q (text %q), want %q", f.Kind, f.Start, f.End, text[f.Start:f.End], f.Text, want[f.Kind])
		}
		if f.Input != "text" || f.Score < 0.7 || !strings.HasSuffix(f.Source, "Recognizer") {
			t.Errorf("finding %+v: want input text, score >= 0.7, a recognizer", f)
		}
	}
	if e.Summary != "PII found: EMAIL_ADDRESS, PHONE_NUMBER" {
		t.Errorf("summary = %q", e.Summary)
	}
	clean, _ := d.NewRequest(map[string]any{"text": "What is the capital of France?"}, map[string]any{"entities": PIIContactEntities})
	res, _ = d.Run(context.Background(), clean)
	if e := d.Explain(context.Background(), clean, res); e != nil {
		t.Errorf("a pass explained: %+v", e)
	}
}
