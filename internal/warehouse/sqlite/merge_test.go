package sqlite

import (
	"context"
	"sync"
	"testing"

	"github.com/evalcol/evalcol/internal/warehouse/synthspans"
)

// TestConcurrentMergesTakeDistinctRuns: merges started at once (the
// background merger and a caller) each pick their runs inside their own
// transaction, so none fails on runs another merged first (CI saw "NOT
// NULL constraint failed: posting_runs.first_seq" when the runs were
// picked before the transaction), and no list is lost or copied twice.
func TestConcurrentMergesTakeDistinctRuns(t *testing.T) {
	ctx := context.Background()
	st := openWith(t, Options{runFanout: 2})
	g := synthspans.New("a", 9)
	sums := func() (rows, spans int64) {
		t.Helper()
		if err := st.reader.QueryRowContext(ctx, `SELECT count(*), coalesce(sum(n), 0) FROM span_postings`).Scan(&rows, &spans); err != nil {
			t.Fatal(err)
		}
		return rows, spans
	}
	for round := range 5 {
		for k := range 12 {
			ts := int64(1_790_000_000_000) + int64(round*12+k)*60_000
			if err := st.WriteSpans(ctx, g.Batch(20, ts, ts+60_000)); err != nil {
				t.Fatal(err)
			}
		}
		_, before := sums()
		var wg sync.WaitGroup
		errs := make([]error, 4)
		for i := range errs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, errs[i] = st.mergeRuns(ctx)
			}()
		}
		wg.Wait()
		for i, err := range errs {
			if err != nil {
				t.Fatalf("round %d: merge %d: %v", round, i, err)
			}
		}
		if _, after := sums(); after != before {
			t.Fatalf("round %d: posting lists hold %d spans after the merges, %d before", round, after, before)
		}
		var level0 int
		if err := st.reader.QueryRowContext(ctx, `SELECT count(*) FROM posting_runs WHERE level = 0`).Scan(&level0); err != nil || level0 >= 2 {
			t.Fatalf("round %d: %d runs of level 0 left (%v), want fewer than the fan-out", round, level0, err)
		}
	}
}
