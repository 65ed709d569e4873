package main

import (
	"context"
	"fmt"
	"time"

	"github.com/evalcol/evalcol/evaluators"
	"github.com/evalcol/evalcol/internal/chattext"
)

// The default configuration's safety monitor runs pii-detector with
// entities = evaluators.PIIContactEntities on the last prompt and the
// completion of each chat. These rows measure what its users see:
//
//   - how often it fails ordinary chat (flag rate on question and answer
//     prose that holds no contact detail, and on cmd/otlpload's texts
//     without the frames that plant an e-mail address or a phone number);
//   - whether it still finds the types it asks for (Presidio's synthetic
//     records, labelled "has an entity of those types", split by template
//     as the any-entity rows are).

// piiContactTypes are the gold types of pii/presidio-synth-a.jsonl that the
// list covers (Presidio's names; DOMAIN_NAME, IP_ADDRESS and the NER types
// are not on the list).
var piiContactTypes = map[string]bool{
	"EMAIL_ADDRESS": true, "PHONE_NUMBER": true, "STREET_ADDRESS": true, "CREDIT_CARD": true, "IBAN_CODE": true,
	"CRYPTO": true, "US_SSN": true, "US_ITIN": true, "US_PASSPORT": true, "US_DRIVER_LICENSE": true,
}

const piiContactTarget = "flag rate <= 0.02 on ordinary chat; f1 >= 0.95 on its types"

// piiContactQuality returns the safety monitor's rows.
func piiContactQuality(dataDir string) ([]Report, error) {
	var reports []Report
	for _, set := range []struct {
		dataset, note string
		texts         func() ([]string, error)
	}{
		{"qa/halueval-one-turn.jsonl", "question + right answer as one exchange (how the monitor reads a chat); HotpotQA trivia full of people, places and dates", func() ([]string, error) {
			rows, err := readJSONL[qaRow](dataDir, "qa/halueval-one-turn.jsonl")
			var out []string
			for _, r := range rows {
				if r.Label {
					out = append(out, r.Question+"\n\n"+r.Answer)
				}
			}
			return out, err
		}},
		{"relevancy/trecqa-dev.jsonl", "distinct TREC questions", func() ([]string, error) { return distinctField(dataDir, "relevancy/trecqa-dev.jsonl", "question", nil) }},
		{"injection/jailbreak-classification-train.jsonl", "benign prompts only (OpenOrca questions and role-play instructions)", func() ([]string, error) {
			return distinctField(dataDir, "injection/jailbreak-classification-train.jsonl", "text", func(r map[string]any) bool { return r["label"] == false })
		}},
		{"injection/notinject.jsonl", "benign prompts with injection trigger words", func() ([]string, error) {
			return distinctField(dataDir, "injection/notinject.jsonl", "text", nil)
		}},
		{"cmd/otlpload texts", "400 chattext.Gen texts of 40-400 bytes (seed 1) whose frames plant no e-mail address or phone number", func() ([]string, error) {
			return loadTexts(false), nil
		}},
	} {
		texts, err := set.texts()
		if err != nil {
			return nil, err
		}
		flagged := 0
		var elapsed time.Duration
		for _, t := range texts {
			has, err := piiContactEvaluate(t, &elapsed)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", set.dataset, err)
			}
			if has {
				flagged++
			}
		}
		reports = append(reports, Report{
			Slug: piiSlug + " (safety monitor)", Dataset: set.dataset, Kind: KindUnlabelled, Split: "all (never tuned on)", N: len(texts),
			Metrics:  map[string]float64{"flag_rate": safeDiv(float64(flagged), float64(len(texts))), "flagged": float64(flagged)},
			Headline: "flag_rate", Threshold: "0.7", PerCall: elapsed / time.Duration(max(len(texts), 1)), Target: piiContactTarget,
			Notes: "entities = " + evaluators.PIIContactEntities + "; " + set.note,
		})
	}
	planted := loadTexts(true)
	found := 0
	var elapsed time.Duration
	for _, t := range planted {
		has, err := piiContactEvaluate(t, &elapsed)
		if err != nil {
			return nil, err
		}
		if has {
			found++
		}
	}
	reports = append(reports, Report{
		Slug: piiSlug + " (safety monitor)", Dataset: "cmd/otlpload texts", Kind: KindFunctional, Split: "texts that hold a planted e-mail address or phone number", N: len(planted),
		Metrics:  map[string]float64{"recall": safeDiv(float64(found), float64(len(planted)))},
		Headline: "recall", Threshold: "0.7", PerCall: elapsed / time.Duration(max(len(planted), 1)), Target: "recall = 1",
		Notes: "400 chattext.Gen texts of 40-400 bytes (seed 1) with " + chattext.PlantedEmail + " or " + chattext.PlantedPhone + ", whole or cut short where the text ends (a number cut to a few digits is no longer a phone number)",
	})
	recall, err := piiContactPresidio(dataDir)
	if err != nil {
		return nil, err
	}
	return append(reports, recall...), nil
}

// piiContactPresidio scores the list on Presidio's records, labelled true
// when a record holds a gold entity of piiContactTypes.
func piiContactPresidio(dataDir string) ([]Report, error) {
	rows, err := readJSONL[piiRow](dataDir, piiDataset)
	if err != nil {
		return nil, err
	}
	tuned := map[int]bool{}
	for _, row := range rows {
		if row.ID < piiTuneIDs {
			tuned[row.Template] = true
		}
	}
	var reports []Report
	for _, part := range []struct {
		kind  Kind
		tuned bool
		split string
	}{
		{KindInSource, true, "records of the templates seen among ids < 375 (read while tuning the recognizers)"},
		{KindHeldOutGroups, false, "records of the templates never seen among ids < 375"},
	} {
		var pred, label []bool
		var elapsed time.Duration
		for _, row := range rows {
			if tuned[row.Template] != part.tuned {
				continue
			}
			l := false
			for _, e := range row.Entities {
				l = l || piiContactTypes[e.Type]
			}
			p, err := piiContactEvaluate(row.Text, &elapsed)
			if err != nil {
				return nil, err
			}
			pred, label = append(pred, p), append(label, l)
		}
		reports = append(reports, Report{
			Slug: piiSlug + " (safety monitor)", Dataset: piiDataset, Kind: part.kind, Split: part.split, N: len(pred),
			Metrics: binaryMetrics(pred, label), Headline: "f1", Threshold: "0.7", PerCall: elapsed / time.Duration(max(len(pred), 1)),
			Target: piiContactTarget,
			Notes:  fmt.Sprintf("label: a gold entity of the list's types (%d of %d positive); a record with only names, places or dates is negative", countTrue(label), len(label)),
		})
	}
	return reports, nil
}

// piiContactEvaluate runs pii-detector with the safety monitor's entities.
func piiContactEvaluate(text string, total *time.Duration) (bool, error) {
	t0 := time.Now()
	res, err := evaluators.Evaluate(context.Background(), piiSlug, map[string]any{"text": text}, map[string]any{"entities": evaluators.PIIContactEntities})
	*total += time.Since(t0)
	if err != nil {
		return false, err
	}
	has, _ := res["has_pii"].(bool)
	return has, nil
}

// loadTexts returns those of 400 cmd/otlpload texts (seed 1) that hold a
// planted contact detail (planted) or none.
func loadTexts(planted bool) []string {
	g := chattext.New(1)
	var out []string
	for range 400 {
		if t := g.Text(40, 400); chattext.Planted(t) == planted {
			out = append(out, t)
		}
	}
	return out
}

// distinctField returns the distinct string values of field in a dataset's
// rows that keep accepts (nil: all).
func distinctField(dataDir, dataset, field string, keep func(map[string]any) bool) ([]string, error) {
	rows, err := readJSONL[map[string]any](dataDir, dataset)
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	var out []string
	for _, r := range rows {
		s, _ := r[field].(string)
		if s == "" || seen[s] || keep != nil && !keep(r) {
			continue
		}
		seen[s] = true
		out = append(out, s)
	}
	return out, nil
}
