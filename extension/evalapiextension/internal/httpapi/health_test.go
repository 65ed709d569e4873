package httpapi

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evalcol/evalcol/internal/tenant"
	"github.com/evalcol/evalcol/internal/warehouse"
	"github.com/evalcol/evalcol/internal/warehouse/sqlite"
)

// TestHealthzReportsFailingWrites: a real SQLite warehouse whose pages get
// corrupted while the collector runs keeps accepting connections, but its
// writes fail; /healthz then answers 503 "writes_failing" instead of ok.
func TestHealthzReportsFailingWrites(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "w.db")
	spans := func(from, n int) []warehouse.Span {
		out := make([]warehouse.Span, n)
		for i := range out {
			out[i] = warehouse.Span{Environment: "env-a", Timestamp: int64(from + i), TraceID: fmt.Sprintf("%032x", from+i),
				SpanID: fmt.Sprintf("%016x", from+i), SpanName: "chat",
				SpanAttributes: map[string]string{"text": strings.Repeat(fmt.Sprint(from+i), 100)}}
		}
		return out
	}
	st, err := sqlite.Open(ctx, path, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 20_000; i += 1000 {
		if err := st.WriteSpans(ctx, spans(i, 1000)); err != nil {
			t.Fatal(err)
		}
	}
	st.Close()
	// Corrupt every third page after the first eight.
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	info, _ := f.Stat()
	garbage := []byte(strings.Repeat("\xde\xad\xbe\xef", 4096))
	for off := int64(8 * 16384); off+16384 <= info.Size(); off += 3 * 16384 {
		if _, err := f.WriteAt(garbage, off); err != nil {
			t.Fatal(err)
		}
	}
	f.Close()

	// As if the corruption happened after the start check.
	store, err := sqlite.Open(ctx, path, sqlite.Options{SkipIntegrityCheck: true, CacheMiB: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	srv := httptest.NewServer(New(Options{
		Keys:   tenant.NewKeyring([]tenant.Key{{Secret: keyA, Tenant: tenant.Tenant{Environment: "env-a"}}}),
		Store:  store,
		Health: func(r *http.Request) error { return store.Ping(r.Context()) },
	}))
	defer srv.Close()
	s := &testServer{Server: srv, store: store}
	if status, got := s.do(t, "GET", "/healthz", "", nil); status != 200 || got["warehouse"] != "ok" {
		t.Fatalf("healthz before any write = %d %v", status, got)
	}
	var werr error
	for i := 0; i < 20 && werr == nil; i++ {
		werr = store.WriteSpans(ctx, spans(100_000+i*1000, 1000))
	}
	if werr == nil {
		t.Fatal("writes into the corrupt file kept succeeding")
	}
	status, got := s.do(t, "GET", "/healthz", "", nil)
	if status != http.StatusServiceUnavailable || got["status"] != "degraded" || got["warehouse"] != "writes_failing" {
		t.Fatalf("healthz after a failed write = %d %v, want 503 degraded writes_failing", status, got)
	}
}
