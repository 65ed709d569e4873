package main

import (
	"errors"
	"math"
	"strings"
	"testing"
)

func TestLoadFunctionalPII(t *testing.T) {
	cases, err := loadFunctional("pii-detector")
	if err != nil {
		t.Fatal(err)
	}
	count := map[string]int{}
	for _, c := range cases {
		count[c.Phenomenon]++
		if c.Text == "" || !strings.HasSuffix(c.File, c.Phenomenon+".jsonl") {
			t.Errorf("case %+v: empty text or phenomenon not the file's", c)
		}
	}
	for _, p := range []string{"location", "organisation", "age", "date_time", "negative"} {
		if count[p] < minCasesPerPhenomenon {
			t.Errorf("phenomenon %s has %d cases", p, count[p])
		}
	}
	if _, err := loadFunctional("no-such-evaluator"); err == nil || !strings.Contains(err.Error(), "no-such-evaluator") {
		t.Errorf("missing suite: err = %v, want one naming the suite", err)
	}
}

func TestParseFunctional(t *testing.T) {
	good := `{"text":"a","label":true}
{"text":"b","label":false,"phenomenon":"other","note":"n"}

{"input":{"question":"q","answer":"a"},"label":true}
`
	cases, err := parseFunctional("x.jsonl", []byte(good), "deflt")
	if err != nil {
		t.Fatal(err)
	}
	if len(cases) != 3 || cases[0].Phenomenon != "deflt" || cases[1].Phenomenon != "other" || cases[1].Label || !cases[2].Label || cases[2].Input["question"] != "q" || cases[0].File != "x.jsonl" {
		t.Errorf("cases = %+v", cases)
	}
	bad := []struct{ data, want string }{
		{`{"text":"a"}`, "x.jsonl line 1: no label"},
		{`{"text":"a","label":true}` + "\n" + `{"label":true}`, "x.jsonl line 2: no text and no input"},
		{`{"text":"a","label":"yes"}`, "x.jsonl line 1: json"},
	}
	for _, b := range bad {
		_, err := parseFunctional("x.jsonl", []byte(b.data), "p")
		if err == nil || !strings.Contains(err.Error(), b.want) {
			t.Errorf("parse %q: err = %v, want %q", b.data, err, b.want)
		}
	}
}

func TestScoreFunctional(t *testing.T) {
	cases := []FunctionalCase{
		{Text: "p1", Label: true, Phenomenon: "pos"},
		{Text: "p2", Label: true, Phenomenon: "pos"},
		{Text: "n1", Label: false, Phenomenon: "neg"},
		{Text: "n2", Label: false, Phenomenon: "neg"},
	}
	// Flags p1 and n1: one miss and one false alarm.
	flag := map[string]bool{"p1": true, "n1": true}
	r, err := scoreFunctional("demo", cases, func(c FunctionalCase) (bool, error) { return flag[c.Text], nil })
	if err != nil {
		t.Fatal(err)
	}
	if r.Kind != KindFunctional || r.Headline != "f1" || r.N != 4 || math.Abs(r.Metrics["f1"]-0.5) > 1e-12 {
		t.Errorf("report = %+v", r)
	}
	if len(r.Breakdown) != 2 {
		t.Fatalf("breakdown = %+v", r.Breakdown)
	}
	neg, pos := r.Breakdown[0], r.Breakdown[1]
	if neg.Name != "neg" || neg.Metrics["fpr"] != 0.5 || neg.Positives != 0 || len(neg.Misses) != 1 || neg.Misses[0] != "n1" {
		t.Errorf("neg = %+v", neg)
	}
	if _, ok := neg.Metrics["recall"]; ok {
		t.Errorf("neg has a recall without positives: %+v", neg)
	}
	if pos.Name != "pos" || pos.Metrics["recall"] != 0.5 || pos.Positives != 2 || pos.Misses[0] != "p2" {
		t.Errorf("pos = %+v", pos)
	}
	boom := errors.New("boom")
	if _, err := scoreFunctional("demo", cases, func(FunctionalCase) (bool, error) { return false, boom }); !errors.Is(err, boom) {
		t.Errorf("predict error lost: %v", err)
	}
}

func TestRenderMarkdownSummary(t *testing.T) {
	rs := []Report{
		{Slug: "demo", Dataset: "a.jsonl", Kind: KindInSource, N: 10, Metrics: map[string]float64{"f1": 0.9}, Headline: "f1", Target: "f1 >= 0.8"},
		{Slug: "demo", Dataset: "b.jsonl", Kind: KindCrossSource, N: 20, Metrics: map[string]float64{"f1": 0.7}, Headline: "f1"},
		{Slug: "demo", Dataset: "suite", Kind: KindFunctional, N: 4, Metrics: map[string]float64{"f1": 0.5}, Headline: "f1",
			Breakdown: []Group{{Name: "pos", N: 2, Positives: 2, Metrics: map[string]float64{"recall": 0.5}, Misses: []string{"a|b"}}}},
		{Slug: "demo", Dataset: "timing", Kind: KindTiming},
	}
	md := renderMarkdown(rs)
	for _, want := range []string{
		"| evaluator | metric | in-source (tuned on) | cross-source | held-out groups | functional suite | unlabelled (flag rate) | target |",
		"| `demo` | f1 | **0.900** a.jsonl (n=10) | **0.700** b.jsonl (n=20) | - | **0.500** suite (n=4) | - | f1 >= 0.8 |",
		"| `demo` | timing | timing |",
		"| pos | 2 | 2 | recall=0.500 | `a\\|b` |",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}
}
