package setups

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"go.opentelemetry.io/collector/component/componenttest"

	"github.com/evalcol/evalcol/internal/monitor"
	"github.com/evalcol/evalcol/internal/warehouse"
	"github.com/evalcol/evalcol/internal/warehouse/sqlite"
)

// countingStore counts the full reads of the setups.
type countingStore struct {
	*sqlite.Store
	reads atomic.Int64
}

func (c *countingStore) AllSetups(ctx context.Context) ([]warehouse.MonitorSetup, error) {
	c.reads.Add(1)
	return c.Store.AllSetups(ctx)
}

// TestPollSkipsUnchangedSetups: a collector polling a store whose setups
// did not change does not read them all again at every poll; a setup
// created through another collector of the same warehouse is still
// applied at the next poll.
func TestPollSkipsUnchangedSetups(t *testing.T) {
	st := openStore(t)
	counting := &countingStore{Store: st}
	compiler, err := monitor.NewCompiler(componenttest.NewNopTelemetrySettings())
	if err != nil {
		t.Fatal(err)
	}
	var applied monitor.Set
	poller := NewService(Options{Store: counting, Compiler: compiler, Monitors: &applied, Poll: 10 * time.Millisecond})
	poller.Start(context.Background())
	t.Cleanup(poller.Shutdown)
	other := NewService(Options{Store: st, Compiler: compiler, Monitors: &monitor.Set{}, Poll: time.Hour})

	if _, err := other.Create(context.Background(), prod, plainRequest(t, "first")); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for len(applied.Monitors()) != 1 {
		if time.Now().After(deadline) {
			t.Fatal("the setup created through the other collector was not applied")
		}
		time.Sleep(5 * time.Millisecond)
	}
	time.Sleep(100 * time.Millisecond) // the status transition's own reload
	before := counting.reads.Load()
	time.Sleep(300 * time.Millisecond) // about 30 polls
	if reads := counting.reads.Load() - before; reads > 2 {
		t.Errorf("%d full reads of unchanged setups in 30 polls, want at most 2", reads)
	}
	if _, err := other.Create(context.Background(), prod, plainRequest(t, "second")); err != nil {
		t.Fatal(err)
	}
	for len(applied.Monitors()) != 2 {
		if time.Now().After(deadline) {
			t.Fatal("the second setup was not applied")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// plainRequest is a setup of workflow jokes without backfill.
func plainRequest(t *testing.T, externalID string) Request {
	t.Helper()
	r, err := ParseRequest([]byte(`{"entity_type":"workflow","entity_value":"jokes","external_id":"` + externalID + `","evaluators":["char-count"]}`))
	if err != nil {
		t.Fatal(err)
	}
	return r
}
