package profanity

import (
	"bufio"
	"encoding/json"
	"math"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/evalcol/evalcol/evaluators/internal/textclass"
)

func detector(t testing.TB) *Detector {
	t.Helper()
	d, err := Default()
	if err != nil {
		t.Fatalf("load detector: %v", err)
	}
	return d
}

// TestCheckProbabilityGolden compares the port with scikit-learn's
// predict_proba on the 34 reference strings of profanity-check-golden.jsonl
// (copied from ../shared/data/models).
func TestCheckProbabilityGolden(t *testing.T) {
	d := detector(t)
	f, err := os.Open("testdata/profanity-check-golden.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	n := 0
	for sc.Scan() {
		var g struct {
			Text    string  `json:"text"`
			P       float64 `json:"p"`
			Predict int     `json:"predict"`
		}
		if err := json.Unmarshal(sc.Bytes(), &g); err != nil {
			t.Fatal(err)
		}
		n++
		name := g.Text
		if len(name) > 40 {
			name = name[:40]
		}
		t.Run(name, func(t *testing.T) {
			p := d.CheckProbability(g.Text)
			if math.Abs(p-g.P) > 1e-9 {
				t.Errorf("p = %.9f, want %.9f", p, g.P)
			}
			if got := p > 0.5; got != (g.Predict == 1) {
				t.Errorf("predict = %v, want %d", got, g.Predict)
			}
		})
	}
	if n != 34 {
		t.Fatalf("read %d golden rows, want 34", n)
	}
}

func TestHasProfanity(t *testing.T) {
	d := detector(t)
	tests := []struct {
		name string
		text string
		want bool
	}{
		{"plain", "fuck you", true},
		{"leet digit", "this is sh1t", true},
		{"leet at sign", "f@ck this", true},
		{"leet dollar", "what an a$$hole", true},
		{"leet bang", "b!tch please", true},
		{"masked star", "what the f*ck", true},
		{"spaced letters", "f u c k you", true},
		{"spaced after I", "I f u c k i n g hate it", true},
		{"spaced after a", "what a b i t c h", true},
		{"dotted letters", "this is s.h.i.t", true},
		{"repeated letters", "fuuuuuck off", true},
		{"repeated letters shit", "shiiiiit", true},
		{"accent", "fück you", true},
		{"full width", "ｆｕｃｋ", true},
		{"upper case", "BULLSHIT", true},
		{"slur absent from model", "you stupid kike", true},
		{"scunthorpe", "I grew up in Scunthorpe.", false},
		{"assassin", "Assassin’s Creed is a video game.", false},
		{"cocktail", "Let's have a cocktail tonight.", false},
		{"class", "The class starts at nine.", false},
		{"grape", "I like grape juice.", false},
		{"passage", "Read the passage and the classic essay.", false},
		{"clean", "Thank you so much for your help, I really appreciate it!", false},
		{"numbers", "I have 2 cats and 1 dog, born in 1999.", false},
		{"spaced initials", "The U.S. is a big country.", false},
		{"exclaimed", "Hello! What a great day!!!", false},
		{"email", "write to bob@example.com", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := d.HasProfanity(tt.text); got != tt.want {
				t.Errorf("HasProfanity(%q) = %v (score %.3f), want %v", tt.text, got, d.Score(tt.text), tt.want)
			}
		})
	}
}

func TestLoadCheckModelErrors(t *testing.T) {
	tests := []struct {
		name string
		data []byte
		want string
	}{
		{"empty", nil, "bad magic"},
		{"wrong magic", []byte("XXXX00000000"), "bad magic"},
		{"no folds", append([]byte("PCHK"), 1, 0, 0, 0, 0, 0, 0, 0), "bad sizes"},
		{"truncated", append([]byte("PCHK"), 1, 0, 0, 0, 1, 0, 0, 0), "token 0"},
		{"trailing", append(EncodeWeights([]string{"ab"}, []Fold{{Coef: []float64{1}}}), 7), "trailing"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := loadCheckModel(tt.data)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error = %v, want it to contain %q", err, tt.want)
			}
		})
	}
}

func TestEncodeWeightsRoundTrip(t *testing.T) {
	folds := []Fold{{Coef: []float64{2, -1}, Intercept: -0.5, A: -1.5, B: 0.25}}
	m, err := loadCheckModel(EncodeWeights([]string{"bad", "good"}, folds))
	if err != nil {
		t.Fatal(err)
	}
	// d = -0.5 + 2 (one "bad") = 1.5; p = 1/(1+exp(-1.5·1.5+0.25)).
	want := 1 / (1 + math.Exp(-1.5*1.5+0.25))
	if got := m.probability("Bad words"); math.Abs(got-want) > 1e-15 {
		t.Errorf("probability = %v, want %v", got, want)
	}
}

func BenchmarkScore1KB(b *testing.B) {
	d := detector(b)
	text := strings.Repeat("The quick brown fox jumps over the lazy dog, again and again. ", 17)[:1024]
	b.ReportAllocs()
	for b.Loop() {
		d.Score(text)
	}
}

func BenchmarkHasSlur1KB(b *testing.B) {
	d := detector(b)
	text := strings.Repeat("The quick brown fox jumps over the lazy dog, again and again. ", 17)[:1024]
	b.ReportAllocs()
	for b.Loop() {
		d.HasSlur(text)
	}
}

func TestCutLongRuns(t *testing.T) {
	tests := []struct{ in, want string }{
		{"fuuuuck", "fuck"},
		{"all see", "all see"},
		{"shiiit!!!", "shit!!!"},
		{"", ""},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			if got := cutLongRuns(tt.in); got != tt.want {
				t.Errorf("cutLongRuns(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

// TestHasSlurFoldedAgreesWithHasSlur checks that handing over the folded
// text decides as HasSlur does, on the toxicity challenge texts (slurs,
// insults, threats and clean sentences) and their obfuscated forms.
func TestHasSlurFoldedAgreesWithHasSlur(t *testing.T) {
	d := detector(t)
	f, err := os.Open("../toxicity/testdata/challenge.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var texts []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var row struct{ Text string }
		if err := json.Unmarshal(sc.Bytes(), &row); err != nil {
			t.Fatal(err)
		}
		texts = append(texts, row.Text, strings.ToUpper(row.Text), strings.NewReplacer("a", "@", "i", "1", "o", "0").Replace(row.Text))
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	// And sentences around the lexicon's own entries, plain and masked.
	entries := make([]string, 0, len(d.slurs.entries))
	for e := range d.slurs.entries {
		entries = append(entries, e)
	}
	slices.Sort(entries)
	for i, e := range entries {
		if i%7 != 0 {
			continue
		}
		texts = append(texts, "They called him a "+e+" again.", "what a "+strings.ToUpper(e)+"!", "a "+e[:1]+"*"+e[min(2, len(e)):]+" indeed")
	}
	slurs := 0
	for _, text := range texts {
		want := d.HasSlur(text)
		if got := d.HasSlurFolded(text, textclass.AppendFold(nil, text)); got != want {
			t.Errorf("HasSlurFolded(%q) = %v, HasSlur %v", text, got, want)
		}
		if want {
			slurs++
		}
	}
	if slurs == 0 || slurs == len(texts) {
		t.Errorf("%d of %d texts hold a slur: the set does not tell the two apart", slurs, len(texts))
	}
}
