package main

import (
	"fmt"
	"sort"
	"strings"
	"time"
)

// Kind says how the rows of a report relate to the data the evaluator was
// trained or tuned on. QUALITY.md shows the headline figure of each kind
// side by side, so in-source figures never stand alone.
type Kind string

// The kinds of split, in the order of the summary table's columns.
const (
	// KindInSource: rows of the source the evaluator was trained or tuned
	// on (the tuning half itself, or cross-validation within that source).
	KindInSource Kind = "in-source (tuned on)"
	// KindCrossSource: a labelled source never used for training or tuning.
	KindCrossSource Kind = "cross-source"
	// KindHeldOutGroups: groups of the tuning source never seen while
	// tuning (template ids, topics), so no row shares a frame with a tuned one.
	KindHeldOutGroups Kind = "held-out groups"
	// KindFunctional: hand-written functional suites kept in
	// testdata/functional (see functional.go).
	KindFunctional Kind = "functional suite"
	// KindUnlabelled: unlabelled text, reported as a flag rate.
	KindUnlabelled Kind = "unlabelled (flag rate)"
	// KindTiming: a timing row without quality figures.
	KindTiming Kind = "timing"
)

// summaryKinds are the columns of the summary table.
var summaryKinds = []Kind{KindInSource, KindCrossSource, KindHeldOutGroups, KindFunctional, KindUnlabelled}

// Report is one row of QUALITY.md: an evaluator scored on one dataset.
type Report struct {
	Slug    string
	Dataset string // e.g. "sexism/edos-dev.jsonl"
	Kind    Kind   // how the rows relate to the tuning data ("" = not classified yet)
	Split   string // how the rows were chosen, e.g. "dev (not trained on)", "held-out 20%, seed 1"
	N       int
	// Metrics by name: "precision", "recall", "f1", "macro_f1", "roc_auc",
	// "pearson", "spearman", "fpr", ... (NaN when not applicable).
	Metrics map[string]float64
	// Headline names the metric of Metrics shown in the summary table (""
	// keeps the row out of the summary).
	Headline  string
	Threshold string        // the decision threshold used, as text
	PerCall   time.Duration // mean wall time of one Evaluate call
	Target    string        // the target of the quality issue, e.g. "macro_f1 >= 0.80"
	Notes     string
	// Breakdown holds per-group figures (the phenomena of a functional
	// suite), rendered as a table of their own below the main table.
	Breakdown []Group
}

// Group is one line of a Report's breakdown.
type Group struct {
	Name      string
	N         int
	Positives int
	Metrics   map[string]float64
	Misses    []string // a few wrongly scored texts, for the reader
}

// Line is a one-line summary for the terminal.
func (r Report) Line() string {
	return fmt.Sprintf("%-22s %-45s n=%-6d %s  %s/call", r.Slug, r.Dataset, r.N, metricText(r.Metrics), r.PerCall)
}

// metricText prints metrics sorted by name.
func metricText(m map[string]float64) string {
	names := make([]string, 0, len(m))
	for k := range m {
		names = append(names, k)
	}
	sort.Strings(names)
	parts := make([]string, len(names))
	for i, k := range names {
		parts[i] = fmt.Sprintf("%s=%.3f", k, m[k])
	}
	return strings.Join(parts, " ")
}

func renderMarkdown(rs []Report) string {
	var b strings.Builder
	b.WriteString("# Evaluator quality\n\n")
	b.WriteString("Written by `go run ./evaluators/internal/quality -data ../shared/data` (from the repository root).\n")
	b.WriteString("Every row scores an evaluator through `evaluators.Evaluate`, as the API runs it. The `kind` column says how the rows relate to what the evaluator was trained or tuned on: " +
		"`in-source (tuned on)` rows are shown for comparison only; `cross-source`, `held-out groups` and `functional suite` rows were never seen in training or tuning.\n\n")
	renderSummary(&b, rs)
	b.WriteString("## All rows\n\n")
	b.WriteString("| evaluator | kind | dataset | split | n | metrics | threshold | time/call | target | notes |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|---|---|\n")
	for _, r := range rs {
		kind := string(r.Kind)
		if kind == "" {
			kind = "-"
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s | %d | %s | %s | %s | %s | %s |\n",
			r.Slug, kind, r.Dataset, r.Split, r.N, metricText(r.Metrics), r.Threshold, r.PerCall.Round(100*time.Nanosecond), r.Target, r.Notes)
	}
	renderBreakdowns(&b, rs)
	return b.String()
}

// renderSummary writes one line per evaluator and headline metric with the
// figures of every kind side by side.
func renderSummary(b *strings.Builder, rs []Report) {
	type key struct{ slug, metric string }
	var keys []key
	cells := map[key]map[Kind][]string{}
	targets := map[key]string{}
	for _, r := range rs {
		if r.Headline == "" {
			continue
		}
		k := key{r.Slug, r.Headline}
		if cells[k] == nil {
			cells[k] = map[Kind][]string{}
			keys = append(keys, k)
			targets[k] = r.Target
		}
		cells[k][r.Kind] = append(cells[k][r.Kind], fmt.Sprintf("**%.3f** %s (n=%d)", r.Metrics[r.Headline], r.Dataset, r.N))
	}
	if len(keys) == 0 {
		return
	}
	b.WriteString("## Summary\n\n")
	b.WriteString("| evaluator | metric |")
	for _, k := range summaryKinds {
		fmt.Fprintf(b, " %s |", k)
	}
	b.WriteString(" target |\n|---|---|")
	for range summaryKinds {
		b.WriteString("---|")
	}
	b.WriteString("---|\n")
	for _, k := range keys {
		fmt.Fprintf(b, "| `%s` | %s |", k.slug, k.metric)
		for _, kind := range summaryKinds {
			c := strings.Join(cells[k][kind], "<br>")
			if c == "" {
				c = "-"
			}
			fmt.Fprintf(b, " %s |", c)
		}
		fmt.Fprintf(b, " %s |\n", targets[k])
	}
	b.WriteString("\n")
}

// renderBreakdowns writes the per-group table of every report that has one.
func renderBreakdowns(b *strings.Builder, rs []Report) {
	for _, r := range rs {
		if len(r.Breakdown) == 0 {
			continue
		}
		fmt.Fprintf(b, "\n## `%s`: %s, %s, by group\n\n", r.Slug, r.Dataset, r.Kind)
		b.WriteString("| group | n | positives | metrics | examples scored wrong |\n|---|---|---|---|---|\n")
		for _, g := range r.Breakdown {
			quoted := make([]string, len(g.Misses))
			for i, m := range g.Misses {
				quoted[i] = "`" + strings.NewReplacer("`", "'", "|", "\\|", "\n", " ").Replace(m) + "`"
			}
			fmt.Fprintf(b, "| %s | %d | %d | %s | %s |\n", g.Name, g.N, g.Positives, metricText(g.Metrics), strings.Join(quoted, "; "))
		}
	}
}
