package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
)

// readJSONL decodes every line of dataDir/name into a T.
func readJSONL[T any](dataDir, name string) ([]T, error) {
	f, err := os.Open(filepath.Join(dataDir, name))
	if err != nil {
		return nil, fmt.Errorf("open dataset: %w", err)
	}
	defer f.Close()
	var out []T
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for line := 1; sc.Scan(); line++ {
		var v T
		if err := json.Unmarshal(sc.Bytes(), &v); err != nil {
			return nil, fmt.Errorf("%s line %d: %w", name, line, err)
		}
		out = append(out, v)
	}
	return out, sc.Err()
}

// binaryMetrics returns precision, recall, f1, macro_f1, accuracy and fpr of
// the predictions against the labels (positive = true).
func binaryMetrics(pred, label []bool) map[string]float64 {
	var tp, fp, tn, fn float64
	for i := range pred {
		switch {
		case pred[i] && label[i]:
			tp++
		case pred[i] && !label[i]:
			fp++
		case !pred[i] && !label[i]:
			tn++
		default:
			fn++
		}
	}
	p, r := safeDiv(tp, tp+fp), safeDiv(tp, tp+fn)
	f1 := safeDiv(2*p*r, p+r)
	np, nr := safeDiv(tn, tn+fn), safeDiv(tn, tn+fp)
	nf1 := safeDiv(2*np*nr, np+nr)
	return map[string]float64{
		"precision": p, "recall": r, "f1": f1, "macro_f1": (f1 + nf1) / 2,
		"accuracy": safeDiv(tp+tn, tp+tn+fp+fn), "fpr": safeDiv(fp, fp+tn),
	}
}

func safeDiv(a, b float64) float64 {
	if b == 0 {
		return 0
	}
	return a / b
}

// rocAUC is the area under the ROC curve of scores for labels (ties count
// one half), NaN when one class is missing.
func rocAUC(scores []float64, label []bool) float64 {
	idx := make([]int, len(scores))
	for i := range idx {
		idx[i] = i
	}
	sort.Slice(idx, func(a, b int) bool { return scores[idx[a]] < scores[idx[b]] })
	// Sum of positive ranks, with average ranks for ties (Mann-Whitney U).
	var rankSum, npos, nneg float64
	for i := 0; i < len(idx); {
		j := i
		for j < len(idx) && scores[idx[j]] == scores[idx[i]] {
			j++
		}
		avg := float64(i+j+1) / 2
		for k := i; k < j; k++ {
			if label[idx[k]] {
				rankSum += avg
				npos++
			} else {
				nneg++
			}
		}
		i = j
	}
	if npos == 0 || nneg == 0 {
		return math.NaN()
	}
	return (rankSum - npos*(npos+1)/2) / (npos * nneg)
}

// pearson is the Pearson correlation of x and y.
func pearson(x, y []float64) float64 {
	n := float64(len(x))
	var mx, my float64
	for i := range x {
		mx += x[i]
		my += y[i]
	}
	mx /= n
	my /= n
	var sxy, sxx, syy float64
	for i := range x {
		dx, dy := x[i]-mx, y[i]-my
		sxy += dx * dy
		sxx += dx * dx
		syy += dy * dy
	}
	return sxy / math.Sqrt(sxx*syy)
}

// spearman is the Spearman rank correlation of x and y.
func spearman(x, y []float64) float64 { return pearson(ranks(x), ranks(y)) }

func ranks(v []float64) []float64 {
	idx := make([]int, len(v))
	for i := range idx {
		idx[i] = i
	}
	sort.Slice(idx, func(a, b int) bool { return v[idx[a]] < v[idx[b]] })
	r := make([]float64, len(v))
	for i := 0; i < len(idx); {
		j := i
		for j < len(idx) && v[idx[j]] == v[idx[i]] {
			j++
		}
		for k := i; k < j; k++ {
			r[idx[k]] = float64(i+j+1) / 2
		}
		i = j
	}
	return r
}
