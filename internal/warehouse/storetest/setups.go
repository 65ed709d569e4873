package storetest

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/evalcol/evalcol/internal/warehouse"
)

func testIdempotentWrites(t *testing.T, open Opener) {
	st := openStore(t, open)
	ctx := context.Background()
	a, b := span("prod", "a", 1), span("prod", "b", 2)
	writeSpans(t, st, a, b)
	// A retried export: the same spans again, plus a new one and the same
	// ids in another environment (a different span).
	writeSpans(t, st, a, b, span("prod", "c", 3), span("other", "a", 1))
	page := querySpans(t, st, warehouse.SpanQuery{Environments: []string{"prod"}, Limit: 100})
	if got := ids(page.Spans); !reflect.DeepEqual(got, []string{"a", "b", "c"}) || page.TotalResults != 3 {
		t.Errorf("after a retried write prod has %v (total %d), want [a b c]", got, page.TotalResults)
	}
	other := querySpans(t, st, warehouse.SpanQuery{Environments: []string{"other"}, Limit: 100})
	if len(other.Spans) != 1 {
		t.Errorf("other environment has %d spans, want 1", len(other.Spans))
	}

	p := point("prod", "char-count.char_count", 1)
	p.NumericValue, p.TraceID, p.SpanID = ptr(12.0), "t", "s"
	p.Labels = map[string]string{"monitor_id": "m"}
	q := p
	q.NumericValue = ptr(13.0)
	q.Labels = map[string]string{"monitor_id": "m2"}
	for range 2 {
		if err := st.WriteMetricPoints(ctx, []warehouse.MetricPoint{p, q}); err != nil {
			t.Fatal(err)
		}
	}
	mp, err := st.QueryMetrics(ctx, warehouse.MetricQuery{Environments: []string{"prod"}, Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	if mp.TotalResults != 2 {
		t.Errorf("after writing two points twice the store has %d, want 2", mp.TotalResults)
	}
}

// setup returns a minimal setup of env.
func setup(env, id, externalID string) warehouse.MonitorSetup {
	at := time.Date(2026, 1, 15, 10, 30, 0, 0, time.UTC)
	return warehouse.MonitorSetup{
		ID: id, ExternalID: externalID, EntityType: "workflow", EntityValue: "wf-" + id, OrgID: "org", ProjectID: "proj",
		EnvProjectID: "proj/" + env, Environment: env, Status: "pending", CreatedAt: at, UpdatedAt: at, SampleRate: 1, Version: 1,
		Evaluators: []warehouse.SetupBinding{{
			BindingID: id + "-0", EvaluatorID: "char-count", EvaluatorType: "char-count", Status: "pending",
			InputSchema:  []warehouse.SchemaItem{{Name: "text", Type: "string", Description: "d", Label: "Text"}},
			OutputSchema: []warehouse.SchemaItem{{Name: "char_count", Type: "integer", Description: "d", Label: "Chars"}},
		}},
		InitRules: []warehouse.SetupInitRule{{Op: "equals", Source: "span_attributes", Key: "traceloop.workflow.name", Value: "wf-" + id, ValueType: "string"}},
	}
}

func testSetups(t *testing.T, open Opener) {
	st := openStore(t, open)
	ctx := context.Background()
	full := setup("prod", "s1", "ext-1")
	full.Selector = json.RawMessage(`{"tier":"gold"}`)
	full.SampleRate = 0.5
	full.Backfill = &warehouse.BackfillState{FromTimestampSec: 100, ToTimestampSec: 200, Status: "running", Scanned: 3}
	processed := full.CreatedAt.Add(time.Minute)
	full.Evaluators = append(full.Evaluators, warehouse.SetupBinding{BindingID: "s1-1", EvaluatorID: "nope", EvaluatorType: "nope",
		Status: "failed", ErrorMessage: `unknown evaluator "nope"`, ProcessedAt: &processed, InputSchema: []warehouse.SchemaItem{}, OutputSchema: []warehouse.SchemaItem{}})
	for _, s := range []warehouse.MonitorSetup{full, setup("prod", "s2", "ext-2"), setup("prod", "s3", "ext-3"), setup("other", "s4", "ext-1")} {
		if err := st.CreateSetup(ctx, s); err != nil {
			t.Fatalf("CreateSetup %s: %v", s.ID, err)
		}
	}
	got, err := st.GetSetup(ctx, "prod", "s1")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, full) {
		t.Errorf("round trip:\n got %+v\nwant %+v", got, full)
	}
	if err := st.CreateSetup(ctx, setup("prod", "s9", "ext-1")); !errors.Is(err, warehouse.ErrConflict) {
		t.Errorf("second setup with external_id ext-1 in prod: %v, want ErrConflict", err)
	}
	if _, err := st.GetSetup(ctx, "other", "s1"); !errors.Is(err, warehouse.ErrNotFound) {
		t.Errorf("GetSetup of prod's setup with env other: %v, want ErrNotFound", err)
	}
	if err := st.DeleteSetup(ctx, "other", "s1"); !errors.Is(err, warehouse.ErrNotFound) {
		t.Errorf("DeleteSetup of prod's setup with env other: %v, want ErrNotFound", err)
	}

	// Listing: filters, tenancy and paging in creation order.
	list := func(q warehouse.SetupQuery) []string {
		t.Helper()
		var ids []string
		for i := 0; ; i++ {
			page, err := st.ListSetups(ctx, q)
			if err != nil {
				t.Fatalf("ListSetups(%+v): %v", q, err)
			}
			for _, s := range page.Setups {
				ids = append(ids, s.ID)
			}
			if page.NextCursor == "" || i > 10 {
				return ids
			}
			q.Cursor = page.NextCursor
		}
	}
	for _, tc := range []struct {
		q    warehouse.SetupQuery
		want []string
	}{
		{warehouse.SetupQuery{Environment: "prod"}, []string{"s1", "s2", "s3"}},
		{warehouse.SetupQuery{Environment: "prod", Limit: 2}, []string{"s1", "s2", "s3"}},
		{warehouse.SetupQuery{Environment: "prod", ExternalID: "ext-2"}, []string{"s2"}},
		{warehouse.SetupQuery{Environment: "prod", EntityValue: "wf-s3", EntityType: "workflow"}, []string{"s3"}},
		{warehouse.SetupQuery{Environment: "prod", Status: "running"}, nil},
		{warehouse.SetupQuery{Environment: "other"}, []string{"s4"}},
		{warehouse.SetupQuery{Environment: "nobody"}, nil},
	} {
		if got := list(tc.q); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("ListSetups(%+v) = %v, want %v", tc.q, got, tc.want)
		}
	}
	if _, err := st.ListSetups(ctx, warehouse.SetupQuery{Environment: "prod", Cursor: "not-a-cursor"}); err == nil || !warehouse.IsQueryError(err) {
		t.Errorf("ListSetups with a bad cursor: %v, want a QueryError", err)
	}

	// Compare-and-set updates.
	upd := got
	upd.Status, upd.Version, upd.UpdatedAt = "in_progress", 2, got.UpdatedAt.Add(time.Hour)
	if err := st.UpdateSetup(ctx, upd); err != nil {
		t.Fatalf("UpdateSetup: %v", err)
	}
	stale := got
	stale.Status, stale.Version = "failed", 2
	if err := st.UpdateSetup(ctx, stale); !errors.Is(err, warehouse.ErrConflict) {
		t.Errorf("UpdateSetup with a stale version: %v, want ErrConflict", err)
	}
	if after, _ := st.GetSetup(ctx, "prod", "s1"); after.Status != "in_progress" || after.Version != 2 || !after.UpdatedAt.Equal(upd.UpdatedAt) {
		t.Errorf("after update: status %s version %d updated %v", after.Status, after.Version, after.UpdatedAt)
	}
	if got := list(warehouse.SetupQuery{Environment: "prod", Status: "in_progress"}); !reflect.DeepEqual(got, []string{"s1"}) {
		t.Errorf("status filter after update = %v", got)
	}
	renamed := setup("prod", "s2", "ext-3")
	renamed.Version = 2
	if err := st.UpdateSetup(ctx, renamed); !errors.Is(err, warehouse.ErrConflict) {
		t.Errorf("UpdateSetup taking another setup's external_id: %v, want ErrConflict", err)
	}
	ghost := setup("prod", "nope", "ext-x")
	ghost.Version = 2
	if err := st.UpdateSetup(ctx, ghost); !errors.Is(err, warehouse.ErrNotFound) {
		t.Errorf("UpdateSetup of a missing setup: %v, want ErrNotFound", err)
	}

	all, err := st.AllSetups(ctx)
	if err != nil || len(all) != 4 {
		t.Fatalf("AllSetups = %d setups, %v; want 4", len(all), err)
	}
	envs := map[string]string{}
	for _, s := range all {
		envs[s.ID] = s.Environment
	}
	if envs["s4"] != "other" || envs["s1"] != "prod" {
		t.Errorf("AllSetups environments = %v", envs)
	}

	if err := st.DeleteSetup(ctx, "prod", "s2"); err != nil {
		t.Fatal(err)
	}
	if _, err := st.GetSetup(ctx, "prod", "s2"); !errors.Is(err, warehouse.ErrNotFound) {
		t.Errorf("GetSetup after delete: %v", err)
	}
	// The external id is free again.
	if err := st.CreateSetup(ctx, setup("prod", "s5", "ext-2")); err != nil {
		t.Errorf("reusing a deleted setup's external_id: %v", err)
	}
}

// testSetupsWithoutExternalID: setups without an external id (Traceloop's
// clients send none) never conflict with each other, while a non-empty one
// stays unique; CountSetups counts one environment; every listed setup
// has the cursor that continues after it.
func testSetupsWithoutExternalID(t *testing.T, open Opener) {
	st := openStore(t, open)
	ctx := context.Background()
	for _, s := range []warehouse.MonitorSetup{
		setup("prod", "n1", ""), setup("prod", "n2", ""), setup("prod", "n3", "ext"), setup("other", "n4", ""),
	} {
		if err := st.CreateSetup(ctx, s); err != nil {
			t.Fatalf("CreateSetup %s (external_id %q): %v", s.ID, s.ExternalID, err)
		}
	}
	if err := st.CreateSetup(ctx, setup("prod", "n5", "ext")); !errors.Is(err, warehouse.ErrConflict) {
		t.Errorf("a second setup with external_id ext: %v, want ErrConflict", err)
	}
	// An update may drop or take an empty external id freely.
	n3 := setup("prod", "n3", "")
	n3.Version = 2
	if err := st.UpdateSetup(ctx, n3); err != nil {
		t.Errorf("UpdateSetup to an empty external_id: %v", err)
	}
	if err := st.CreateSetup(ctx, setup("prod", "n6", "ext")); err != nil {
		t.Errorf("external_id ext after its holder dropped it: %v", err)
	}
	for env, want := range map[string]int{"prod": 4, "other": 1, "nobody": 0} {
		if n, err := st.CountSetups(ctx, env); err != nil || n != want {
			t.Errorf("CountSetups(%s) = %d, %v; want %d", env, n, err, want)
		}
	}
	page, err := st.ListSetups(ctx, warehouse.SetupQuery{Environment: "prod", Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Setups) != 4 || len(page.Cursors) != 4 || page.NextCursor != "" {
		t.Fatalf("ListSetups = %d setups, %d cursors, next %q; want 4, 4, none", len(page.Setups), len(page.Cursors), page.NextCursor)
	}
	// Continuing after the second setup lists the last two.
	rest, err := st.ListSetups(ctx, warehouse.SetupQuery{Environment: "prod", Limit: 10, Cursor: page.Cursors[1]})
	if err != nil {
		t.Fatal(err)
	}
	if got := setupIDs(rest.Setups); !reflect.DeepEqual(got, setupIDs(page.Setups[2:])) {
		t.Errorf("listing after Cursors[1] = %v, want %v", got, setupIDs(page.Setups[2:]))
	}

	// SetupBytes sums the JSON of the live setups of one environment,
	// following updates and deletes.
	wantBytes := func(env string) int64 {
		t.Helper()
		p, err := st.ListSetups(ctx, warehouse.SetupQuery{Environment: env, Limit: 100})
		if err != nil {
			t.Fatal(err)
		}
		var n int64
		for _, s := range p.Setups {
			b, _ := json.Marshal(s)
			n += int64(len(b))
		}
		return n
	}
	checkBytes := func(when string) {
		t.Helper()
		for _, env := range []string{"prod", "other", "nobody"} {
			if got, err := st.SetupBytes(ctx, env); err != nil || got != wantBytes(env) {
				t.Errorf("%s: SetupBytes(%s) = %d, %v; want %d", when, env, got, err, wantBytes(env))
			}
		}
	}
	checkBytes("after creates")
	big := setup("prod", "n1", "")
	big.EntityValue = strings.Repeat("é", 1000) // two bytes each
	big.Version = 2
	if err := st.UpdateSetup(ctx, big); err != nil {
		t.Fatal(err)
	}
	checkBytes("after an update")
	if err := st.DeleteSetup(ctx, "prod", "n2"); err != nil {
		t.Fatal(err)
	}
	checkBytes("after a delete")
	if n, _ := st.SetupBytes(ctx, "prod"); n < 2000 {
		t.Errorf("SetupBytes(prod) = %d, want the 2000 bytes of n1's entity value at least", n)
	}
}

func setupIDs(ss []warehouse.MonitorSetup) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = s.ID
	}
	return out
}
