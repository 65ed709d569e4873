package textclass

import (
	"bytes"
	"fmt"
	"math"
	"strings"
	"testing"
)

func TestNormalize(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"lower and trim", "  Hello   WORLD \n", "hello world"},
		{"accents", "Fück Café", "fuck cafe"},
		{"full width", "ｆｕｃｋ", "fuck"},
		{"ligature", "ﬁne", "fine"},
		{"control chars", "a\x00b\tc", "a b c"},
		{"empty", "", ""},
		{"punctuation kept", "Hi, you!", "hi, you!"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Normalize(tt.in); got != tt.want {
				t.Errorf("Normalize(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestFold(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"leet digits", "sh1t h3ll0", "shit hello"},
		{"leet symbols", "b!tch a$$hole", "bitch asshole"},
		{"spaced", "f u c k you", "fuck you"},
		{"dotted", "s.h.i.t happens", "shit happens"},
		{"separator must not change", "i s.h.i.t", "i shit"},
		{"dashed", "f-u-c-k", "fuck"},
		{"repeats", "fuuuuck shiiiit", "fuuck shiit"},
		{"numbers stay", "I have 2 cats, 1999", "i have 2 cats, 1999"},
		{"exclamation stays", "hello!", "hello!"},
		{"mention at word start stays", "@bob", "@bob"},
		{"two single letters stay", "a b cat", "a b cat"},
		{"single letters inside words stay", "fa b c dog", "fa b c dog"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Fold(tt.in); got != tt.want {
				t.Errorf("Fold(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestStripSocial(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"entities", "a &amp; b &#8220;q&#8221;", "a b q"},
		{"mention and RT", "RT @user: hi there", "hi there"},
		{"url", "see http://t.co/abc now", "see now"},
		{"hashtag", "#winning day", "winning day"},
		{"not an entity", "fish & chips &x", "fish & chips &x"},
		{"rt inside word", "ART is fun", "art is fun"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := NormalizeWith(tt.in, NormOptions{StripSocial: true}); got != tt.want {
				t.Errorf("NormalizeWith(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestHalfRoundTrip(t *testing.T) {
	tests := []struct {
		name string
		in   float32
		want float32
	}{
		{"zero", 0, 0},
		{"one", 1, 1},
		{"negative", -2.5, -2.5},
		{"rounds", 0.1, 0.0999755859375},
		{"subnormal", 1e-6, 1.0132789611816406e-06},
		{"underflow", 1e-9, 0},
		{"overflow", 1e6, float32(math.Inf(1))},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := halfToFloat32(float32ToHalf(tt.in)); got != tt.want {
				t.Errorf("half(%v) = %v, want %v", tt.in, got, tt.want)
			}
		})
	}
}

// toyData is a small separable corpus: texts with "bad" words are positive.
func toyData() ([]string, []bool) {
	var texts []string
	var labels []bool
	good := []string{"lovely", "sunny", "kind", "happy", "calm", "bright"}
	bad := []string{"awful", "nasty", "vile", "horrid", "rotten", "foul"}
	for i := range 120 {
		g, b := good[i%len(good)], bad[(i*5)%len(bad)]
		texts = append(texts, fmt.Sprintf("a %s day number %d", g, i), fmt.Sprintf("a %s day number %d", b, i))
		labels = append(labels, false, true)
	}
	return texts, labels
}

var toyOptions = TrainOptions{Features: Features{WordNgrams: 2, CharMinN: 2, CharMaxN: 4, HashBits: 14}, Epochs: 5, Seed: 7}

func TestTrainLearnsAndIsDeterministic(t *testing.T) {
	texts, labels := toyData()
	m1, err := Train(texts, labels, toyOptions)
	if err != nil {
		t.Fatal(err)
	}
	m2, err := Train(texts, labels, toyOptions)
	if err != nil {
		t.Fatal(err)
	}
	b1, err := m1.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	b2, _ := m2.MarshalBinary()
	if !bytes.Equal(b1, b2) {
		t.Fatal("two trainings on the same data gave different bytes")
	}
	other := toyOptions
	other.Seed = 8
	m3, _ := Train(texts, labels, other)
	if b3, _ := m3.MarshalBinary(); bytes.Equal(b1, b3) {
		t.Error("a different seed gave the same bytes; the seed is ignored")
	}

	loaded, err := Load(b1)
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
			if p != m1.Probability(c.text) {
				t.Errorf("loaded model scores %v, trained model %v", p, m1.Probability(c.text))
			}
		})
	}
}

func TestTrainErrors(t *testing.T) {
	texts, labels := toyData()
	tests := []struct {
		name   string
		texts  []string
		labels []bool
		opts   TrainOptions
		want   string
	}{
		{"length mismatch", texts, labels[:3], toyOptions, "labels"},
		{"one class", texts[:1], labels[:1], toyOptions, "both positive and negative"},
		{"bad hash bits", texts, labels, TrainOptions{Features: Features{WordNgrams: 1, HashBits: 40}}, "HashBits"},
		{"no features", texts, labels, TrainOptions{Features: Features{HashBits: 10}}, "no word or character"},
		{"bad char range", texts, labels, TrainOptions{Features: Features{CharMinN: 5, CharMaxN: 3, HashBits: 10}}, "CharMinN"},
		{"too few texts", texts[:2], labels[:2], toyOptions, "fewer than 5 calibration folds"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Train(tt.texts, tt.labels, tt.opts)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error = %v, want it to contain %q", err, tt.want)
			}
		})
	}
}

func TestLoadErrors(t *testing.T) {
	texts, labels := toyData()
	m, err := Train(texts, labels, toyOptions)
	if err != nil {
		t.Fatal(err)
	}
	good, _ := m.MarshalBinary()
	badVersion := bytes.Clone(good)
	badVersion[4] = 9
	badBits := bytes.Clone(good)
	badBits[8] = 40
	tests := []struct {
		name string
		data []byte
		want string
	}{
		{"empty", nil, "bad magic"},
		{"wrong magic", append([]byte("NOPE"), good[4:]...), "bad magic"},
		{"version", badVersion, "version 9"},
		{"hash bits", badBits, "HashBits"},
		{"truncated weights", good[:len(good)-20], "load weights"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Load(tt.data)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error = %v, want it to contain %q", err, tt.want)
			}
		})
	}
}

func TestInHoldout(t *testing.T) {
	n := 0
	for i := range 10000 {
		if InHoldout(fmt.Sprint("k:", i), 20) {
			n++
		}
	}
	if n < 1800 || n > 2200 {
		t.Errorf("InHoldout kept %d of 10000 at 20%%, want about 2000", n)
	}
	if InHoldout("k:1", 0) || !InHoldout("k:1", 100) {
		t.Error("0% must hold nothing out and 100% everything")
	}
}

func TestFitPlattRecoversSigmoid(t *testing.T) {
	// Scores s with labels drawn deterministically so that the positive
	// rate at s is sigmoid(2s - 1).
	var scores []float64
	var labels []bool
	for i := range 4000 {
		s := -3 + 6*float64(i%200)/199
		p := sigmoid(2*s - 1)
		scores = append(scores, s)
		labels = append(labels, (float64(i/200)+0.5)/20 < p)
	}
	c := fitPlatt(scores, labels, false)
	if math.Abs(c.A-2) > 0.25 || math.Abs(c.B+1) > 0.25 {
		t.Errorf("fitPlatt = A %.3f B %.3f, want about 2 and -1", c.A, c.B)
	}
}

func BenchmarkProbability1KB(b *testing.B) {
	texts, labels := toyData()
	opts := toyOptions
	opts.Features = DefaultFeatures()
	m, err := Train(texts, labels, opts)
	if err != nil {
		b.Fatal(err)
	}
	text := strings.Repeat("The quick brown fox jumps over the lazy dog, again and again. ", 17)[:1024]
	b.ReportAllocs()
	for b.Loop() {
		m.Probability(text)
	}
}

func TestBestMacroF1Threshold(t *testing.T) {
	tests := []struct {
		name   string
		scores []float64
		labels []bool
		want   float64
	}{
		{"separable", []float64{-2, -1, 1, 2}, []bool{false, false, true, true}, 0},
		{"shifted", []float64{1, 2, 3, 4, 5}, []bool{false, false, false, true, true}, 3.5},
		{"ties", []float64{0, 0, 1, 1}, []bool{false, false, true, true}, 0.5},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := bestMacroF1Threshold(tt.scores, tt.labels); got != tt.want {
				t.Errorf("bestMacroF1Threshold = %v, want %v", got, tt.want)
			}
		})
	}
}
