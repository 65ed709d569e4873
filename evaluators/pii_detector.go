package evaluators

import (
	"context"

	"github.com/evalcol/evalcol/evaluators/internal/pii"
)

var piiDetector = Definition{
	Slug:        "pii-detector",
	Category:    CategorySecurity,
	Description: "Detects personal data as Presidio labels it: person names, locations, organisations, dates and times, ages, nationalities and religious or political groups, job titles, zip codes, street addresses, emails, phone numbers, credit cards, IBANs, national ids, IP and MAC addresses, URLs and crypto wallets.",
	Inputs:      []Field{textInput("text", "Text", "The text to scan for personal data.")},
	Config: []Field{{
		Name: "probability_threshold", Type: TypeNumber, Default: 0.7, Min: &zero, Max: &one,
		Label:       "Probability threshold",
		Description: "Minimum recognizer score in 0..1 for an entity to count, as Presidio's score threshold.",
	}},
	Outputs: []Field{boolOutput("has_pii", "Has PII", "Whether at least one entity scored at or above the threshold.")},
	Side:    SideInput,
	Score:   "has_pii",
	PassDoc: "has_pii == false",
	run:     runPII,
	pass:    passWhenFalse("has_pii"),
}

// runPII runs the recognizers of package pii and reports whether any
// entity scores at least the probability threshold.
func runPII(_ context.Context, req Request) (Result, error) {
	return Result{"has_pii": pii.HasPII(req.Text("text"), req.Float("probability_threshold"))}, nil
}
