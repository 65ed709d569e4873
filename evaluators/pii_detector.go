package evaluators

import (
	"context"
	"strings"

	"github.com/evalcol/evalcol/evaluators/internal/pii"
)

var piiDetector = Definition{
	Slug:        "pii-detector",
	Category:    CategorySecurity,
	Description: "Detects personal data as Presidio labels it: person names, locations, organisations, dates and times, ages, nationalities and religious or political groups, job titles, zip codes, street addresses, emails, phone numbers, credit cards, IBANs, national ids, IP and MAC addresses, URLs and crypto wallets. config.entities narrows it to the types that matter to you.",
	Inputs:      []Field{textInput("text", "Text", "The text to scan for personal data.")},
	Config: []Field{{
		Name: "probability_threshold", Type: TypeNumber, Default: 0.7, Min: &zero, Max: &one,
		Label:       "Probability threshold",
		Description: "Minimum recognizer score in 0..1 for an entity to count, as Presidio's score threshold.",
	}, {
		Name: "entities", Type: TypeString,
		Label:       "Entity types",
		Description: "The entity types to report, comma-separated Presidio names (e.g. \"EMAIL_ADDRESS,PHONE_NUMBER,CREDIT_CARD\"); empty or absent: every type. Known: " + strings.Join(pii.Types(), ", ") + ".",
	}},
	Outputs:  []Field{boolOutput("has_pii", "Has PII", "Whether at least one entity of the reported types scored at or above the threshold.")},
	Side:     SideExchange,
	Score:    "has_pii",
	PassDoc:  "has_pii == false",
	run:      runPII,
	explain:  explainPII,
	validate: checkPIIConfig,
	pass:     passWhenFalse("has_pii"),
}

// runPII runs the recognizers of package pii and reports whether any
// entity of the requested types scores at least the probability threshold.
func runPII(_ context.Context, req Request) (Result, error) {
	types, err := piiTypes(req.String("entities"))
	if err != nil {
		return nil, err
	}
	return Result{"has_pii": pii.HasPIIOf(req.Text("text"), req.Float("probability_threshold"), types)}, nil
}

// explainPII lists the entities that made has_pii true: type, offsets,
// text, score and recognizer. A text without PII has no explanation.
func explainPII(_ context.Context, req Request, res Result) *Explanation {
	if has, _ := res["has_pii"].(bool); !has {
		return nil
	}
	types, err := piiTypes(req.String("entities"))
	if err != nil {
		return nil
	}
	text, threshold := req.Text("text"), req.Float("probability_threshold")
	var fs []Finding
	for _, e := range pii.AnalyzeTypes(text, types) {
		if e.Score < threshold {
			continue
		}
		fs = append(fs, Finding{Kind: e.Type, Input: "text", Start: e.Start, End: e.End, Text: clip(text, e.Start, e.End), Score: e.Score, Source: e.Recognizer})
	}
	return &Explanation{Summary: kindsSummary("PII found", fs), Findings: fs}
}

// piiTypes parses config.entities (pii.ParseTypes: "" is every type).
func piiTypes(list string) (pii.TypeSet, error) {
	set, err := pii.ParseTypes(list)
	if err != nil {
		return 0, invalidf("config.entities", "config.entities: %v", err)
	}
	return set, nil
}

// checkPIIConfig validates config.entities, so that a bad list is a 400
// (or a monitor that does not start) before any text is scanned.
func checkPIIConfig(config map[string]any) error {
	s, _ := config["entities"].(string)
	_, err := piiTypes(s)
	return err
}

// PIIContactEntities is the entities list of the default configuration's
// safety monitor: the types that make a chat unsafe to log (contact
// details, identity documents, card, bank and wallet numbers), not the
// places, organisations, dates and famous names ordinary questions are
// made of. evaluators/QUALITY.md measures its flag rate on ordinary chat.
const PIIContactEntities = "EMAIL_ADDRESS,PHONE_NUMBER,STREET_ADDRESS,CREDIT_CARD,IBAN_CODE,CRYPTO,US_SSN,US_ITIN,US_PASSPORT,US_DRIVER_LICENSE"
