package monitoringstatus

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"os"
	"testing"
	"time"

	"github.com/evalcol/evalcol/internal/warehouse"
	"github.com/evalcol/evalcol/internal/warehouse/clickhouse"
)

// TestTwoCollectorsOnClickHouse: two collectors share a ClickHouse
// warehouse; each answers the status of the whole environment: the pending
// spans, watermarks and write failures of the other one, as reported, with
// its own live counters.
func TestTwoCollectorsOnClickHouse(t *testing.T) {
	addr := os.Getenv("EVALCOL_CLICKHOUSE_ADDR")
	if addr == "" {
		t.Skip("EVALCOL_CLICKHOUSE_ADDR is not set")
	}
	var b [6]byte
	_, _ = rand.Read(b[:])
	opts := clickhouse.Options{Addr: addr, Database: "evalcol_status_" + hex.EncodeToString(b[:])}
	ctx := context.Background()
	t.Cleanup(func() { _ = clickhouse.DropDatabase(context.Background(), opts) })
	open := func() *clickhouse.Store {
		st, err := clickhouse.Open(ctx, opts)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = st.Close() })
		return st
	}
	storeA, storeB := open(), open()
	now := time.Now().UTC().Truncate(time.Second)
	a, bt := NewTracker(), NewTracker()
	readerA := &Reader{Store: storeA, Tracker: a, CollectorID: "a", Live: time.Minute}
	readerB := &Reader{Store: storeB, Tracker: bt, CollectorID: "b", Live: time.Minute}

	// A evaluated and stored a span a minute ago, and has one matched span
	// waiting for four minutes; B stored an unmatched span just now.
	tid, sid := hexIDs(1, 1)
	a.Matched(now.Add(-time.Minute), []MatchedSpan{matched("prod", 1, 1, 1, 0)})
	a.Stored(now.Add(-time.Minute), []warehouse.Span{span("prod", tid, sid, true)})
	a.Matched(now.Add(-4*time.Minute), []MatchedSpan{matched("prod", 2, 2, 1, 0)})
	bt.Stored(now.Add(-time.Second), []warehouse.Span{span("prod", "t", "s", false)})
	if err := (&Reporter{Store: storeA, Tracker: a, CollectorID: "a"}).Report(ctx); err != nil {
		t.Fatal(err)
	}
	if err := (&Reporter{Store: storeB, Tracker: bt, CollectorID: "b"}).Report(ctx); err != nil {
		t.Fatal(err)
	}
	for name, r := range map[string]*Reader{"a": readerA, "b": readerB} {
		s := r.Status(ctx, prod)
		if s.Status != StatusDegraded || s.LagInSpans != 1 || s.LagInSeconds < 239 || s.LagInSeconds > 250 {
			t.Errorf("collector %s: %+v, want DEGRADED with A's span four minutes behind", name, s)
		}
		if s.LatestSpanReceived == nil || !s.LatestSpanReceived.Equal(now.Add(-time.Second)) || s.EvaluatedUpTo == nil || !s.EvaluatedUpTo.Equal(now.Add(-4*time.Minute)) {
			t.Errorf("collector %s: latest %v (want B's, %v), evaluated up to %v", name, s.LatestSpanReceived, now.Add(-time.Second), s.EvaluatedUpTo)
		}
	}

	// A stores it; B sees the environment caught up after A's next report.
	tid2, sid2 := hexIDs(2, 2)
	a.Stored(time.Now(), []warehouse.Span{span("prod", tid2, sid2, true)})
	if err := (&Reporter{Store: storeA, Tracker: a, CollectorID: "a"}).Report(ctx); err != nil {
		t.Fatal(err)
	}
	if s := readerB.Status(ctx, prod); s.Status != StatusOK || s.LagInSpans != 0 || s.LagInSeconds != 0 || len(s.Reasons) != 0 {
		t.Errorf("B after A caught up: %+v", s)
	}
}
