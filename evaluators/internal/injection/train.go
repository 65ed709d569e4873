package injection

import (
	"fmt"

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
// prompts of benignTriggerPrompts are added as negatives. Train is
// deterministic.
func Train(texts []string, labels []bool) (*textclass.Model, error) {
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
