package textclass

import (
	"bytes"
	"encoding/binary"
	"math"
	"strings"
	"testing"
)

// toyTargets labels toyData and adds a second target: texts that name
// "vile" or "foul" (a fine-grained positive category).
func toyTargets() ([]string, [][]bool) {
	texts, labels := toyData()
	sub := make([]bool, len(texts))
	for i, t := range texts {
		sub[i] = strings.Contains(t, "vile") || strings.Contains(t, "foul")
	}
	return texts, [][]bool{labels, sub}
}

var toyStackOptions = StackOptions{
	Norm: NormOptions{Fold: true},
	Members: []StackMember{
		{Features: Features{WordNgrams: 1, CharMinN: 2, CharMaxN: 4, HashBits: 12}},
		{Features: Features{WordNgrams: 2, HashBits: 12}, Target: 1},
	},
	GenderLexicon:         true,
	NBAlpha:               0.5,
	Epochs:                5,
	Seed:                  3,
	MacroF1OperatingPoint: true,
}

func TestTrainStackLearnsAndIsDeterministic(t *testing.T) {
	texts, targets := toyTargets()
	s1, rep, err := TrainStack(texts, targets, toyStackOptions)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.MemberAUC) != 2 || rep.MemberAUC[0] < 0.95 || rep.AUC < 0.95 || rep.MacroF1 < 0.9 {
		t.Errorf("report = %+v, want member and stack AUC ≥ 0.95 and macro-F1 ≥ 0.9 on separable data", rep)
	}
	s2, _, err := TrainStack(texts, targets, toyStackOptions)
	if err != nil {
		t.Fatal(err)
	}
	b1, err := s1.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	b2, _ := s2.MarshalBinary()
	if !bytes.Equal(b1, b2) {
		t.Fatal("two trainings on the same data gave different bytes")
	}
	loaded, err := LoadStack(b1)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		text string
		pos  bool
	}{
		{"a vile day indeed", true},
		{"what a nasty rotten thing", true},
		{"a lovely sunny day", false},
		{"kind and calm", false},
	}
	for _, c := range cases {
		t.Run(c.text, func(t *testing.T) {
			p := loaded.Probability(c.text)
			if (p > 0.5) != c.pos {
				t.Errorf("Probability(%q) = %.3f, want positive=%v", c.text, p, c.pos)
			}
			if p != s1.Probability(c.text) {
				t.Errorf("loaded stack scores %v, trained stack %v", p, s1.Probability(c.text))
			}
		})
	}
}

func TestTrainStackErrors(t *testing.T) {
	texts, targets := toyTargets()
	withMembers := func(ms ...StackMember) StackOptions {
		o := toyStackOptions
		o.Members = ms
		return o
	}
	oneClass := make([]bool, len(texts))
	tests := []struct {
		name    string
		texts   []string
		targets [][]bool
		opts    StackOptions
		want    string
	}{
		{"no targets", texts, nil, toyStackOptions, "at least one target"},
		{"no members", texts, targets, withMembers(), "one member"},
		{"length mismatch", texts, [][]bool{targets[0][:3]}, toyStackOptions, "target 0 has 3 labels"},
		{"one class", texts, [][]bool{targets[0], oneClass}, toyStackOptions, "target 1 needs positive and negative"},
		{"bad features", texts, targets, withMembers(StackMember{Features: Features{HashBits: 10}}), "member 0: features: no word or character"},
		{"bad target", texts, targets, withMembers(StackMember{Features: Features{WordNgrams: 1, HashBits: 10}, Target: 2}), "member 0: target 2 outside 0..1"},
		{"too few texts", texts[:4], [][]bool{{true, false, true, false}}, toyStackOptions, "fewer than 5 folds"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := TrainStack(tt.texts, tt.targets, tt.opts)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error = %v, want it to contain %q", err, tt.want)
			}
		})
	}
}

func TestLoadStackErrors(t *testing.T) {
	texts, targets := toyTargets()
	s, _, err := TrainStack(texts, targets, toyStackOptions)
	if err != nil {
		t.Fatal(err)
	}
	good, _ := s.MarshalBinary()
	badVersion := bytes.Clone(good)
	badVersion[4] = 9
	noMembers := bytes.Clone(good)
	noMembers[7] = 0
	badMember := bytes.Clone(good)
	copy(badMember[12:], "NOPE")
	badNorm := bytes.Clone(good)
	badNorm[5] = 0
	hugeMember := bytes.Clone(good)
	binary.LittleEndian.PutUint32(hugeMember[8:], 1<<31)
	tests := []struct {
		name string
		data []byte
		want string
	}{
		{"empty", nil, "bad magic"},
		{"model, not a stack", good[12:], "bad magic"},
		{"version", badVersion, "version 9"},
		{"no members", noMembers, "no members"},
		{"bad member", badMember, "member 0: textclass: not a model"},
		{"member normalisation", badNorm, "member 0: normalisation differs"},
		{"member too long", hugeMember, "member 0: truncated"},
		{"coefficients cut", good[:len(good)-8], "bytes of coefficients"},
		{"trailing bytes", append(bytes.Clone(good), 0), "bytes of coefficients"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := LoadStack(tt.data)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error = %v, want it to contain %q", err, tt.want)
			}
		})
	}
}

func TestGenderLexiconFeatures(t *testing.T) {
	lex := NewGenderLexicon()
	l := math.Log1p
	tests := []struct {
		name string
		text string
		want [GenderLexiconFeatures]float64
	}{
		// female, slur, generalisation, male, manosphere, balance, violence, sexual, words
		{"neutral", "the report is due monday", [9]float64{0, 0, 0, 0, 0, 0, 0, 0, l(5)}},
		{"generalisation both ways", "all women are liars", [9]float64{l(1), 0, l(2), 0, 0, l(1), 0, 0, l(4)}},
		{"slur that is also female", "shut up foid", [9]float64{l(1), l(1), 0, 0, 0, l(1), 0, 0, l(3)}},
		{"apostrophe dropped", "females can't lead", [9]float64{l(1), 0, l(1), 0, 0, l(1), 0, 0, l(3)}},
		{"male and manosphere", "he is a chad", [9]float64{0, 0, 0, l(1), l(1), -l(1), 0, 0, l(4)}},
		{"violence and sexual", "rape her ass", [9]float64{l(1), 0, 0, 0, 0, l(1), l(1), l(1), l(3)}},
		{"empty", "", [9]float64{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got [GenderLexiconFeatures]float64
			lex.features([]byte(tt.text), got[:])
			if got != tt.want {
				t.Errorf("features(%q) = %v, want %v", tt.text, got, tt.want)
			}
		})
	}
}

func TestNBRatios(t *testing.T) {
	// Bucket 1 appears in both positives, bucket 2 in the negative only,
	// bucket 3 in one positive and the negative; repeats count once.
	ex := []example{
		{feats: []feature{1 << 1, 1 << 1, 3 << 1}, label: true},
		{feats: []feature{1<<1 | 1}, label: true},
		{feats: []feature{2 << 1, 3 << 1}, label: false},
	}
	r := nbRatios(ex, []int{0, 1, 2}, 2, 1)
	// p = alpha + positive counts = [1 3 1 2] (sum 7), q = [1 1 2 2] (sum 6).
	want := []float64{
		math.Abs(math.Log((1.0 / 7) / (1.0 / 6))),
		math.Abs(math.Log((3.0 / 7) / (1.0 / 6))),
		math.Abs(math.Log((1.0 / 7) / (2.0 / 6))),
		math.Abs(math.Log((2.0 / 7) / (2.0 / 6))),
	}
	for j, w := range want {
		if math.Abs(float64(r[j])-w) > 1e-6 {
			t.Errorf("ratio of bucket %d = %v, want %v", j, r[j], w)
		}
	}
}

func TestFitDenseLRRecoversCoefficients(t *testing.T) {
	// Labels drawn deterministically so that P(y) = sigmoid(2a - b + 0.5).
	var X [][]float64
	var y []bool
	for i := range 8000 {
		a := -2 + 4*float64(i%40)/39
		b := -2 + 4*float64((i/40)%10)/9
		p := sigmoid(2*a - b + 0.5)
		X = append(X, []float64{a, b})
		y = append(y, (float64(i/400)+0.5)/20 < p)
	}
	coef, bias := fitDenseLR(X, y, 1e-6)
	if math.Abs(coef[0]-2) > 0.2 || math.Abs(coef[1]+1) > 0.2 || math.Abs(bias-0.5) > 0.2 {
		t.Errorf("fitDenseLR = %v, %v, want about [2 -1], 0.5", coef, bias)
	}
}

func TestEvaluateBinary(t *testing.T) {
	tests := []struct {
		name            string
		scores          []float64
		labels          []bool
		threshold       float64
		wantAUC, wantF1 float64
	}{
		{"perfect", []float64{0.1, 0.2, 0.8, 0.9}, []bool{false, false, true, true}, 0.5, 1, 1},
		// one inverted pair of four: AUC 3/4; tp 1 fp 1 fn 1 tn 1: F1 0.5 both.
		{"one swap", []float64{0.1, 0.7, 0.3, 0.9}, []bool{false, false, true, true}, 0.5, 0.75, 0.5},
		{"ties count half", []float64{0.5, 0.5}, []bool{false, true}, 0.4, 0.5, 1.0 / 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			auc, f1 := EvaluateBinary(tt.scores, tt.labels, tt.threshold)
			if math.Abs(auc-tt.wantAUC) > 1e-12 || math.Abs(f1-tt.wantF1) > 1e-12 {
				t.Errorf("EvaluateBinary = %v, %v, want %v, %v", auc, f1, tt.wantAUC, tt.wantF1)
			}
		})
	}
}

func BenchmarkStackProbability1KB(b *testing.B) {
	texts, targets := toyTargets()
	opts := toyStackOptions
	opts.Members = []StackMember{
		{Features: Features{WordNgrams: 1, CharMinN: 1, CharMaxN: 5, HashBits: 20}},
		{Features: Features{CharMinN: 2, CharMaxN: 5, HashBits: 20}},
		{Features: Features{WordNgrams: 2, HashBits: 20}},
	}
	s, _, err := TrainStack(texts, targets, opts)
	if err != nil {
		b.Fatal(err)
	}
	text := strings.Repeat("The quick brown fox jumps over the lazy dog, again and again. ", 17)[:1024]
	b.ReportAllocs()
	for b.Loop() {
		s.Probability(text)
	}
}
