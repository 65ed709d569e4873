package main

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// TestFunctionalSuites checks the hand-written functional suites: unique
// ids, at least 30 cases per phenomenon, both halves present for every
// phenomenon, and every template wholly in one half (the split is by
// template, never by case).
func TestFunctionalSuites(t *testing.T) {
	for _, path := range []string{toxicityFunctionalPath, injectionFunctionalPath} {
		t.Run(filepath.Base(filepath.Dir(filepath.Dir(path))), func(t *testing.T) {
			f, err := os.Open(filepath.Join("..", "..", "..", path))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			ids := map[string]bool{}
			perPhen := map[string]int{}
			halves := map[string]map[string]bool{}
			templateHalf := map[string]string{}
			label := map[string]bool{}
			sc := bufio.NewScanner(f)
			for line := 1; sc.Scan(); line++ {
				var r functionalRow
				if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
					t.Fatalf("line %d: %v", line, err)
				}
				if r.ID == "" || r.Text == "" || r.Phenomenon == "" || r.Template == "" {
					t.Fatalf("line %d: id, text, phenomenon and template are required: %+v", line, r)
				}
				if ids[r.ID] {
					t.Errorf("line %d: duplicate id %s", line, r.ID)
				}
				ids[r.ID] = true
				if r.Half != "tuning" && r.Half != "heldout" {
					t.Errorf("line %d: half %q", line, r.Half)
				}
				if h, ok := templateHalf[r.Template]; ok && h != r.Half {
					t.Errorf("template %s is in both halves", r.Template)
				}
				templateHalf[r.Template] = r.Half
				if l, ok := label[r.Phenomenon]; ok && l != r.Label {
					t.Errorf("phenomenon %s mixes labels", r.Phenomenon)
				}
				label[r.Phenomenon] = r.Label
				perPhen[r.Phenomenon]++
				if halves[r.Phenomenon] == nil {
					halves[r.Phenomenon] = map[string]bool{}
				}
				halves[r.Phenomenon][r.Half] = true
			}
			if err := sc.Err(); err != nil {
				t.Fatal(err)
			}
			for phen, n := range perPhen {
				if n < 30 {
					t.Errorf("phenomenon %s has %d cases, want at least 30", phen, n)
				}
				if len(halves[phen]) != 2 {
					t.Errorf("phenomenon %s is not in both halves", phen)
				}
			}
			var pos, neg int
			for _, l := range label {
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
