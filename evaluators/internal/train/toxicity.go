package main

import (
	"path/filepath"
	"sort"

	"github.com/evalcol/evalcol/evaluators/internal/textclass"
)

// ToxicityHoldoutKey prefixes the Davidson row id in the split: a row is
// held out (20%) when textclass.InHoldout(toxicityHoldoutKey+id, 20). The
// quality suite uses the same key.
const toxicityHoldoutKey = "davidson-v1:"

// toxicityOptions strip tweet noise (HTML entities, @mentions, URLs, "RT",
// '#') so the model cannot learn them.
var toxicityOptions = textclass.TrainOptions{
	Features:     textclass.Features{WordNgrams: 2, CharMinN: 2, CharMaxN: 5, HashBits: 20, Norm: textclass.NormOptions{StripSocial: true}},
	Epochs:       10,
	LearningRate: 0.2,
	Seed:         1,
	// Davidson is 83% offensive; balanced calibration removes that prior
	// so ordinary text is not flagged by default.
	BalancedCalibration: true,
}

// readCleanSentences returns the distinct questions and answer sentences
// of relevancy/trecqa-dev.jsonl (newswire, public domain) as non-toxic
// rows: Davidson has only tweets, and without formal text the model takes
// any non-tweet sentence ("How do I kill a process?") for offensive.
func readCleanSentences(dataDir string) ([]row, error) {
	type qa struct {
		Question string `json:"question"`
		Answer   string `json:"answer"`
	}
	rows, err := readJSONL[qa](dataDir, "relevancy/trecqa-dev.jsonl")
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	var out []row
	for _, r := range rows {
		for _, t := range []string{r.Question, r.Answer} {
			if !seen[t] {
				seen[t] = true
				out = append(out, row{ID: "trecqa:" + t, Text: t})
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out, nil
}

// trainToxicity trains on Davidson et al. minus the held-out 20%, reports
// on the held-out rows and writes textclass/models/toxicity.evtc.
func trainToxicity(dataDir string) error {
	rows, err := readRows(dataDir, "toxicity/davidson.jsonl")
	if err != nil {
		return err
	}
	var train, held []row
	for _, r := range rows {
		if textclass.InHoldout(toxicityHoldoutKey+r.ID, 20) {
			held = append(held, r)
		} else {
			train = append(train, r)
		}
	}
	clean, err := readCleanSentences(dataDir)
	if err != nil {
		return err
	}
	texts, labels := textsLabels(append(train, clean...))
	m, err := textclass.Train(texts, labels, toxicityOptions)
	if err != nil {
		return err
	}
	report("toxicity davidson held-out 20%", m, held)
	return writeModel(m, filepath.Join(modelsDir, "toxicity.evtc"))
}
