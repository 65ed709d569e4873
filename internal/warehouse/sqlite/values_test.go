package sqlite

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/evalcol/evalcol/internal/warehouse"
	"github.com/evalcol/evalcol/internal/warehouse/sqlite/internal/index"
)

// TestValueDictionary: filters the dictionary resolves (comparisons,
// contains, starts_with, typed equality on attributes) count and page
// exactly as a scan does, and are resolved only where the dictionary
// records every span of the range: not over hours where the key held a
// value the postings cannot list (long, invalid UTF-8), not for negated
// operators.
func TestValueDictionary(t *testing.T) {
	ctx := context.Background()
	st := openWith(t, Options{runFanout: 3})
	const hour = int64(3600 * 1000)
	start := int64(1_790_000_000_000) / hour * hour // the dictionary's hours
	tiers := []string{"gold", "silver", "bronze", "gold-plus", "g*[l]?d"}
	write := func(env string, h, n int) {
		t.Helper()
		var spans []warehouse.Span
		for i := range n {
			attrs := map[string]string{
				"tier":  tiers[(i+h)%len(tiers)],
				"n":     fmt.Sprint((i * 7) % 50),
				"flag":  []string{"true", "False", "no"}[i%3],
				"note":  "short note",
				"mixed": "plain",
			}
			if h == 2 && i == 3 {
				attrs["note"] = strings.Repeat("a long note ", 30) // beyond the postings: a gap in hour 2
			}
			if env == "b" && i == 0 {
				attrs["tier"] = "gold-b" // a value of one environment only
			}
			if h == 3 && i == 1 {
				attrs["mixed"] = "bad\xffutf8" // stored as U+FFFD: a gap in hour 3
			}
			if h == 1 && i == 2 {
				attrs["key\xff"] = "v" // a key stored as "key\uFFFD": a gap of that key
			}
			spans = append(spans, warehouse.Span{Environment: env, TraceID: fmt.Sprintf("t%d", h), SpanID: fmt.Sprintf("%s-%d-%d", env, h, i),
				Timestamp: start + int64(h)*hour + int64(i)*1000, SpanAttributes: attrs})
		}
		if err := st.WriteSpans(ctx, spans); err != nil {
			t.Fatal(err)
		}
	}
	for h := range 4 {
		write("a", h, 40)
		write("b", h, 30)
	}
	type check struct {
		f        warehouse.Filter
		from, to int64 // hours, inclusive
		resolved bool
	}
	f := func(field string, op warehouse.Operator, v string, vt warehouse.ValueType) warehouse.Filter {
		return warehouse.Filter{Field: field, Operator: op, Value: v, ValueType: vt}
	}
	checks := []check{
		{f("tier", warehouse.OpStartsWith, "gold", ""), 0, 1, true},
		{f("tier", warehouse.OpStartsWith, "gold", ""), 3, 3, true},
		{f("tier", warehouse.OpContains, "l", ""), 1, 2, true},
		{f("tier", warehouse.OpContains, "zz", ""), 0, 3, true},   // no value matches: none counted
		{f("tier", warehouse.OpContains, "*[l]", ""), 0, 1, true}, // GLOB's special characters, as text
		{f("tier", warehouse.OpContains, "?", ""), 3, 3, true},
		{f("tier", warehouse.OpContains, "[", ""), 0, 1, true},
		{f("tier", warehouse.OpContains, "g*", ""), 0, 1, true},
		{f("tier", warehouse.OpContains, "", ""), 0, 1, true},

		{f("n", warehouse.OpGreaterThan, "40", ""), 0, 3, true},
		{f("n", warehouse.OpLessThanOrEqual, "7.0", warehouse.TypeNumber), 1, 1, true},
		{f("n", warehouse.OpEquals, "1.4e1", warehouse.TypeNumber), 0, 3, true},
		{f("flag", warehouse.OpEquals, "TRUE", warehouse.TypeBoolean), 0, 3, true},
		{f("note", warehouse.OpContains, "note", ""), 0, 1, true},
		{f("note", warehouse.OpContains, "note", ""), 0, 3, false}, // hour 2 holds a long note
		{f("note", warehouse.OpStartsWith, "a long", ""), 2, 2, false},
		{f("mixed", warehouse.OpContains, "bad", ""), 3, 3, false}, // invalid UTF-8 in hour 3
		{f("mixed", warehouse.OpContains, "\uFFFD", ""), 0, 3, false},
		{f("mixed", warehouse.OpStartsWith, "pl", ""), 0, 2, true},
		{f("key\uFFFD", warehouse.OpContains, "v", ""), 0, 3, false},
		{f("n", warehouse.OpNotEquals, "14", warehouse.TypeNumber), 0, 3, false}, // negated: also spans without it
		{f("tier", warehouse.OpEquals, "gold", ""), 0, 3, false},                 // the postings' own
		{f("\x01tier", warehouse.OpContains, "g", ""), 0, 3, false},              // a reserved key
	}
	envSets := [][]string{{"a"}, {"a", "b"}}
	if raceEnabled { // ~30× slower: both environments' keys at once only
		envSets = envSets[1:]
	}
	run := func(stage string, checks []check) {
		t.Helper()
		for _, c := range checks {
			for _, envs := range envSets {
				q := warehouse.SpanQuery{Environments: envs, FromMs: start + c.from*hour, ToMs: start + c.to*hour + hour - 1,
					Filters: []warehouse.Filter{c.f}, Limit: 20}
				name := fmt.Sprintf("%s: %q %s %q %s, hours %d-%d, %v", stage, c.f.Field, c.f.Operator, c.f.Value, c.f.ValueType, c.from, c.to, envs)
				want, wantTotal := collectPages(t, st, q, func(p spanPlan) spanPlan { p.Access, p.Post = index.TimeIndex, -1; return p })
				if wantTotal != int64(len(want)) {
					t.Fatalf("%s: scan: total %d, %d spans", name, wantTotal, len(want))
				}
				var plan spanPlan
				got, total := collectPages(t, st, q, func(p spanPlan) spanPlan { plan = p; return p })
				if !slices.Equal(got, want) || total != wantTotal {
					t.Errorf("%s: %d spans (total %d), scan %d (total %d)", name, len(got), total, len(want), wantTotal)
				}
				if resolved := plan.HasPost() && plan.post().Resolved; resolved != c.resolved {
					t.Errorf("%s: resolved %v, want %v", name, resolved, c.resolved)
				}
				if c.resolved && plan.PostSpans != wantTotal {
					t.Errorf("%s: the postings list %d spans, want %d", name, plan.PostSpans, wantTotal)
				}
			}
		}
	}
	run("written", checks)
	if _, err := st.mergeRuns(ctx); err != nil {
		t.Fatal(err)
	}
	run("merged", checks)
}
