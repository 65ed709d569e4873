package evaluators

import "context"

var piiDetector = Definition{
	Slug:        "pii-detector",
	Category:    CategorySecurity,
	Description: "Detects personal data: emails, phone numbers, credit cards, IBANs, national ids, IP and MAC addresses, URLs, crypto wallets, dates of birth and person names.",
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

func runPII(ctx context.Context, req Request) (Result, error) {
	return nil, errNotImplemented
}
