package warehouse

import (
	"reflect"
	"testing"
)

func TestMergeEvaluations(t *testing.T) {
	live := Evaluation{Name: "toxicity-detector", MonitorID: "m1", ScoreValue: 1}
	other := Evaluation{Name: "char-count", MonitorID: "m2", ScoreValue: 3}
	tests := []struct {
		name          string
		stored, added []Evaluation
		want          []Evaluation
	}{
		{"into none", nil, []Evaluation{live}, []Evaluation{live}},
		{"append other monitor", []Evaluation{live}, []Evaluation{other}, []Evaluation{live, other}},
		{"replace same monitor and name", []Evaluation{live, other}, []Evaluation{{Name: "toxicity-detector", MonitorID: "m1", ScoreValue: 0.5}},
			[]Evaluation{{Name: "toxicity-detector", MonitorID: "m1", ScoreValue: 0.5}, other}},
		{"same name other monitor appends", []Evaluation{live}, []Evaluation{{Name: "toxicity-detector", MonitorID: "m3"}},
			[]Evaluation{live, {Name: "toxicity-detector", MonitorID: "m3"}}},
		{"nothing added", []Evaluation{live}, nil, []Evaluation{live}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stored := append([]Evaluation(nil), tt.stored...)
			got := MergeEvaluations(stored, tt.added)
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
			if !reflect.DeepEqual(stored, tt.stored) {
				t.Errorf("stored slice modified: %+v", stored)
			}
		})
	}
}
