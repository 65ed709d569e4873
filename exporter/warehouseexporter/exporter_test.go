package warehouseexporter

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/consumer/consumererror"
	"go.opentelemetry.io/collector/exporter"
	"go.opentelemetry.io/collector/exporter/exportertest"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"github.com/evalcol/evalcol/exporter/warehouseexporter/internal/metadata"
	"github.com/evalcol/evalcol/internal/tenant"
	"github.com/evalcol/evalcol/internal/warehouse"
	"github.com/evalcol/evalcol/internal/warehouse/sqlite"
)

// provider is an extension that owns a warehouse, as evalapi does.
type provider struct {
	component.StartFunc
	component.ShutdownFunc
	store warehouse.Store
}

func (p provider) Warehouse() warehouse.Store { return p.store }

type host struct {
	ext map[component.ID]component.Component
}

func (h host) GetExtensions() map[component.ID]component.Component { return h.ext }

// failingStore is a real SQLite warehouse whose span writes fail with err
// while it is set.
type failingStore struct {
	*sqlite.Store
	err error
}

func (f *failingStore) WriteSpans(ctx context.Context, spans []warehouse.Span) error {
	if f.err != nil {
		return fmt.Errorf("write spans: %w", f.err)
	}
	return f.Store.WriteSpans(ctx, spans)
}

func (f *failingStore) WriteSpansReport(ctx context.Context, spans []warehouse.Span) (warehouse.SpanWriteReport, error) {
	if f.err != nil {
		return warehouse.SpanWriteReport{}, fmt.Errorf("write spans: %w", f.err)
	}
	return f.Store.WriteSpansReport(ctx, spans)
}

// startTraces starts the traces exporter of cfg on store and returns it
// with the log it writes.
func startTraces(t *testing.T, cfg *Config, store warehouse.Store) (exporter.Traces, *observer.ObservedLogs) {
	t.Helper()
	core, logs := observer.New(zap.InfoLevel)
	set := exportertest.NewNopSettings(metadata.Type)
	set.Logger = zap.New(core)
	exp, err := NewFactory().CreateTraces(context.Background(), set, cfg)
	if err != nil {
		t.Fatal(err)
	}
	h := host{ext: map[component.ID]component.Component{cfg.API: provider{store: store}}}
	if err := exp.Start(context.Background(), h); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = exp.Shutdown(context.Background()) })
	return exp, logs
}

func openStore(t *testing.T) *sqlite.Store {
	t.Helper()
	st, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "w.db"), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// traces is a request of spans named names, all with ids unless a name is
// "no-id"; the resource claims environment "claimed".
func traces(names ...string) ptrace.Traces {
	td := ptrace.NewTraces()
	rs := td.ResourceSpans().AppendEmpty()
	rs.Resource().Attributes().PutStr("deployment.environment.name", "claimed")
	for i, n := range names {
		sp := rs.ScopeSpans().AppendEmpty().Spans().AppendEmpty()
		sp.SetName(n)
		sp.SetStartTimestamp(pcommon.NewTimestampFromTime(time.Now()))
		if n != "no-id" {
			sp.SetTraceID(pcommon.TraceID{1, byte(i + 1)})
			sp.SetSpanID(pcommon.SpanID{2, byte(i + 1)})
		}
	}
	return td
}

func storedNames(t *testing.T, st warehouse.Store, env string) []string {
	t.Helper()
	page, err := st.QuerySpans(context.Background(), warehouse.SpanQuery{Environments: []string{env}, SortBy: warehouse.SortSpanName})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, s := range page.Spans {
		out = append(out, s.SpanName)
	}
	return out
}

// TestExportFilesByKeyAndDropsOnlyUnstorable: an authenticated request is
// filed under its key's environment (not the one its resource claims), an
// unauthenticated one under the resource's; spans without ids are dropped
// with one log line that counts them, the others of the request stored.
func TestExportFilesByKeyAndDropsOnlyUnstorable(t *testing.T) {
	st := openStore(t)
	exp, logs := startTraces(t, NewFactory().CreateDefaultConfig().(*Config), st)
	ctx := tenant.NewClientContext(context.Background(), tenant.Tenant{Environment: "keyed"})
	if err := exp.ConsumeTraces(ctx, traces("a", "no-id", "b", "no-id")); err != nil {
		t.Fatal(err)
	}
	if err := exp.ConsumeTraces(context.Background(), traces("c")); err != nil {
		t.Fatal(err)
	}
	if got := storedNames(t, st, "keyed"); strings.Join(got, ",") != "a,b" {
		t.Errorf("environment of the key holds %v, want a, b", got)
	}
	if got := storedNames(t, st, "claimed"); strings.Join(got, ",") != "c" {
		t.Errorf("environment the resource claims holds %v, want only the unauthenticated c", got)
	}
	dropped := logs.FilterMessage("dropping spans that can never be stored").All()
	if len(dropped) != 1 || dropped[0].ContextMap()["spans"] != int64(2) || dropped[0].ContextMap()["reason"] != "empty trace or span id" {
		t.Errorf("drop log %v, want one line counting 2 spans without ids", dropped)
	}
}

// TestExportErrorClasses: what the pipeline (and so the OTLP sender) sees
// for each kind of warehouse failure.
func TestExportErrorClasses(t *testing.T) {
	st := &failingStore{Store: openStore(t)}
	exp, logs := startTraces(t, NewFactory().CreateDefaultConfig().(*Config), st)
	for _, tc := range []struct {
		name      string
		err       error
		permanent bool
		want      string
	}{
		{"slow warehouse", fmt.Errorf("begin: %w", context.DeadlineExceeded), false, "warehouse unavailable or slow, retry later"},
		{"locked warehouse", fmt.Errorf("database is locked (5) at 10.0.0.7: %w", warehouse.ErrUnavailable), false, "warehouse unavailable or slow, retry later"},
		{"data it refuses", errors.New("string or blob too big"), true, "the warehouse cannot store this data"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st.err = tc.err
			err := exp.ConsumeTraces(context.Background(), traces("x"))
			if err == nil || consumererror.IsPermanent(err) != tc.permanent || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v (permanent %v), want %q, permanent %v", err, consumererror.IsPermanent(err), tc.want, tc.permanent)
			}
			if strings.Contains(err.Error(), "10.0.0.7") {
				t.Errorf("the answer %q names an internal detail", err)
			}
		})
	}
	if n := logs.FilterMessage("dropping data the warehouse refuses").Len(); n != 1 {
		t.Errorf("%d drop log lines, want 1 (only the refused data)", n)
	}
	st.err = nil
	if err := exp.ConsumeTraces(context.Background(), traces("x")); err != nil {
		t.Errorf("after the warehouse recovered: %v", err)
	}
	if got := storedNames(t, st, "claimed"); strings.Join(got, ",") != "x" {
		t.Errorf("stored %v, want x once", got)
	}
}

// TestQueueWarning: enabling sending_queue (acknowledging before the
// commit) is logged at start.
func TestQueueWarning(t *testing.T) {
	cfg := NewFactory().CreateDefaultConfig().(*Config)
	cfg.QueueConfig.GetOrInsertDefault()
	_, logs := startTraces(t, cfg, openStore(t))
	if logs.FilterMessageSnippet("sending_queue is enabled").Len() != 1 {
		t.Errorf("no warning about the queue at start: %v", logs.All())
	}
}
