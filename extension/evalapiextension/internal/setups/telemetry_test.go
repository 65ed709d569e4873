package setups

import (
	"context"
	"testing"
	"time"
)

// TestStatusCounts: every status is counted, zero included, as of the
// last reload.
func TestStatusCounts(t *testing.T) {
	st := openStore(t)
	svc := newBackfillService(t, st, BackfillOptions{})
	if counts, ok := svc.StatusCounts(); !ok || counts[StatusPending] != 0 || len(counts) != len(Statuses)+1 {
		t.Fatalf("status counts of an empty store = %v, %v; want every status at 0", counts, ok)
	}
	if _, err := svc.Create(context.Background(), prod, request(t, "counts-1", time.Now().Add(-time.Hour))); err != nil {
		t.Fatal(err)
	}
	if err := svc.Reload(context.Background()); err != nil {
		t.Fatal(err)
	}
	counts, _ := svc.StatusCounts()
	if n := counts[StatusPending] + counts[StatusWaitingForSpans] + counts[StatusInProgress]; n != 1 || counts[StatusOther] != 0 {
		t.Errorf("status counts %v, want the setup pending, waiting for spans or in progress", counts)
	}
}

// TestBackfillProgress follows a backfill of the fixture's three window
// spans one page at a time: while it runs its progress is listed
// (scanned + remaining = the window's spans); once done it is not.
func TestBackfillProgress(t *testing.T) {
	st := openStore(t)
	ingest(t, st, fixture)
	svc := newBackfillService(t, st, BackfillOptions{PageSize: 1, Pause: 50 * time.Millisecond})
	setup, err := svc.Create(context.Background(), prod, request(t, "progress-1", time.Now().Add(-time.Hour)))
	if err != nil {
		t.Fatal(err)
	}
	var seen []BackfillProgress
	deadline := time.Now().Add(10 * time.Second)
	for {
		for _, p := range svc.Backfills() {
			if p.SetupID != setup.ID || p.Total != 3 || p.Scanned < 1 || p.Scanned > 3 {
				t.Fatalf("progress %+v, want setup %s, 1..3 of 3 scanned", p, setup.ID)
			}
			seen = append(seen, p)
		}
		if s, err := st.GetSetup(context.Background(), "prod", setup.ID); err == nil && backfillIs(BackfillDone)(s) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the backfill did not finish")
		}
		time.Sleep(2 * time.Millisecond)
	}
	if len(seen) == 0 {
		t.Error("no progress listed while the backfill ran")
	}
	// The goroutine forgets its progress as it returns, just after the
	// setup records done.
	for len(svc.Backfills()) != 0 {
		if time.Now().After(deadline) {
			t.Fatalf("progress still listed after the backfill: %+v", svc.Backfills())
		}
		time.Sleep(2 * time.Millisecond)
	}
}
