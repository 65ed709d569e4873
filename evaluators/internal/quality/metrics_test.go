package main

import (
	"math"
	"testing"
)

func TestROCAUC(t *testing.T) {
	tests := []struct {
		name   string
		scores []float64
		labels []bool
		want   float64
	}{
		{"perfect", []float64{0.1, 0.2, 0.8, 0.9}, []bool{false, false, true, true}, 1},
		{"inverted", []float64{0.9, 0.8, 0.2, 0.1}, []bool{false, false, true, true}, 0},
		{"all tied", []float64{0.5, 0.5, 0.5, 0.5}, []bool{false, true, false, true}, 0.5},
		{"one swap", []float64{0.1, 0.6, 0.5, 0.9}, []bool{false, false, true, true}, 0.75},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := rocAUC(tt.scores, tt.labels); math.Abs(got-tt.want) > 1e-12 {
				t.Errorf("rocAUC = %v, want %v", got, tt.want)
			}
		})
	}
	if got := rocAUC([]float64{1, 2}, []bool{true, true}); !math.IsNaN(got) {
		t.Errorf("rocAUC with one class = %v, want NaN", got)
	}
}

func TestBinaryMetrics(t *testing.T) {
	m := binaryMetrics([]bool{true, true, false, false, true}, []bool{true, false, false, true, true})
	// tp=2 fp=1 tn=1 fn=1
	want := map[string]float64{"precision": 2.0 / 3, "recall": 2.0 / 3, "f1": 2.0 / 3, "fpr": 0.5, "accuracy": 0.6}
	for k, w := range want {
		if math.Abs(m[k]-w) > 1e-12 {
			t.Errorf("%s = %v, want %v", k, m[k], w)
		}
	}
}

func TestCorrelation(t *testing.T) {
	x := []float64{1, 2, 3, 4, 5}
	if got := pearson(x, []float64{2, 4, 6, 8, 10}); math.Abs(got-1) > 1e-12 {
		t.Errorf("pearson linear = %v, want 1", got)
	}
	if got := spearman(x, []float64{1, 4, 9, 16, 100}); math.Abs(got-1) > 1e-12 {
		t.Errorf("spearman monotone = %v, want 1", got)
	}
}
