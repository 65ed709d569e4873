package injection

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/evalcol/evalcol/evaluators/internal/textclass"
)

// TrainOptions are the textclass options of the shipped model: word uni-
// and bigrams and character 2- to 5-grams in 2^18 buckets, class-balanced
// training and calibration (the jailbreak data is two thirds benign).
func TrainOptions() textclass.TrainOptions {
	return textclass.TrainOptions{
		Features:            textclass.Features{WordNgrams: 2, CharMinN: 2, CharMaxN: 5, HashBits: 18},
		L2:                  1e-4,
		Epochs:              10,
		Seed:                1,
		ClassWeight:         true,
		BalancedCalibration: true,
	}
}

// Train fits the injection model to labelled prompts. Every prompt is cut
// into the windows the detector scores (see Windows), each window keeping
// its prompt's label, so the model learns what injection text looks like
// rather than how long injection prompts are. The hand-written benign
// prompts of benignTriggerPrompts and the texts of prose (ordinary
// sentences, see BenignProse; nil for none) are added as negatives. Train
// is deterministic.
func Train(texts []string, labels []bool, prose []string) (*textclass.Model, error) {
	if len(texts) != len(labels) {
		return nil, fmt.Errorf("injection: train: %d texts but %d labels", len(texts), len(labels))
	}
	var wTexts []string
	var wLabels []bool
	for i, t := range texts {
		Windows(t, func(w string) {
			wTexts = append(wTexts, w)
			wLabels = append(wLabels, labels[i])
		})
	}
	for _, t := range benignTriggerPrompts {
		wTexts = append(wTexts, t)
		wLabels = append(wLabels, false)
	}
	for _, t := range prose {
		Windows(t, func(w string) {
			wTexts = append(wTexts, w)
			wLabels = append(wLabels, false)
		})
	}
	m, err := textclass.Train(wTexts, wLabels, TrainOptions())
	if err != nil {
		return nil, fmt.Errorf("injection: train: %w", err)
	}
	return m, nil
}

// ModelFile is the name of the embedded model file in this package's
// directory.
const ModelFile = "model.evtc"

// TrainingDatasets are the datasets (paths under the shared data folder)
// the shipped model is trained on.
func TrainingDatasets() []string {
	return []string{"injection/deepset-train.jsonl", "injection/jailbreak-classification-train.jsonl"}
}

// BenignProseDataset is the dataset (a path under the shared data folder)
// whose sentences BenignProse reads: TrecQA's candidate answer sentences,
// newswire text in the public domain.
const BenignProseDataset = "relevancy/trecqa-dev.jsonl"

// BenignProse returns the distinct `answer` sentences of
// BenignProseDataset under dataDir, in file order: ordinary prose that is
// no injection. Both training sets' benign rows are narrow (short
// questions in deepset, OpenOrca tasks and role-play set-ups in the
// jailbreak set), so a model trained on either learns "not a short
// question" or "long and instructive" as injection evidence; plain prose
// as negatives teaches it that length and ordinary wording are not.
func BenignProse(dataDir string) ([]string, error) {
	path := filepath.Join(dataDir, BenignProseDataset)
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("injection: benign prose: %w", err)
	}
	defer f.Close()
	var out []string
	seen := map[string]bool{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for line := 1; sc.Scan(); line++ {
		var r struct {
			Answer string `json:"answer"`
		}
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			return nil, fmt.Errorf("injection: benign prose: %s:%d: %w", path, line, err)
		}
		if r.Answer != "" && !seen[r.Answer] {
			seen[r.Answer] = true
			out = append(out, r.Answer)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("injection: benign prose: read %s: %w", path, err)
	}
	return out, nil
}
