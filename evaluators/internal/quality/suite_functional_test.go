package main

import "testing"

// TestFunctionalHalves checks the functional suites that are split into a
// tuning and a held-out half by template: every case names its template
// and half, every template lies wholly in one half, and every phenomenon
// has cases in both halves and one label only.
func TestFunctionalHalves(t *testing.T) {
	for _, slug := range []string{"toxicity-detector", "prompt-injection"} {
		t.Run(slug, func(t *testing.T) {
			cases, err := loadFunctional(slug)
			if err != nil {
				t.Fatal(err)
			}
			templateHalf := map[string]string{}
			halves := map[string]map[string]bool{}
			label := map[string]bool{}
			seen := map[string]bool{}
			for _, c := range cases {
				if c.Template == "" || (c.Half != "tuning" && c.Half != "heldout") {
					t.Fatalf("%s: case %q has template %q, half %q", c.File, c.Text, c.Template, c.Half)
				}
				if seen[c.Text] {
					t.Errorf("%s: case %q appears twice", c.File, c.Text)
				}
				seen[c.Text] = true
				if h, ok := templateHalf[c.Template]; ok && h != c.Half {
					t.Errorf("template %s is in both halves", c.Template)
				}
				templateHalf[c.Template] = c.Half
				if l, ok := label[c.Phenomenon]; ok && l != c.Label {
					t.Errorf("phenomenon %s mixes labels", c.Phenomenon)
				}
				label[c.Phenomenon] = c.Label
				if halves[c.Phenomenon] == nil {
					halves[c.Phenomenon] = map[string]bool{}
				}
				halves[c.Phenomenon][c.Half] = true
			}
			var pos, neg int
			for phen, l := range label {
				if len(halves[phen]) != 2 {
					t.Errorf("phenomenon %s is not in both halves", phen)
				}
				if l {
					pos++
				} else {
					neg++
				}
			}
			if pos == 0 || neg == 0 {
				t.Errorf("%d positive and %d negative phenomena, want both", pos, neg)
			}
		})
	}
}

// TestFunctionalHalvesReports scores a stub evaluator (flags every case
// whose text contains "e") through functionalHalves: two reports, in-source
// then functional, whose sizes add up to the suite, with the held-out
// half's misses left out.
func TestFunctionalHalvesReports(t *testing.T) {
	cases, err := loadFunctional("prompt-injection")
	if err != nil {
		t.Fatal(err)
	}
	rs, err := functionalHalves("prompt-injection", "f1", "target", func(s string) (bool, error) {
		for i := 0; i < len(s); i++ {
			if s[i] == 'e' {
				return true, nil
			}
		}
		return false, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) != 2 || rs[0].Kind != KindInSource || rs[1].Kind != KindFunctional || rs[0].N+rs[1].N != len(cases) {
		t.Fatalf("reports = %d, kinds %v/%v, n %d+%d of %d", len(rs), rs[0].Kind, rs[1].Kind, rs[0].N, rs[1].N, len(cases))
	}
	for _, g := range rs[1].Breakdown {
		if len(g.Misses) != 0 {
			t.Errorf("held-out group %s quotes misses %q", g.Name, g.Misses)
		}
	}
	quoted := 0
	for _, g := range rs[0].Breakdown {
		quoted += len(g.Misses)
	}
	if quoted == 0 {
		t.Error("tuning half quotes no misses, want the stub's errors quoted")
	}
}
