package main

import (
	"fmt"
	"sort"
	"strings"
	"time"
)

// Report is one row of QUALITY.md: an evaluator scored on one dataset.
type Report struct {
	Slug    string
	Dataset string // e.g. "sexism/edos-dev.jsonl"
	Split   string // how the rows were chosen, e.g. "dev (not trained on)", "held-out 20%, seed 1"
	N       int
	// Metrics by name: "precision", "recall", "f1", "macro_f1", "roc_auc",
	// "pearson", "spearman", "fpr", ... (NaN when not applicable).
	Metrics   map[string]float64
	Threshold string        // the decision threshold used, as text
	PerCall   time.Duration // mean wall time of one Evaluate call
	Target    string        // the target of the quality issue, e.g. "macro_f1 >= 0.80"
	Notes     string
}

// Line is a one-line summary for the terminal.
func (r Report) Line() string {
	return fmt.Sprintf("%-22s %-45s n=%-6d %s  %s/call", r.Slug, r.Dataset, r.N, r.metricText(), r.PerCall)
}

func (r Report) metricText() string {
	names := make([]string, 0, len(r.Metrics))
	for k := range r.Metrics {
		names = append(names, k)
	}
	sort.Strings(names)
	parts := make([]string, len(names))
	for i, k := range names {
		parts[i] = fmt.Sprintf("%s=%.3f", k, r.Metrics[k])
	}
	return strings.Join(parts, " ")
}

func renderMarkdown(rs []Report) string {
	var b strings.Builder
	b.WriteString("# Evaluator quality\n\n")
	b.WriteString("Written by `go run ./evaluators/internal/quality` (from the repository root, with ../shared/data beside it).\n")
	b.WriteString("Every row scores an evaluator through `evaluators.Evaluate`, as the API runs it, on data not used for its training.\n\n")
	b.WriteString("| evaluator | dataset | split | n | metrics | threshold | time/call | target | notes |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|---|\n")
	for _, r := range rs {
		fmt.Fprintf(&b, "| `%s` | %s | %s | %d | %s | %s | %s | %s | %s |\n",
			r.Slug, r.Dataset, r.Split, r.N, r.metricText(), r.Threshold, r.PerCall.Round(100*time.Nanosecond), r.Target, r.Notes)
	}
	return b.String()
}
