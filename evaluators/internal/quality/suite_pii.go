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
	ID       int    `json:"id"`
	Template int    `json:"template_id"`
	Text     string `json:"text"`
	Label    bool   `json:"label"`
	Entities []struct {
		Type      string `json:"type"`
		ByteStart int    `json:"byte_start"`
		ByteEnd   int    `json:"byte_end"`
	} `json:"entities"`
}

const piiDataset = "pii/presidio-synth-a.jsonl"

// piiTuneIDs: records with an id below it are the half the recognizers may
// be tuned on; records from it on are held out.
const piiTuneIDs = 375

// piiPatternedTypes are the gold types with a pattern recognizer of the
// same name, scored for entity-level recall.
var piiPatternedTypes = []string{pii.Email, pii.Phone, pii.CreditCard, pii.IBAN, pii.USSSN, pii.IPAddress}

// piiGoldTypes are the gold types that count as PII for has_pii: personal
// data the evaluator has a recognizer for (DOMAIN_NAME is our URL). Places
// (GPE), organisations, titles, nationalities, ages, dates and ZIP codes
// alone do not identify a person and are not detected, so a record holding
// only those counts as a negative.
var piiGoldTypes = map[string]string{
	"PERSON": pii.Person, "EMAIL_ADDRESS": pii.Email, "PHONE_NUMBER": pii.Phone, "CREDIT_CARD": pii.CreditCard,
	"IBAN_CODE": pii.IBAN, "US_SSN": pii.USSSN, "IP_ADDRESS": pii.IPAddress, "US_DRIVER_LICENSE": pii.USDriver,
	"DOMAIN_NAME": pii.URL, "STREET_ADDRESS": pii.StreetAddress,
}

// piiProseSets are question texts with few or no person names, used to
// count how often has_pii fires on ordinary prose. They carry no PII label.
var piiProseSets = []struct{ dataset, note string }{
	{"qa/halueval-one-turn.jsonl", "HotpotQA questions are multi-hop trivia mostly about people: all 112 flags were read by hand (so this set has informed the name rules), about 12 questions are flagged without naming a person (Rosetta Stone, Wayne's World, Jane's Addiction, Liqui Moly Bathurst, a suburb 'called Kew', Marion, Titus), the rest name real or fictional people (the 112th: the singer Sia). Earlier versions: 85, then 111 flagged"},
	{"relevancy/trecqa-dev.jsonl", "TREC factoid questions (tokenised): of 23 flags, 20 name a person (James Dean, Franz Kafka, Jean Harlow, ...), 3 do not (Hale Bopp comet twice, 'the name Rat Pack'). Read while tuning. Before this version: 13 flagged"},
}

// piiQuality scores pii-detector on the Presidio synthetic records:
// entity-level recall per type (a gold entity is found when an entity of
// its type scored at least the default threshold overlaps it), has_pii
// against the label restricted to piiGoldTypes on all records, the tuning
// half and the held-out half, has_pii against the full label, and the rate
// of has_pii on question prose.
func piiQuality(dataDir string) ([]Report, error) {
	rows, err := readJSONL[piiRow](dataDir, piiDataset)
	if err != nil {
		return nil, err
	}
	// Load the embedded name lists before timing (paid once per process).
	pii.Analyze("Warm Up")
	pred := make([]bool, len(rows))
	restricted := make([]bool, len(rows))
	full := make([]bool, len(rows))
	found := map[string]int{}
	total := map[string]int{}
	var elapsed time.Duration
	for i, row := range rows {
		if pred[i], err = piiEvaluate(row.Text, &elapsed); err != nil {
			return nil, fmt.Errorf("row %d: %w", i, err)
		}
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
	otherN := 0
	for _, t := range []string{"PERSON", "STREET_ADDRESS", "US_DRIVER_LICENSE", "DOMAIN_NAME"} {
		other["recall_"+t] = safeDiv(float64(found[t]), float64(total[t]))
		otherN += total[t]
	}
	split := "all 750 records (hand-written recognizers, no training)"
	reports := []Report{
		{
			Slug: "pii-detector", Dataset: piiDataset, Split: split, N: patTotal,
			Metrics: recall, Threshold: "0.7", PerCall: perCall, Target: "recall >= 0.90 per patterned type",
			Notes: "entity-level recall: a gold entity is found when a predicted entity of its type (score >= 0.7) overlaps it",
		},
		{
			Slug: "pii-detector", Dataset: piiDataset, Split: split, N: otherN,
			Metrics: other, Threshold: "0.7", PerCall: perCall, Target: "(no target)",
			Notes: "entity-level recall of the other detected types (DOMAIN_NAME scored as URL); STREET_ADDRESS gold spans include bare house numbers and ZIPs split off an address, which count as found only when our span overlaps them",
		},
	}
	labelNote := "has_pii vs. the label restricted to personal data we detect (PERSON, STREET_ADDRESS, EMAIL, PHONE, CREDIT_CARD, IBAN, US_SSN, IP, US_DRIVER_LICENSE, DOMAIN_NAME): %d of %d positive. "
	tuneTemplates := map[int]bool{}
	for _, row := range rows {
		if row.ID < piiTuneIDs {
			tuneTemplates[row.Template] = true
		}
	}
	halves := []struct {
		split string
		keep  func(row piiRow) bool
		note  string
	}{
		{split, func(piiRow) bool { return true }, "Name rules and address patterns were tuned on records with id < 375 only (an earlier version read misses on all records); names come from the 1990 US Census lists and a hand-written list, none taken from this file"},
		{"held-out half: id >= 375 (not read while tuning)", func(row piiRow) bool { return row.ID >= piiTuneIDs }, "Most held-out records share a template (sentence frame) with a tuning record, with other fake values, so this still flatters unseen text; see the next row"},
		{"held-out records whose template_id never occurs at id < 375", func(row piiRow) bool { return row.ID >= piiTuneIDs && !tuneTemplates[row.Template] }, "The cleanest estimate here: neither the records nor their sentence frames were seen while tuning (small n)"},
	}
	for _, h := range halves {
		var p, l []bool
		pos := 0
		for i, row := range rows {
			if h.keep(row) {
				p = append(p, pred[i])
				l = append(l, restricted[i])
				if restricted[i] {
					pos++
				}
			}
		}
		reports = append(reports, Report{
			Slug: "pii-detector", Dataset: piiDataset, Split: h.split, N: len(p),
			Metrics: binaryMetrics(p, l), Threshold: "0.7", PerCall: perCall, Target: "f1 >= 0.95",
			Notes: fmt.Sprintf(labelNote, pos, len(p)) + h.note,
		})
	}
	reports = append(reports, Report{
		Slug: "pii-detector", Dataset: piiDataset, Split: split, N: len(rows),
		Metrics: binaryMetrics(pred, full), Threshold: "0.7", PerCall: perCall, Target: "(reference)",
		Notes: "has_pii vs. the full label (any entity, including places, organisations, titles, dates, ages, ZIP codes)",
	})
	for _, set := range piiProseSets {
		r, err := piiProseRate(dataDir, set.dataset, set.note)
		if err != nil {
			return nil, err
		}
		reports = append(reports, r)
	}
	return reports, nil
}

// piiProseRate runs pii-detector once on every distinct question of a
// question/answer dataset and reports the share flagged as has_pii.
func piiProseRate(dataDir, dataset, note string) (Report, error) {
	type question struct {
		Question string `json:"question"`
	}
	rows, err := readJSONL[question](dataDir, dataset)
	if err != nil {
		return Report{}, err
	}
	seen := map[string]bool{}
	var elapsed time.Duration
	flagged := 0
	for _, r := range rows {
		if seen[r.Question] {
			continue
		}
		seen[r.Question] = true
		has, err := piiEvaluate(r.Question, &elapsed)
		if err != nil {
			return Report{}, fmt.Errorf("%s: %w", dataset, err)
		}
		if has {
			flagged++
		}
	}
	n := len(seen)
	return Report{
		Slug: "pii-detector", Dataset: dataset, Split: "distinct `question` fields (no PII label)", N: n,
		Metrics:   map[string]float64{"flag_rate": safeDiv(float64(flagged), float64(n)), "flagged": float64(flagged)},
		Threshold: "0.7", PerCall: elapsed / time.Duration(max(n, 1)), Target: "flag_rate low (an upper bound on the false-positive rate)",
		Notes: "has_pii rate on prose; " + note,
	}, nil
}

// piiEvaluate runs pii-detector on text through the catalogue, adding its
// wall time to total.
func piiEvaluate(text string, total *time.Duration) (bool, error) {
	t0 := time.Now()
	res, err := evaluators.Evaluate(context.Background(), "pii-detector", map[string]any{"text": text}, nil)
	*total += time.Since(t0)
	if err != nil {
		return false, err
	}
	has, _ := res["has_pii"].(bool)
	return has, nil
}
