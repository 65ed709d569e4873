package main

import (
	"bufio"
	"bytes"
	"embed"
	"encoding/json"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"
	"time"
)

// Functional suites are hand-written test cases kept in the repository,
// one folder per evaluator and one JSON Lines file per phenomenon:
//
//	testdata/functional/<evaluator slug>/<phenomenon>.jsonl
//
// Each line is a FunctionalCase. A suite loads its cases with
// loadFunctional and scores them with scoreFunctional, which returns one
// KindFunctional report with a per-phenomenon breakdown.

//go:embed testdata/functional
var functionalFS embed.FS

// functionalRoot is the folder of the suites inside functionalFS.
const functionalRoot = "testdata/functional"

// minCasesPerPhenomenon is the least number of cases a phenomenon must
// have, so that its figure means something.
const minCasesPerPhenomenon = 30

// FunctionalCase is one hand-written case.
type FunctionalCase struct {
	Text  string `json:"text"`
	Label bool   `json:"label"` // true = the evaluator should flag it
	// Phenomenon names what the case tests; empty means the file's name
	// without ".jsonl".
	Phenomenon string `json:"phenomenon"`
	// Input holds further evaluator inputs (question, reference, ...).
	Input map[string]string `json:"input,omitempty"`
	// Template and Half, when set, say which hand-written template the
	// case comes from and which half of a split by template it is in:
	// "tuning" (read while choosing rules and thresholds) or "heldout".
	Template string `json:"template,omitempty"`
	Half     string `json:"half,omitempty"`
	Note     string `json:"note,omitempty"`
	// File is the file the case came from (set by the loader).
	File string `json:"-"`
}

// loadFunctional reads every case of the evaluator's folder, in file-name
// order. A line without text and input, without a label, or a phenomenon
// with fewer than minCasesPerPhenomenon cases is an error.
func loadFunctional(slug string) ([]FunctionalCase, error) {
	dir := path.Join(functionalRoot, slug)
	entries, err := fs.ReadDir(functionalFS, dir)
	if err != nil {
		return nil, fmt.Errorf("functional suite %s: %w", slug, err)
	}
	var cases []FunctionalCase
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".jsonl") {
			continue
		}
		name := path.Join(dir, e.Name())
		data, err := functionalFS.ReadFile(name)
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", name, err)
		}
		fileCases, err := parseFunctional(name, data, strings.TrimSuffix(e.Name(), ".jsonl"))
		if err != nil {
			return nil, err
		}
		cases = append(cases, fileCases...)
	}
	if len(cases) == 0 {
		return nil, fmt.Errorf("functional suite %s: no cases in %s", slug, dir)
	}
	count := map[string]int{}
	for _, c := range cases {
		count[c.Phenomenon]++
	}
	for p, n := range count {
		if n < minCasesPerPhenomenon {
			return nil, fmt.Errorf("functional suite %s: phenomenon %q has %d cases, want at least %d", slug, p, n, minCasesPerPhenomenon)
		}
	}
	return cases, nil
}

// parseFunctional decodes the lines of one file; phenomenon is the default
// phenomenon of its cases.
func parseFunctional(name string, data []byte, phenomenon string) ([]FunctionalCase, error) {
	var cases []FunctionalCase
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 1<<16), 1<<20)
	for line := 1; sc.Scan(); line++ {
		raw := bytes.TrimSpace(sc.Bytes())
		if len(raw) == 0 {
			continue
		}
		var c struct {
			FunctionalCase
			Label *bool `json:"label"`
		}
		if err := json.Unmarshal(raw, &c); err != nil {
			return nil, fmt.Errorf("%s line %d: %w", name, line, err)
		}
		if c.Text == "" && len(c.Input) == 0 {
			return nil, fmt.Errorf("%s line %d: no text and no input", name, line)
		}
		if c.Label == nil {
			return nil, fmt.Errorf("%s line %d: no label (true or false)", name, line)
		}
		fc := c.FunctionalCase
		fc.Label = *c.Label
		if fc.Phenomenon == "" {
			fc.Phenomenon = phenomenon
		}
		fc.File = name
		cases = append(cases, fc)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read %s: %w", name, err)
	}
	return cases, nil
}

// maxMissesShown is how many wrongly scored texts a breakdown line quotes.
const maxMissesShown = 3

// scoreFunctional runs predict on every case and returns one
// KindFunctional report: binary metrics over all cases (headline f1 when
// the suite has both classes, accuracy otherwise) and, per phenomenon,
// accuracy plus recall (when it has positives) and fpr (when it has
// negatives). The report's time per call is predict's mean wall time.
func scoreFunctional(slug string, cases []FunctionalCase, predict func(FunctionalCase) (bool, error)) (Report, error) {
	pred := make([]bool, len(cases))
	label := make([]bool, len(cases))
	var elapsed time.Duration
	for i, c := range cases {
		start := time.Now()
		p, err := predict(c)
		elapsed += time.Since(start)
		if err != nil {
			return Report{}, fmt.Errorf("functional suite %s, %s: %w", slug, c.File, err)
		}
		pred[i], label[i] = p, c.Label
	}
	byPhenomenon := map[string][]int{}
	var names []string
	positives := 0
	for i, c := range cases {
		if byPhenomenon[c.Phenomenon] == nil {
			names = append(names, c.Phenomenon)
		}
		byPhenomenon[c.Phenomenon] = append(byPhenomenon[c.Phenomenon], i)
		if c.Label {
			positives++
		}
	}
	sort.Strings(names)
	var groups []Group
	for _, name := range names {
		idx := byPhenomenon[name]
		g := Group{Name: name, N: len(idx)}
		var p, l []bool
		for _, i := range idx {
			p, l = append(p, pred[i]), append(l, label[i])
			if label[i] {
				g.Positives++
			}
			if pred[i] != label[i] && len(g.Misses) < maxMissesShown {
				g.Misses = append(g.Misses, cases[i].Text)
			}
		}
		m := binaryMetrics(p, l)
		g.Metrics = map[string]float64{"accuracy": m["accuracy"]}
		if g.Positives > 0 {
			g.Metrics["recall"] = m["recall"]
		}
		if g.Positives < g.N {
			g.Metrics["fpr"] = m["fpr"]
		}
		groups = append(groups, g)
	}
	headline := "f1"
	if positives == 0 || positives == len(cases) {
		headline = "accuracy"
	}
	return Report{
		Slug: slug, Dataset: path.Join("evaluators/internal/quality", functionalRoot, slug), Kind: KindFunctional,
		Split: fmt.Sprintf("all %d hand-written cases, %d phenomena (not tuned on)", len(cases), len(names)),
		N:     len(cases), Metrics: binaryMetrics(pred, label), Headline: headline,
		PerCall: elapsed / time.Duration(len(cases)), Breakdown: groups,
	}, nil
}
