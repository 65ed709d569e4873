package setups

import (
	"context"
	"errors"
	"testing"
	"time"

	"go.opentelemetry.io/collector/component/componenttest"

	"github.com/evalcol/evalcol/internal/monitor"
	"github.com/evalcol/evalcol/internal/warehouse"
	"github.com/evalcol/evalcol/internal/warehouse/sqlite"
)

// racingStore records a new version of a setup (as the binder does when it
// stores a binding status) just before the first update of it lands.
type racingStore struct {
	*sqlite.Store
	raced bool
}

func (r *racingStore) UpdateSetup(ctx context.Context, m warehouse.MonitorSetup) error {
	if !r.raced {
		r.raced = true
		cur, err := r.Store.GetSetup(ctx, m.Environment, m.ID)
		if err != nil {
			return err
		}
		cur.Version++
		cur.Status = "running"
		if err := r.Store.UpdateSetup(ctx, cur); err != nil {
			return err
		}
	}
	return r.Store.UpdateSetup(ctx, m)
}

// TestUpdateAfterConcurrentStatus: an update whose setup got a new version
// between its read and its write (the binder recorded a status) is applied
// to the new version, instead of failing with a conflict that the API
// reported as a repeated external_id.
func TestUpdateAfterConcurrentStatus(t *testing.T) {
	st := &racingStore{Store: openStore(t)}
	compiler, err := monitor.NewCompiler(componenttest.NewNopTelemetrySettings())
	if err != nil {
		t.Fatal(err)
	}
	svc := NewService(Options{Store: st, Compiler: compiler, Monitors: &monitor.Set{}, Poll: time.Hour})
	ctx := context.Background()
	st.raced = true // no race on create
	created, err := svc.Create(ctx, prod, plainRequest(t, "m1"))
	if err != nil {
		t.Fatal(err)
	}
	st.raced = false
	partial, err := ParseRequest([]byte(`{"evaluators":["word-count"]}`))
	if err != nil {
		t.Fatal(err)
	}
	updated, err := svc.Update(ctx, prod, "m1", partial)
	if err != nil {
		t.Fatalf("update after a concurrent status write: %v", err)
	}
	if !st.raced {
		t.Fatal("the store did not race the update")
	}
	got, err := svc.Get(ctx, prod, created.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Version != created.Version+2 || got.ExternalID != "m1" || len(got.Evaluators) != 1 || got.Evaluators[0].EvaluatorType != "word-count" {
		t.Errorf("stored after the update: version %d (created %d), external_id %q, evaluators %+v", got.Version, created.Version, got.ExternalID, got.Evaluators)
	}
	if updated.Version != got.Version {
		t.Errorf("Update answered version %d, stored %d", updated.Version, got.Version)
	}

	// A real external_id conflict still fails, after no retry loop.
	if _, err := svc.Create(ctx, prod, plainRequest(t, "m2")); err != nil {
		t.Fatal(err)
	}
	clash, err := ParseRequest([]byte(`{"external_id":"m2","evaluators":["char-count"]}`))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Update(ctx, prod, "m1", clash); !errors.Is(err, warehouse.ErrConflict) {
		t.Errorf("update to another setup's external_id: %v, want ErrConflict", err)
	}
}
