package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/evalcol/evalcol/evaluators"
	"github.com/evalcol/evalcol/evaluators/internal/secrets/fixtures"
)

// Fixture sizes and seed of the secrets suite.
const (
	secretsSeed       = 2026
	secretsPerFamily  = 30
	secretsNegatives  = 300 // per kind (prose, code)
	secretsRealChunks = 400 // per kind (prose, code) of real text
	codeChunkBytes    = 1500
)

// secretsCodePackages are standard-library folders whose non-test files
// serve as ordinary code without secrets.
var secretsCodePackages = []string{"net/smtp", "database/sql", "net/mail", "bufio", "strings", "sort", "encoding/json", "net/url", "text/template", "os/exec", "flag", "archive/zip", "go/format", "net/http"}

// secretsQuality scores secrets-detector on generated credentials and
// generated negatives (package fixtures, fixed seed), and on real prose
// (HaluEval knowledge paragraphs) and real code (Go standard library
// sources) for false positives.
func secretsQuality(dataDir string) ([]Report, error) {
	samples := fixtures.Generate(secretsSeed, secretsPerFamily, secretsNegatives)
	pred, label, perCall, err := runSecrets(samples)
	if err != nil {
		return nil, err
	}
	m := binaryMetrics(pred, label)
	// Recall of the weakest family.
	hit, total := map[string]int{}, map[string]int{}
	for i, s := range samples {
		if s.Secret {
			total[s.Kind]++
			if pred[i] {
				hit[s.Kind]++
			}
		}
	}
	worst, worstKind := 1.0, ""
	kinds := make([]string, 0, len(total))
	for k := range total {
		kinds = append(kinds, k)
	}
	sort.Strings(kinds)
	for _, k := range kinds {
		if r := float64(hit[k]) / float64(total[k]); r < worst {
			worst, worstKind = r, k
		}
	}
	m["min_family_recall"] = worst

	real, err := realNegatives(dataDir)
	if err != nil {
		return nil, err
	}
	realPred, realLabel, realPerCall, err := runSecrets(real)
	if err != nil {
		return nil, err
	}
	fp := map[string]int{}
	n := map[string]int{}
	for i, s := range real {
		n[s.Kind]++
		if realPred[i] {
			fp[s.Kind]++
		}
	}
	realMetrics := map[string]float64{"fpr": binaryMetrics(realPred, realLabel)["fpr"]}
	for k := range n {
		realMetrics["fpr_"+k] = float64(fp[k]) / float64(n[k])
	}
	split := fmt.Sprintf("generated, seed %d: %d credentials (%d families x %d), %d prose + %d code negatives", secretsSeed, secretsPerFamily*len(total), len(total), secretsPerFamily, secretsNegatives, secretsNegatives)
	return []Report{
		{
			Slug: "secrets-detector", Dataset: "generated (internal/secrets/fixtures)", Split: split, N: len(samples),
			Metrics: m, Threshold: "-", PerCall: perCall, Target: "recall >= 0.95, fpr <= 0.02",
			Notes: weakestNote(worstKind, worst),
		},
		{
			Slug: "secrets-detector", Dataset: "qa/halueval-one-turn.jsonl + Go std library", Split: fmt.Sprintf("first %d knowledge paragraphs; %d-byte chunks of %d std packages", n["prose"], codeChunkBytes, len(secretsCodePackages)), N: len(real),
			Metrics: realMetrics, Threshold: "-", PerCall: realPerCall, Target: "fpr <= 0.02",
			Notes: "real prose and real code without secrets: false positives only",
		},
	}, nil
}

func runSecrets(samples []fixtures.Sample) (pred, label []bool, perCall time.Duration, err error) {
	ctx := context.Background()
	pred = make([]bool, len(samples))
	label = make([]bool, len(samples))
	var elapsed time.Duration
	for i, s := range samples {
		t0 := time.Now()
		res, err := evaluators.Evaluate(ctx, "secrets-detector", map[string]any{"text": s.Text}, nil)
		elapsed += time.Since(t0)
		if err != nil {
			return nil, nil, 0, fmt.Errorf("sample %d (%s): %w", i, s.Kind, err)
		}
		pred[i], _ = res["has_secret"].(bool)
		label[i] = s.Secret
	}
	return pred, label, elapsed / time.Duration(max(1, len(samples))), nil
}

// realNegatives returns real prose (distinct HaluEval knowledge
// paragraphs) and real code (chunks of Go standard library sources).
func realNegatives(dataDir string) ([]fixtures.Sample, error) {
	type qaRow struct {
		Context string `json:"context"`
	}
	rows, err := readJSONL[qaRow](dataDir, "qa/halueval-one-turn.jsonl")
	if err != nil {
		return nil, err
	}
	var out []fixtures.Sample
	seen := map[string]bool{}
	for _, r := range rows {
		if len(out) == secretsRealChunks {
			break
		}
		if r.Context != "" && !seen[r.Context] {
			seen[r.Context] = true
			out = append(out, fixtures.Sample{Kind: "prose", Text: r.Context})
		}
	}
	goroot, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		return nil, fmt.Errorf("go env GOROOT: %w", err)
	}
	root := filepath.Join(strings.TrimSpace(string(goroot)), "src")
	code := 0
	for _, pkg := range secretsCodePackages {
		files, err := filepath.Glob(filepath.Join(root, pkg, "*.go"))
		if err != nil {
			return nil, fmt.Errorf("list %s: %w", pkg, err)
		}
		sort.Strings(files)
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			b, err := os.ReadFile(f)
			if err != nil {
				return nil, fmt.Errorf("read std source: %w", err)
			}
			for len(b) > 0 && code < secretsRealChunks {
				k := min(len(b), codeChunkBytes)
				out = append(out, fixtures.Sample{Kind: "code", Text: string(b[:k])})
				b = b[k:]
				code++
			}
		}
	}
	return out, nil
}

func weakestNote(kind string, recall float64) string {
	if kind == "" {
		return "every credential family detected in full"
	}
	return fmt.Sprintf("weakest family: %s (recall %.3f)", kind, recall)
}
