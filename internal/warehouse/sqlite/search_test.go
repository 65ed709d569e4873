package sqlite

import (
	"context"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/evalcol/evalcol/internal/warehouse"
	"github.com/evalcol/evalcol/internal/warehouse/sqlite/internal/index"
	"github.com/evalcol/evalcol/internal/warehouse/synthspans"
)

// TestSearchPathsAgree runs full-text searches through the FTS
// candidates (few matches) and through the per-span probe (many: the
// candidate limit at 0), with several sorts and a filter, paging, and
// compares both with the spans whose search text holds every term (Go).
func TestSearchPathsAgree(t *testing.T) {
	t.Parallel() // a long test: it overlaps the package's others
	ctx := context.Background()
	st := openTemp(t)
	defer st.Close()
	start := int64(1_790_000_000_000)
	spans := synthspans.New("env", 11).WithText(3).Batch(2000, start, start+4*3600*1000)
	if err := st.WriteSpans(ctx, spans); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		q    warehouse.SpanQuery
	}{
		{"word, time", warehouse.SpanQuery{Text: "Invoice", Desc: true}},
		{"phrase, duration", warehouse.SpanQuery{Text: `"the inv"`, SortBy: warehouse.SortDuration, Desc: true}},
		{"two words, tokens, range", warehouse.SpanQuery{Text: "garden weather", SortBy: warehouse.SortTotalTokens,
			FromMs: start + 3600*1000, ToMs: start + 3*3600*1000}},
		{"word and filter, span name", warehouse.SpanQuery{Text: "jane.doe@EXAMPLE", SortBy: warehouse.SortSpanName,
			Filters: []warehouse.Filter{{Field: "llm.request.model", Operator: warehouse.OpEquals, Value: "gpt-4o"}}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			q := tc.q
			q.Environments, q.Limit = []string{"env"}, 40
			terms, err := warehouse.SearchTerms(q.Text)
			if err != nil {
				t.Fatal(err)
			}
			var want []string
			for i := range spans {
				sp := &spans[i]
				text := warehouse.SearchText(sp)
				all := true
				for _, term := range terms {
					all = all && len(warehouse.SearchHits(text, []string{term})) > 0
				}
				inRange := sp.Timestamp >= q.FromMs && (q.ToMs == 0 || sp.Timestamp <= q.ToMs)
				if all && inRange && (len(q.Filters) == 0 || sp.RequestModel == "gpt-4o") {
					want = append(want, sp.SpanID)
				}
			}
			slices.Sort(want)
			collect := func(maxCandidates int) ([]string, int64) { return spanIDsWith(t, st, q, maxCandidates) }
			few, fewTotal := collect(index.DefaultMaxCandidates)
			many, manyTotal := collect(0)
			if len(few) == 0 || !slices.Equal(few, many) || fewTotal != manyTotal || fewTotal != int64(len(few)) {
				t.Fatalf("candidates: %d spans (total %d); probe: %d spans (total %d); want the same, non-empty",
					len(few), fewTotal, len(many), manyTotal)
			}
			slices.Sort(few)
			if !slices.Equal(few, want) {
				t.Errorf("found %d spans, want the %d whose text holds %q", len(few), len(want), terms)
			}
		})
	}
}

// TestSearchIndexFollowsRetention: a pruned span leaves the index.
func TestSearchIndexFollowsRetention(t *testing.T) {
	ctx := context.Background()
	st := openRetention(t, warehouse.Retention{Spans: time.Hour, Grace: -1})
	old := time.Now().Add(-48 * time.Hour).UnixMilli()
	spans := synthspans.New("env", 5).WithText(5).Batch(50, old, old+1000)
	if err := st.WriteSpans(ctx, spans); err != nil {
		t.Fatal(err)
	}
	count := func() (n int) {
		if err := st.reader.QueryRowContext(ctx, `SELECT count(*) FROM span_text WHERE span_text MATCH '"the"*'`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if count() != 50 {
		t.Fatalf("indexed %d spans, want 50", count())
	}
	if _, err := st.Prune(ctx); err != nil {
		t.Fatal(err)
	}
	if n := count(); n != 0 {
		t.Errorf("%d spans still indexed after the retention pruned them", n)
	}
}

// BenchmarkWriteSpansSearchIndex measures the writer's cost of the
// full-text index: the same spans with a prompt and a completion
// (synthspans.WithText, ~180–840 bytes of English) written into a store
// without the index (off), with it (unicode61, the shipped word index),
// and with a trigram index in its place, for comparison. Generating the
// spans is not counted. Compare spans/cpu-s of the cases of one run:
//
//	go test -run '^$' -bench WriteSpansSearchIndex -benchtime 40x -count 3 ./internal/warehouse/sqlite/
func BenchmarkWriteSpansSearchIndex(b *testing.B) {
	for _, tc := range []string{"off", "unicode61", "trigram"} {
		b.Run(tc, func(b *testing.B) {
			ctx := context.Background()
			st, err := Open(ctx, filepath.Join(b.TempDir(), "bench.db"), Options{NoSearchIndex: tc == "off"})
			if err != nil {
				b.Fatal(err)
			}
			defer st.Close()
			switch tc {
			case "trigram":
				if _, err := st.writer.ExecContext(ctx, `DROP TABLE span_text`); err != nil {
					b.Fatal(err)
				}
				if _, err := st.writer.ExecContext(ctx, `CREATE VIRTUAL TABLE span_text USING fts5(text, content='', contentless_delete=1, tokenize='trigram')`); err != nil {
					b.Fatal(err)
				}
			}
			const batch = 1000
			g := synthspans.New("bench", 1).WithText(1)
			ts := int64(1_790_000_000_000)
			var cpu, wall time.Duration
			n := 0
			for b.Loop() {
				spans := g.Batch(batch, ts, ts+60_000)
				ts += 60_000
				c0, t0 := synthspans.CPUTime(), time.Now()
				if err := st.WriteSpans(ctx, spans); err != nil {
					b.Fatal(err)
				}
				cpu += synthspans.CPUTime() - c0
				wall += time.Since(t0)
				n += batch
			}
			b.ReportMetric(float64(n)/wall.Seconds(), "spans/s")
			b.ReportMetric(float64(n)/cpu.Seconds(), "spans/cpu-s")
			b.ReportMetric(0, "ns/op")
		})
	}
}
