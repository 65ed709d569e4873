package sqlite

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/evalcol/evalcol/internal/warehouse"
	"github.com/evalcol/evalcol/internal/warehouse/sqlite/internal/index"
	"github.com/evalcol/evalcol/internal/warehouse/synthspans"
)

// TestAccessesAgree runs random span queries through every access the
// planner can choose for them (and without the postings at all), page by
// page to the end, and expects the same spans in the same order and the
// same total_results, equal to the number of spans. The store holds two
// environments, late spans written after newer ones, and spans without a
// workflow, negative durations and spans without tokens, so that lists
// cross the ends of ranges and hours and every sort bucket is reached.
func TestAccessesAgree(t *testing.T) {
	t.Parallel() // a long test: it overlaps the package's others
	ctx := context.Background()
	// Merges of 3 runs: posting runs of every level.
	st := openWith(t, Options{runFanout: 3})
	start := int64(1_790_000_000_000)
	const hour = int64(3600 * 1000)
	for i, env := range []string{"a", "b"} {
		g := synthspans.New(env, uint64(11+i))
		for k := 0; k < 6; k++ {
			batch := g.Batch(200, start+int64(k)*hour, start+int64(k+1)*hour)
			for j := range batch {
				if j%7 == 0 {
					batch[j].WorkflowName = ""
				}
				if j%5 == 0 {
					batch[j].SpanAttributes["user.id"] = synthspans.UserID(j % 3)
				}
				if j%11 == 0 { // negative durations: the null bucket
					batch[j].Duration = -int64(j%3) - 1
				}
				if j%13 == 0 {
					batch[j].TotalTokens = 0
				}
				if j%3 == 0 { // keys some spans carry: exists / not_exists
					delete(batch[j].SpanAttributes, "http.method")
				}
				if j%17 == 0 {
					batch[j].SpanAttributes["rare.key"] = strings.Repeat("long value ", 40) // beyond the value postings
				}
			}
			if err := st.WriteSpans(ctx, batch); err != nil {
				t.Fatal(err)
			}
		}
		// Late spans: an earlier hour written last.
		if err := st.WriteSpans(ctx, g.Batch(150, start+hour/2, start+3*hour)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := st.mergeRuns(ctx); err != nil {
		t.Fatal(err)
	}
	var levels int
	if err := st.reader.QueryRowContext(ctx, `SELECT count(DISTINCT level) FROM posting_runs`).Scan(&levels); err != nil || levels < 2 {
		t.Fatalf("posting runs of %d levels (%v), want runs of two levels at least", levels, err)
	}
	rng := rand.New(rand.NewPCG(5, 6))
	filters := [][]warehouse.Filter{
		nil,
		{{Field: "user.id", Operator: warehouse.OpEquals, Value: synthspans.UserID(1)}},
		{{Field: "llm.request.model", Operator: warehouse.OpIn, Values: []string{"gpt-4o", "o3-mini", "gpt-4o"}}},
		{{Field: "workflow_name", Operator: warehouse.OpEquals, Value: "workflow-3"}},
		{{Field: "workflow_name", Operator: warehouse.OpEquals, Value: ""}},
		{{Field: "http.method", Operator: warehouse.OpEquals, Value: "POST"}},
		{{Field: "span_name", Operator: warehouse.OpContains, Value: "operation.01"}},
		{{Field: "duration_ms", Operator: warehouse.OpGreaterThan, Value: "20000"}},
		{{Field: "user.id", Operator: warehouse.OpEquals, Value: synthspans.UserID(2)},
			{Field: "duration_ms", Operator: warehouse.OpLessThan, Value: "15000"}},
		{{Field: "service_name", Operator: warehouse.OpEquals, Value: "service-7"},
			{Field: "llm.request.model", Operator: warehouse.OpEquals, Value: "gpt-4o"}},
		{{Field: "user.id", Operator: warehouse.OpEquals, Value: "nobody"}},
		{{Field: "llm.request.model", Operator: warehouse.OpNotEquals, Value: "gpt-4o"}},
		{{Field: "user.id", Operator: warehouse.OpNotIn, Values: []string{synthspans.UserID(1), synthspans.UserID(2)}}},
		{{Field: "workflow_name", Operator: warehouse.OpNotEquals, Value: "workflow-3"}},
		// Comparisons counted through a bucketed index (countByBucket):
		// both sides of a bucket's edge, fractions, the null bucket.
		{{Field: "duration_ms", Operator: warehouse.OpLessThanOrEqual, Value: "512"}},
		{{Field: "duration", Operator: warehouse.OpLessThan, Value: "4096.5"}},
		{{Field: "duration_ms", Operator: warehouse.OpGreaterThanOrEqual, Value: "28671.2"}},
		{{Field: "duration_ms", Operator: warehouse.OpLessThan, Value: "0"}},
		{{Field: "duration_ms", Operator: warehouse.OpLessThanOrEqual, Value: "25000"}}, // the other side is counted
		{{Field: "llm_usage_total_tokens", Operator: warehouse.OpGreaterThan, Value: "-1"}},
		{{Field: "total_tokens", Operator: warehouse.OpLessThanOrEqual, Value: "255"}},
		{{Field: "total_tokens", Operator: warehouse.OpGreaterThanOrEqual, Value: "1e30"}}, // beyond the index: a scan
		// Attribute keys' own lists.
		{{Field: "http.method", Operator: warehouse.OpExists}},
		{{Field: "span_attributes.rare.key", Operator: warehouse.OpExists}},
		{{Field: "rare.key", Operator: warehouse.OpNotExists}},
		{{Field: "http.method", Operator: warehouse.OpNotExists}},
		{{Field: "no.such.key", Operator: warehouse.OpExists}},
		{{Field: "rare.key", Operator: warehouse.OpExists}, {Field: "user.id", Operator: warehouse.OpEquals, Value: synthspans.UserID(1)}},
		// Resolved by the value dictionary.
		{{Field: "user.id", Operator: warehouse.OpStartsWith, Value: "user-00"}},
		{{Field: "session.id", Operator: warehouse.OpContains, Value: "ab"}},
		{{Field: "llm.usage.total_tokens", Operator: warehouse.OpGreaterThan, Value: "2900", ValueType: warehouse.TypeNumber}},
		{{Field: "llm.usage.input_tokens", Operator: warehouse.OpLessThan, Value: "30"}},
		{{Field: "llm.usage.output_tokens", Operator: warehouse.OpIn, Values: []string{"7", "1e1", "20.0"}, ValueType: warehouse.TypeNumber}},
		{{Field: "llm.is_streaming", Operator: warehouse.OpEquals, Value: "FALSE", ValueType: warehouse.TypeBoolean}},
		{{Field: "rare.key", Operator: warehouse.OpContains, Value: "long"}}, // a gap: read
		{{Field: "llm.usage.output_tokens", Operator: warehouse.OpNotEquals, Value: "7", ValueType: warehouse.TypeNumber}},
		// Resource attributes: their postings (migration 22).
		{{Field: "resource.service.name", Operator: warehouse.OpEquals, Value: "service-7"}},
		{{Field: "resource.service.name", Operator: warehouse.OpIn, Values: []string{"service-1", "service-30"}}},
		{{Field: "resource_attributes.service.name", Operator: warehouse.OpNotEquals, Value: "service-3"}},
		{{Field: "resource.service.name", Operator: warehouse.OpEquals, Value: "service-7"},
			{Field: "user.id", Operator: warehouse.OpEquals, Value: synthspans.UserID(1)}},
		{{Field: "user.id", Operator: warehouse.OpStartsWith, Value: "user-00"},
			{Field: "duration_ms", Operator: warehouse.OpLessThan, Value: "15000"}},
	}
	sorts := []warehouse.SortKey{warehouse.SortTimestamp, warehouse.SortDuration, warehouse.SortSpanName,
		warehouse.SortTraceID, warehouse.SortTotalTokens, warehouse.SortWorkflowName, warehouse.SortEntityName,
		warehouse.SortResponseModel}
	// The first queries draw a filter and a sort; the rest are sorted by
	// span name without filters (the name merge). Fewer under -race, which
	// slows SQLite ~30×.
	random, byName := 50, 20
	if raceEnabled {
		random, byName = 30, 10
	}
	for i := range random + byName {
		q := warehouse.SpanQuery{Environments: [][]string{{"a"}, {"b"}, {"a", "b"}}[rng.IntN(3)],
			Filters: filters[rng.IntN(len(filters))], SortBy: sorts[rng.IntN(len(sorts))], Desc: rng.IntN(2) == 0,
			Limit: []int{9, 100, 400}[rng.IntN(3)]}
		if i >= random {
			q.Filters, q.SortBy = nil, warehouse.SortSpanName
		}
		switch rng.IntN(4) {
		case 0: // everything, in pages of 100 or more
			q.Limit = max(q.Limit, 100)
		case 1: // an hour and a half, off the minute and hour boundaries
			q.FromMs = start + rng.Int64N(4*hour) + 12_345
			q.ToMs = q.FromMs + hour + hour/2
		case 2: // open-ended
			q.FromMs = start + rng.Int64N(5*hour)
		case 3: // less than a minute
			q.FromMs = start + rng.Int64N(5*hour)
			q.ToMs = q.FromMs + 40_000
		}
		name := fmt.Sprintf("%d %v sort=%s desc=%v from=%d to=%d limit=%d", i, q.Filters, q.SortBy, q.Desc,
			q.FromMs-start, q.ToMs-start, q.Limit)
		want, wantTotal := collectPages(t, st, q, nil)
		if wantTotal != int64(len(want)) {
			t.Fatalf("%s: planner: total %d, %d spans", name, wantTotal, len(want))
		}
		for _, force := range []struct {
			name string
			f    func(spanPlan) spanPlan
		}{
			{"time index", func(p spanPlan) spanPlan { p.Access = index.TimeIndex; return p }},
			{"time index, no postings", func(p spanPlan) spanPlan { p.Access, p.Post = index.TimeIndex, -1; return p }},
			{"hour walk", func(p spanPlan) spanPlan {
				if p.HasPost() && q.SortBy == warehouse.SortTimestamp {
					p.Access = index.HourWalk
				}
				return p
			}},
			{"candidates", func(p spanPlan) spanPlan {
				if p.HasPost() && q.SortBy != warehouse.SortTimestamp {
					p.Access = index.Candidates
				}
				return p
			}},
			{"name merge", func(p spanPlan) spanPlan {
				if q.SortBy == warehouse.SortSpanName && len(q.Filters) == 0 {
					p.Access = index.NameMerge
				}
				return p
			}},
			{"sort index", func(p spanPlan) spanPlan {
				if _, ok := index.SortIndexOf(q.SortBy); ok {
					p.Access = index.SortWalk
				}
				return p
			}},
		} {
			got, total := collectPages(t, st, q, force.f)
			if !slices.Equal(got, want) || total != wantTotal {
				t.Fatalf("%s: %s: %d spans (total %d), planner %d spans (total %d)", name, force.name,
					len(got), total, len(want), wantTotal)
			}
		}
	}
}

// collectPages reads every page of q with the access force chooses (nil:
// the planner's) and returns the span ids in order and the first page's
// total_results.
func collectPages(t *testing.T, st *Store, q warehouse.SpanQuery, force func(spanPlan) spanPlan) ([]string, int64) {
	t.Helper()
	st.forceAccess = force
	defer func() { st.forceAccess = nil }()
	var ids []string
	var total int64
	for page := 0; ; page++ {
		p, err := st.QuerySpans(context.Background(), q)
		if err != nil {
			t.Fatal(err)
		}
		if page == 0 {
			total = p.TotalResults
		}
		for _, sp := range p.Spans {
			ids = append(ids, sp.Environment+"/"+sp.SpanID)
		}
		if p.NextCursor == "" {
			return ids, total
		}
		if page > 1000 {
			t.Fatal("more than 1000 pages")
		}
		q.Cursor = p.NextCursor
	}
}

// TestKeyPostingKeys: a key's list hash is index.PostingHash of its posting key,
// and keys are listed as the stored JSON spells them (invalid UTF-8 as
// U+FFFD), so that exists finds and counts a span by the key its filter
// names; keys that start like a posting key are left to the scan.
func TestKeyPostingKeys(t *testing.T) {
	for _, k := range []string{"http.method", "", "ü.ß", "a\xffb", "\x00x"} {
		if got, want := index.KeyPostingHash(k), index.PostingHash(index.KeyPostingPrefix+k, ""); got != want {
			t.Errorf("index.KeyPostingHash(%q) = %d, want %d", k, got, want)
		}
	}
	ctx := context.Background()
	st := openWith(t, Options{})
	// s4 and s5 carry "\x01x" = "", whose value list would be x's key list
	// if such keys were listed.
	spans := []warehouse.Span{
		{Environment: "a", TraceID: "t1", SpanID: "s1", Timestamp: 1_790_000_000_000,
			SpanAttributes: map[string]string{"bad\xff\xfekey": "v", "x": "1"}},
		{Environment: "a", TraceID: "t1", SpanID: "s2", Timestamp: 1_790_000_001_000, SpanAttributes: map[string]string{"x": "2"}},
		{Environment: "a", TraceID: "t1", SpanID: "s3", Timestamp: 1_790_000_002_000, SpanAttributes: map[string]string{"x": "3"}},
		{Environment: "a", TraceID: "t1", SpanID: "s4", Timestamp: 1_790_000_003_000, SpanAttributes: map[string]string{"\x01x": ""}},
		{Environment: "a", TraceID: "t1", SpanID: "s5", Timestamp: 1_790_000_004_000, SpanAttributes: map[string]string{"\x01x": ""}},
	}
	if err := st.WriteSpans(ctx, spans); err != nil {
		t.Fatal(err)
	}
	var stored string
	if err := st.reader.QueryRowContext(ctx, `SELECT span_attributes FROM spans WHERE span_id = 's1'`).Scan(&stored); err != nil {
		t.Fatal(err)
	}
	var decoded map[string]string
	if err := json.Unmarshal([]byte(stored), &decoded); err != nil {
		t.Fatal(err)
	}
	if _, ok := decoded[index.JSONKey("bad\xff\xfekey")]; !ok || index.JSONKey("bad\xff\xfekey") != "bad\uFFFD\uFFFDkey" {
		t.Fatalf("stored keys %q, jsonKey %q", stored, index.JSONKey("bad\xff\xfekey"))
	}
	// Pages of one span: total_results is counted, not read off the page.
	for _, tc := range []struct {
		f    warehouse.Filter
		want int64
	}{
		{warehouse.Filter{Field: "bad\uFFFD\uFFFDkey", Operator: warehouse.OpExists}, 1},
		{warehouse.Filter{Field: "bad\uFFFD\uFFFDkey", Operator: warehouse.OpNotExists}, 4},
		{warehouse.Filter{Field: "x", Operator: warehouse.OpExists}, 3},
		{warehouse.Filter{Field: "x", Operator: warehouse.OpNotExists}, 2},
		{warehouse.Filter{Field: "\x01x", Operator: warehouse.OpExists}, 2},
	} {
		page, err := st.QuerySpans(ctx, warehouse.SpanQuery{Environments: []string{"a"}, Filters: []warehouse.Filter{tc.f}, Limit: 1})
		if err != nil || page.TotalResults != tc.want || len(page.Spans) != 1 {
			t.Errorf("%q %s: %d spans, total %d, %v; want 1 of %d", tc.f.Field, tc.f.Operator, len(page.Spans), page.TotalResults, err, tc.want)
		}
	}
}
