package main

// Suite of the sexism detector: EDOS dev, never used to train the model or
// to choose its options (those were chosen by 5-fold cross-validation on
// EDOS train).

// edosRow is one row of the EDOS files.
type edosRow struct {
	ID    string `json:"id"`
	Text  string `json:"text"`
	Label bool   `json:"label"`
}

func sexismSuite(dataDir string) ([]Report, error) {
	rows, err := readJSONL[edosRow](dataDir, "sexism/edos-dev.jsonl")
	if err != nil {
		return nil, err
	}
	texts := make([]string, len(rows))
	labels := make([]bool, len(rows))
	for i, r := range rows {
		texts[i], labels[i] = r.Text, r.Label
	}
	r, err := classifierReport("sexism-detector", texts, labels)
	if err != nil {
		return nil, err
	}
	r.Dataset = "sexism/edos-dev.jsonl"
	r.Split = "dev (not trained on, not tuned on)"
	r.Target = "macro_f1 >= 0.80"
	r.Kind, r.Headline = KindHeldOutGroups, "macro_f1"
	r.Notes = "EDOS task A (sexist 24%); stack of 5 naive-Bayes-scaled hashed n-gram logistic regressions (3 on the sexist label, 2 on the derogation and animosity categories) + hand-written gender lexicon, ridge logistic combiner; options chosen by 5-fold CV on EDOS train; 0.5 = macro-F1 operating point from out-of-fold combiner scores"
	return []Report{r}, nil
}
