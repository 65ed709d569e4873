package main

import (
	"context"
	"fmt"
	"time"

	"github.com/evalcol/evalcol/evaluators"
	"github.com/evalcol/evalcol/evaluators/internal/pii"
)

// piiRow is one record of pii/presidio-synth-a.jsonl.
type piiRow struct {
	Text     string `json:"text"`
	Label    bool   `json:"label"`
	Entities []struct {
		Type      string `json:"type"`
		ByteStart int    `json:"byte_start"`
		ByteEnd   int    `json:"byte_end"`
	} `json:"entities"`
}

const piiDataset = "pii/presidio-synth-a.jsonl"

// piiPatternedTypes are the gold types with a pattern recognizer of the
// same name, scored for entity-level recall.
var piiPatternedTypes = []string{pii.Email, pii.Phone, pii.CreditCard, pii.IBAN, pii.USSSN, pii.IPAddress}

// piiGoldTypes are the gold types that count as PII for has_pii: those the
// evaluator has a recognizer for (DOMAIN_NAME is our URL). Addresses, ages,
// dates, places, organisations, titles and nationalities are not detected,
// so a record holding only those counts as a negative.
var piiGoldTypes = map[string]string{
	"PERSON": pii.Person, "EMAIL_ADDRESS": pii.Email, "PHONE_NUMBER": pii.Phone, "CREDIT_CARD": pii.CreditCard,
	"IBAN_CODE": pii.IBAN, "US_SSN": pii.USSSN, "IP_ADDRESS": pii.IPAddress, "US_DRIVER_LICENSE": pii.USDriver,
	"DOMAIN_NAME": pii.URL,
}

// piiQuality scores pii-detector on the Presidio synthetic records:
// entity-level recall per type (a gold entity is found when an entity of
// its type scored at least the default threshold overlaps it) and has_pii
// against the label restricted to piiGoldTypes, and against the full label.
func piiQuality(dataDir string) ([]Report, error) {
	rows, err := readJSONL[piiRow](dataDir, piiDataset)
	if err != nil {
		return nil, err
	}
	ctx := context.Background()
	pred := make([]bool, len(rows))
	restricted := make([]bool, len(rows))
	full := make([]bool, len(rows))
	found := map[string]int{}
	total := map[string]int{}
	var elapsed time.Duration
	for i, row := range rows {
		t0 := time.Now()
		res, err := evaluators.Evaluate(ctx, "pii-detector", map[string]any{"text": row.Text}, nil)
		elapsed += time.Since(t0)
		if err != nil {
			return nil, fmt.Errorf("row %d: %w", i, err)
		}
		pred[i], _ = res["has_pii"].(bool)
		full[i] = row.Label
		entities := pii.Analyze(row.Text)
		for _, g := range row.Entities {
			typ, ok := piiGoldTypes[g.Type]
			if !ok {
				continue
			}
			restricted[i] = true
			total[g.Type]++
			for _, e := range entities {
				if e.Type == typ && e.Score >= pii.DefaultThreshold && e.Start < g.ByteEnd && g.ByteStart < e.End {
					found[g.Type]++
					break
				}
			}
		}
	}
	perCall := elapsed / time.Duration(len(rows))
	recall := map[string]float64{}
	var patFound, patTotal int
	for _, t := range piiPatternedTypes {
		recall["recall_"+t] = safeDiv(float64(found[t]), float64(total[t]))
		patFound += found[t]
		patTotal += total[t]
	}
	recall["recall_patterned"] = safeDiv(float64(patFound), float64(patTotal))
	other := map[string]float64{}
	for _, t := range []string{"PERSON", "US_DRIVER_LICENSE", "DOMAIN_NAME"} {
		other["recall_"+t] = safeDiv(float64(found[t]), float64(total[t]))
	}
	restrictedMetrics := binaryMetrics(pred, restricted)
	fullMetrics := binaryMetrics(pred, full)
	positives := 0
	for _, r := range restricted {
		if r {
			positives++
		}
	}
	split := "all 750 records (hand-written recognizers, no training; PERSON name list and cues revised after reading misses here, so in-sample)"
	return []Report{
		{
			Slug: "pii-detector", Dataset: piiDataset, Split: split, N: patTotal,
			Metrics: recall, Threshold: "0.7", PerCall: perCall, Target: "recall >= 0.90 per patterned type",
			Notes: "entity-level recall: a gold entity is found when a predicted entity of its type (score >= 0.7) overlaps it",
		},
		{
			Slug: "pii-detector", Dataset: piiDataset, Split: split, N: found["PERSON"] + found["US_DRIVER_LICENSE"] + found["DOMAIN_NAME"],
			Metrics: other, Threshold: "0.7", PerCall: perCall, Target: "(no target)",
			Notes: "entity-level recall of the other detected types (DOMAIN_NAME scored as URL); n = entities found",
		},
		{
			Slug: "pii-detector", Dataset: piiDataset, Split: split, N: len(rows),
			Metrics: restrictedMetrics, Threshold: "0.7", PerCall: perCall, Target: "f1 >= 0.95",
			Notes: fmt.Sprintf("has_pii vs. the label restricted to types we detect (PERSON, EMAIL, PHONE, CREDIT_CARD, IBAN, US_SSN, IP, US_DRIVER_LICENSE, DOMAIN_NAME): %d positive. Misses are mostly names without a cue or a known given name (no NER model); 3 of the false positives are dates after 'date of birth' that the data labels DATE_TIME", positives),
		},
		{
			Slug: "pii-detector", Dataset: piiDataset, Split: split, N: len(rows),
			Metrics: fullMetrics, Threshold: "0.7", PerCall: perCall, Target: "(reference)",
			Notes: "has_pii vs. the full label (any entity, including addresses, places, organisations, dates, ages)",
		},
	}, nil
}
