package main

import (
	"path/filepath"

	"github.com/evalcol/evalcol/evaluators/internal/injection"
)

// trainInjection trains the prompt-injection model on the training sets
// named by injection.TrainingDatasets (deepset prompt-injections and the
// jailbreak classification set, both train splits), with the sentences of
// injection.BenignProse as further negatives, and writes
// evaluators/internal/injection/model.evtc, which that package embeds.
// The windowing and options live in injection.Train, which the quality
// suite's cross-validation calls too.
func trainInjection(dataDir string) error {
	var texts []string
	var labels []bool
	for _, name := range injection.TrainingDatasets() {
		rows, err := readRows(dataDir, name)
		if err != nil {
			return err
		}
		t, l := textsLabels(rows)
		texts = append(texts, t...)
		labels = append(labels, l...)
	}
	prose, err := injection.BenignProse(dataDir)
	if err != nil {
		return err
	}
	m, err := injection.Train(texts, labels, prose)
	if err != nil {
		return err
	}
	return writeModel(m, filepath.Join("evaluators", "internal", "injection", injection.ModelFile))
}
