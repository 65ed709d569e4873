package main

import (
	"fmt"
	"sort"

	"github.com/evalcol/evalcol/evaluators/internal/textclass"
)

// report prints ROC AUC and precision, recall, F1 and macro-F1 at 0.5 of
// model m on rows.
func report(name string, m *textclass.Model, rows []row) {
	type scored struct {
		p     float64
		label bool
	}
	s := make([]scored, len(rows))
	var tp, fp, fn, tn float64
	for i, r := range rows {
		p := m.Probability(r.Text)
		s[i] = scored{p, r.Label}
		switch pred := p > 0.5; {
		case pred && r.Label:
			tp++
		case pred:
			fp++
		case r.Label:
			fn++
		default:
			tn++
		}
	}
	sort.Slice(s, func(i, j int) bool { return s[i].p < s[j].p })
	var pos, neg, rankSum float64
	for i := 0; i < len(s); {
		j := i
		for j < len(s) && s[j].p == s[i].p {
			j++
		}
		for k := i; k < j; k++ {
			if s[k].label {
				rankSum += float64(i+j+1) / 2
				pos++
			} else {
				neg++
			}
		}
		i = j
	}
	auc := (rankSum - pos*(pos+1)/2) / (pos * neg)
	f1 := func(tp, fp, fn float64) float64 { return 2 * tp / (2*tp + fp + fn) }
	fmt.Printf("%s: n=%d auc=%.4f P=%.3f R=%.3f F1=%.3f macroF1=%.4f\n", name, len(rows), auc,
		tp/(tp+fp), tp/(tp+fn), f1(tp, fp, fn), (f1(tp, fp, fn)+f1(tn, fn, fp))/2)
}
