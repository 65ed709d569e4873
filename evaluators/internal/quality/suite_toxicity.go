package main

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/evalcol/evalcol/evaluators"
	"github.com/evalcol/evalcol/evaluators/internal/textclass"
	"github.com/evalcol/evalcol/evaluators/internal/toxicity"
)

// Suite of the toxicity detector: the Davidson et al. rows held out from
// training (20%, textclass.InHoldout("davidson-v1:"+id, 20), the split of
// `go run ./evaluators/internal/train toxicity`), the test half of the
// hand-written challenge set (toxicity outside Davidson's style; the
// rules were tuned on the dev half only), and the false-positive rate on
// the benign NotInject prompts (ordinary, non-tweet text).

// toxicityChallengePath is the hand-written challenge set, relative to the
// repository root (where the quality command runs).
const toxicityChallengePath = "evaluators/internal/toxicity/testdata/challenge.jsonl"

// davidsonRow is one row of toxicity/davidson.jsonl.
type davidsonRow struct {
	ID    any    `json:"id"`
	Text  string `json:"text"`
	Label bool   `json:"label"`
}

func toxicitySuite(dataDir string) ([]Report, error) {
	rows, err := readJSONL[davidsonRow](dataDir, "toxicity/davidson.jsonl")
	if err != nil {
		return nil, err
	}
	var texts []string
	var labels []bool
	for _, r := range rows {
		if textclass.InHoldout(fmt.Sprint("davidson-v1:", r.ID), 20) {
			texts = append(texts, r.Text)
			labels = append(labels, r.Label)
		}
	}
	r, err := classifierReport("toxicity-detector", texts, labels)
	if err != nil {
		return nil, err
	}
	r.Dataset = "toxicity/davidson.jsonl"
	r.Kind, r.Headline = KindInSource, "macro_f1"
	r.Split = `held-out 20% (FNV-1a("davidson-v1:"+id) mod 100 < 20), not trained on`
	r.Target = "macro_f1 >= 0.65 on unseen text (functional held-out half); roc_auc >= 0.95 here"
	r.Notes = "tweets; offensive+hate = positive (83%); AUC from the probability recovered by bisecting config.threshold"
	benign, err := readJSONL[davidsonRow](dataDir, "injection/notinject.jsonl")
	if err != nil {
		return nil, err
	}
	texts, labels = nil, nil
	for _, b := range benign {
		texts = append(texts, b.Text)
		labels = append(labels, false)
	}
	fp, err := classifierReport("toxicity-detector", texts, labels)
	if err != nil {
		return nil, err
	}
	delete(fp.Metrics, "roc_auc") // one class only
	fp.Dataset = "injection/notinject.jsonl"
	fp.Kind, fp.Headline = KindCrossSource, "fpr"
	fp.Split = "all (benign prompts, never trained on)"
	fp.Target = "low fpr on ordinary prompts"
	fp.Notes = "false-positive rate on non-tweet text (English, Chinese, Russian prompts)"
	ch, err := toxicityChallengeReport()
	if err != nil {
		return nil, err
	}
	edos, err := toxicityEDOSReport(dataDir)
	if err != nil {
		return nil, err
	}
	fs, err := functionalHalves("toxicity-detector", "macro_f1", "macro_f1 >= 0.65 (held-out half)", toxicityUnsafe)
	if err != nil {
		return nil, err
	}
	return append([]Report{r, ch, fp, edos}, fs...), nil
}

// toxicityUnsafe runs the toxicity detector on text at the default
// threshold.
func toxicityUnsafe(text string) (bool, error) {
	res, err := evaluators.Evaluate(context.Background(), "toxicity-detector", map[string]any{"text": text}, nil)
	if err != nil {
		return false, fmt.Errorf("toxicity-detector: %w", err)
	}
	return res["is_safe"] == evaluators.UnsafeLabel, nil
}

// toxicityEDOSReport scores the toxicity detector (trained on Davidson
// tweets only) on every EDOS text: another source (Gab and Reddit posts),
// never trained or tuned on by this evaluator.
func toxicityEDOSReport(dataDir string) (Report, error) {
	var texts []string
	var labels []bool
	for _, name := range []string{"sexism/edos-train.jsonl", "sexism/edos-dev.jsonl"} {
		rows, err := readJSONL[edosRow](dataDir, name)
		if err != nil {
			return Report{}, err
		}
		for _, r := range rows {
			texts = append(texts, r.Text)
			labels = append(labels, r.Label)
		}
	}
	r, err := classifierReport("toxicity-detector", texts, labels)
	if err != nil {
		return Report{}, err
	}
	r.Dataset = "sexism/edos-train.jsonl + edos-dev.jsonl"
	r.Kind, r.Headline = KindCrossSource, "macro_f1"
	r.Split = "all (cross-source: another platform, never trained or tuned on)"
	r.Target = "(reference; labels differ)"
	r.Notes = "label mismatch: positive = sexist (24%), so non-sexist abuse counts as a false positive and sexism without abusive words (stereotypes, paternalism) as a miss; read roc_auc and the trend, not the level"
	return r, nil
}

// functionalHalves scores the evaluator's functional suite
// (testdata/functional/<slug>) with flagged (its verdict at the default
// threshold), one report per half of the split by template: the tuning
// half (templates read while choosing rules and thresholds; in-source)
// and the held-out half (templates never read; functional). The held-out
// report quotes no missed cases, so that reading QUALITY.md does not tune
// on them.
func functionalHalves(slug, headline, target string, flagged func(string) (bool, error)) ([]Report, error) {
	cases, err := loadFunctional(slug)
	if err != nil {
		return nil, err
	}
	var out []Report
	for _, half := range []string{"tuning", "heldout"} {
		var part []FunctionalCase
		templates := map[string]bool{}
		for _, c := range cases {
			if c.Half == half {
				part = append(part, c)
				templates[c.Template] = true
			}
		}
		if len(part) == 0 {
			return nil, fmt.Errorf("functional suite %s: no %s cases", slug, half)
		}
		r, err := scoreFunctional(slug, part, func(c FunctionalCase) (bool, error) { return flagged(c.Text) })
		if err != nil {
			return nil, err
		}
		r.Headline, r.Target = headline, target
		r.Threshold = "0.5 (default)"
		r.Notes = "hand-written from the phenomena of issue 18 (generator: evaluators/internal/*/testdata/gen_functional.go), split into halves by template, never by case; per-phenomenon recall and fpr below"
		if half == "tuning" {
			r.Kind = KindInSource
			r.Split = fmt.Sprintf("tuning half: %d cases of %d templates, read while choosing rules and thresholds", len(part), len(templates))
		} else {
			r.Kind = KindFunctional
			r.Split = fmt.Sprintf("held-out half: %d cases of %d templates never read while tuning", len(part), len(templates))
			for i := range r.Breakdown {
				r.Breakdown[i].Misses = nil
			}
			r.Notes += "; misses of this half are not quoted, to keep it unread"
		}
		out = append(out, r)
	}
	return out, nil
}

// toxicityChallengeReport scores the test half of the challenge set.
func toxicityChallengeReport() (Report, error) {
	f, err := os.Open(toxicityChallengePath)
	if err != nil {
		return Report{}, fmt.Errorf("toxicity challenge set: %w", err)
	}
	defer f.Close()
	rows, err := toxicity.ReadChallenge(f)
	if err != nil {
		return Report{}, fmt.Errorf("toxicity challenge set: %w", err)
	}
	var texts []string
	var labels []bool
	for _, row := range rows {
		if toxicity.InChallengeTest(row.ID) {
			texts = append(texts, row.Text)
			labels = append(labels, row.Label)
		}
	}
	r, err := classifierReport("toxicity-detector", texts, labels)
	if err != nil {
		return Report{}, err
	}
	r.Dataset = toxicityChallengePath
	r.Kind, r.Headline = KindInSource, "macro_f1"
	r.Split = `test half (FNV-1a("toxchallenge-v1:"+id) mod 100 < 50), not tuned on`
	r.Target = "f1 >= 0.90"
	r.Notes = "hand-written: 2nd/3rd-person insults, death wishes, threats, self-harm incitement, dehumanisation, identity hate, harassment, obscene abuse vs polite text, criticism of ideas, factual violence, quotes/negations, LLM answers; same author as the rules, so optimistic"
	return r, nil
}

// classifierReport runs a thresholded classifier (output is_safe, config
// threshold) on texts through evaluators.Evaluate: P/R/F1 at the default
// threshold 0.5, and ROC AUC of the probability, which it recovers per
// text by bisecting config.threshold (the largest threshold that still
// flags the text) to 2^-20.
func classifierReport(slug string, texts []string, labels []bool) (Report, error) {
	ctx := context.Background()
	unsafe := func(text string, threshold any) (bool, error) {
		var cfg map[string]any
		if threshold != nil {
			cfg = map[string]any{"threshold": threshold}
		}
		res, err := evaluators.Evaluate(ctx, slug, map[string]any{"text": text}, cfg)
		if err != nil {
			return false, fmt.Errorf("%s: %w", slug, err)
		}
		return res["is_safe"] == evaluators.UnsafeLabel, nil
	}
	pred := make([]bool, len(texts))
	scores := make([]float64, len(texts))
	var elapsed time.Duration
	for i, t := range texts {
		start := time.Now()
		u, err := unsafe(t, nil)
		elapsed += time.Since(start)
		if err != nil {
			return Report{}, err
		}
		pred[i] = u
		lo, hi := 0.0, 1.0 // flagged at lo, not at hi
		for range 20 {
			mid := (lo + hi) / 2
			u, err := unsafe(t, mid)
			if err != nil {
				return Report{}, err
			}
			if u {
				lo = mid
			} else {
				hi = mid
			}
		}
		scores[i] = lo
	}
	m := binaryMetrics(pred, labels)
	m["roc_auc"] = rocAUC(scores, labels)
	return Report{
		Slug: slug, N: len(texts), Metrics: m, Threshold: "0.5 (default)",
		PerCall: elapsed / time.Duration(max(len(texts), 1)),
	}, nil
}
