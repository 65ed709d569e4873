package testcorpus

import (
	"math/rand/v2"
	"strings"
	"testing"
)

func TestTextsAreManyAndVaried(t *testing.T) {
	texts := Texts()
	distinct := map[string]bool{}
	var kelvin, upper bool
	for _, s := range texts {
		distinct[s] = true
		kelvin = kelvin || strings.ContainsRune(s, '\u212a')
		upper = upper || (s == strings.ToUpper(s) && s != strings.ToLower(s))
	}
	t.Logf("%d texts, %d distinct", len(texts), len(distinct))
	if len(distinct) < 5000 || !kelvin || !upper {
		t.Errorf("%d distinct texts (kelvin variants %v, upper case %v): want ≥ 5000 and both kinds of variant", len(distinct), kelvin, upper)
	}
}

func TestProseIsDeterministicAndSized(t *testing.T) {
	a := Prose(rand.New(rand.NewPCG(1, 2)), 1024)
	b := Prose(rand.New(rand.NewPCG(1, 2)), 1024)
	if a != b || len(a) < 1024 || len(a) > 1200 {
		t.Errorf("Prose: %d bytes, deterministic %v", len(a), a == b)
	}
}
