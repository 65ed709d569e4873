package storetest

import (
	"context"
	"reflect"
	"sort"
	"testing"
	"time"

	"github.com/evalcol/evalcol/internal/warehouse"
)

func testPipelineStatus(t *testing.T, open Opener) {
	st := openStore(t, open)
	ctx := context.Background()
	at := time.Date(2026, 1, 15, 10, 30, 0, 0, time.UTC)
	row := func(collector, env string, reported time.Time, pending int64) warehouse.PipelineStatus {
		return warehouse.PipelineStatus{
			CollectorID: collector, Environment: env, ReportedAt: reported,
			LatestStored: reported.Add(-time.Second), LastEvaluatedStored: reported.Add(-2 * time.Second),
			Pending: pending, OldestPending: reported.Add(-time.Minute), Lost: 1, LastLost: reported.Add(-time.Hour),
			LastEvalOK: reported.Add(-3 * time.Second), LastEvalError: "timeout",
			LastWriteOK: reported.Add(-time.Second), LastWriteFailed: reported.Add(-time.Hour), LastWriteError: "disk full",
		}
	}
	if got, err := st.PipelineStatus(ctx, "prod"); err != nil || len(got) != 0 {
		t.Fatalf("PipelineStatus of a new store = %+v, %v; want none", got, err)
	}
	first := []warehouse.PipelineStatus{row("a", "prod", at, 5), row("b", "prod", at, 7), row("a", "other", at, 1)}
	if err := st.WritePipelineStatus(ctx, first); err != nil {
		t.Fatal(err)
	}
	// A later report of collector a replaces its row of prod; the zero
	// times stay zero.
	later := row("a", "prod", at.Add(time.Minute), 2)
	later.OldestPending, later.LastEvalFailed = time.Time{}, time.Time{}
	if err := st.WritePipelineStatus(ctx, []warehouse.PipelineStatus{later}); err != nil {
		t.Fatal(err)
	}
	got, err := st.PipelineStatus(ctx, "prod")
	if err != nil {
		t.Fatal(err)
	}
	sort.Slice(got, func(i, j int) bool { return got[i].CollectorID < got[j].CollectorID })
	want := []warehouse.PipelineStatus{later, first[1]}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("PipelineStatus(prod) =\n %+v\nwant\n %+v", got, want)
	}
	if other, _ := st.PipelineStatus(ctx, "other"); len(other) != 1 || other[0].Pending != 1 {
		t.Errorf("PipelineStatus(other) = %+v", other)
	}
}
