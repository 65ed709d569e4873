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
