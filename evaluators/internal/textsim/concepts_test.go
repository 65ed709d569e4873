package textsim

import (
	"math"
	"testing"
)

func TestRelated(t *testing.T) {
	cases := []struct {
		name string
		a, b string
		want bool
	}{
		{"synonyms kid child", "kid", "child", true},
		{"synonyms big large", "big", "large", true},
		{"hypernym dog puppy", "dog", "puppy", true},
		{"co-hyponyms man woman", "man", "woman", false},
		{"co-hyponyms dog cat", "dog", "cat", false},
		{"unrelated", "guitar", "ocean", false},
		{"unknown key", "zyxqwv", "child", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a, b := Tokenize(c.a)[0].Key, Tokenize(c.b)[0].Key
			if got := Related(a, b); got != c.want {
				t.Errorf("Related(%q, %q) = %v, want %v", a, b, got, c.want)
			}
			if back := Related(b, a); back != c.want {
				t.Errorf("Related(%q, %q) = %v, want %v (symmetry)", b, a, back, c.want)
			}
		})
	}
}

func TestSemanticCosine(t *testing.T) {
	cases := []struct {
		name string
		a, b string
		want float64
	}{
		{"same words", "a kid plays", "the kid played", 1},
		{"one synonym alone", "kid", "child", relatedCredit},
		{"unrelated words", "guitar", "ocean", 0},
		{"co-hyponyms get nothing", "man", "woman", 0},
		{"empty", "", "kid", 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := SemanticCosine(Tokenize(c.a), Tokenize(c.b))
			if math.Abs(got-c.want) > 1e-9 {
				t.Errorf("SemanticCosine(%q, %q) = %v, want %v", c.a, c.b, got, c.want)
			}
		})
	}
	t.Run("synonym between exact and unrelated", func(t *testing.T) {
		base := Tokenize("a kid is playing in the garden")
		syn := SemanticCosine(base, Tokenize("a child is playing in the garden"))
		plain := Cosine(base, Tokenize("a child is playing in the garden"))
		if !(plain < syn && syn < 1) {
			t.Errorf("SemanticCosine %v, Cosine %v: want Cosine < SemanticCosine < 1", syn, plain)
		}
	})
	t.Run("each word matched once", func(t *testing.T) {
		got := SemanticCosine(Tokenize("kid kid child"), Tokenize("child"))
		if got > 1+1e-12 {
			t.Errorf("= %v, want at most 1", got)
		}
	})
}

func TestIntersects(t *testing.T) {
	cases := []struct {
		name string
		x, y []uint32
		want bool
	}{
		{"shared", []uint32{1, 5, 9}, []uint32{2, 9}, true},
		{"disjoint", []uint32{1, 5}, []uint32{2, 6}, false},
		{"empty", nil, []uint32{1}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := intersects(c.x, c.y); got != c.want {
				t.Errorf("intersects(%v, %v) = %v, want %v", c.x, c.y, got, c.want)
			}
		})
	}
}

func BenchmarkSemanticCosine(b *testing.B) {
	x, y := Tokenize(benchText), Tokenize(benchText[200:]+benchText[:200])
	conceptTable() // load once, outside the measurement
	b.ReportAllocs()
	for b.Loop() {
		SemanticCosine(x, y)
	}
}

func BenchmarkCosine(b *testing.B) {
	x, y := Tokenize(benchText), Tokenize(benchText[200:]+benchText[:200])
	b.ReportAllocs()
	for b.Loop() {
		Cosine(x, y)
	}
}

func BenchmarkLoadConcepts(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		_ = parseConcepts()
	}
}
