package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// Functional suite of answer-correctness: testdata/correctness.jsonl,
// written for this repository (see testdata/MANIFEST.md). Each template is
// one question with its ground truth, paraphrased correct answers,
// near-miss wrong answers (wrong number, date, name, or negated) and
// partial answers. Templates with an odd number (t01, t03, ...) are the
// tuning half, the even ones are held out: nothing was chosen on them.

// correctnessCase is one row of testdata/correctness.jsonl.
type correctnessCase struct {
	Template    string `json:"template"`
	Kind        string `json:"kind"` // paraphrase, wrong_number, wrong_date, wrong_name, wrong_negation, partial
	Label       bool   `json:"label"`
	Question    string `json:"question"`
	GroundTruth string `json:"ground_truth"`
	Completion  string `json:"completion"`
}

// correctnessSuiteDir is the folder of the suite's data, relative to the
// repository root (the harness runs from there).
var correctnessSuiteDir = filepath.Join("evaluators", "internal", "quality", "testdata")

// tuningTemplate reports whether a template id ("t07") is in the tuning
// half (odd number).
func tuningTemplate(id string) bool {
	var n int
	fmt.Sscanf(strings.TrimPrefix(id, "t"), "%d", &n)
	return n%2 == 1
}

func correctnessSuite() ([]Report, error) {
	if _, err := os.Stat(filepath.Join(correctnessSuiteDir, "correctness.jsonl")); err != nil {
		return nil, fmt.Errorf("correctness suite (run from the repository root): %w", err)
	}
	rows, err := readJSONL[correctnessCase](correctnessSuiteDir, "correctness.jsonl")
	if err != nil {
		return nil, err
	}
	var out []Report
	for _, half := range []struct {
		tune  bool
		kind  Kind
		split string
	}{{true, KindInSource, "tuning templates (odd t01..t23)"}, {false, KindFunctional, "held-out templates (even t02..t24), not read while tuning"}} {
		var elapsed time.Duration
		var js []judged
		scores := map[string]map[string][]float64{} // template → kind → scores
		for _, r := range rows {
			if tuningTemplate(r.Template) != half.tune {
				continue
			}
			res, err := timedEvaluate("answer-correctness", map[string]any{"question": r.Question, "completion": r.Completion, "ground_truth": r.GroundTruth}, &elapsed)
			if err != nil {
				return nil, err
			}
			score, _ := res["correctness_score"].(float64)
			kind := r.Kind
			if strings.HasPrefix(kind, "wrong_") {
				kind = "wrong"
			}
			if scores[r.Template] == nil {
				scores[r.Template] = map[string][]float64{}
			}
			scores[r.Template][kind] = append(scores[r.Template][kind], score)
			if kind != "partial" {
				js = append(js, judged{pred: score >= 0.5, score: score, label: r.Label})
			}
		}
		rep := binaryReport("answer-correctness", "quality/testdata/correctness.jsonl (paraphrases vs near misses)", half.split, js, elapsed)
		// Orderings within a template: a paraphrase above a partial
		// answer, a partial answer above a near miss.
		var pp, ppN, pw, pwN, partialPass, partialN float64
		for _, k := range scores {
			for _, p := range k["partial"] {
				partialN++
				if p >= 0.5 {
					partialPass++
				}
				for _, c := range k["paraphrase"] {
					ppN++
					pp += order(c, p)
				}
				for _, w := range k["wrong"] {
					pwN++
					pw += order(p, w)
				}
			}
		}
		rep.Metrics["partial_below_paraphrase"] = pp / ppN
		rep.Metrics["partial_above_near_miss"] = pw / pwN
		rep.Metrics["partial_pass_rate"] = partialPass / partialN
		rep.Kind, rep.Headline = half.kind, "macro_f1"
		rep.Threshold = "correctness_score >= 0.5"
		rep.Target = "near misses and paraphrases told apart"
		rep.Notes = fmt.Sprintf("written for this repository: %s; positives = paraphrased correct answers, negatives = near misses (wrong number, date, name, negation); partial answers (%d) scored apart: orderings within a template (ties 1/2) and the share scored >= 0.5", kindCounts(rows, half.tune), int(partialN))
		out = append(out, rep)
	}
	return out, nil
}

// order is 1 when hi > lo, 1/2 on a tie, 0 otherwise.
func order(hi, lo float64) float64 {
	switch {
	case hi > lo:
		return 1
	case hi == lo:
		return 0.5
	}
	return 0
}

func kindCounts(rows []correctnessCase, tune bool) string {
	n := map[string]int{}
	for _, r := range rows {
		if tuningTemplate(r.Template) == tune {
			n[r.Kind]++
		}
	}
	var kinds []string
	for k := range n {
		kinds = append(kinds, k)
	}
	slices.Sort(kinds)
	parts := make([]string, len(kinds))
	for i, k := range kinds {
		parts[i] = fmt.Sprintf("%s %d", k, n[k])
	}
	return strings.Join(parts, ", ")
}
