package httpapi

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	"github.com/evalcol/evalcol/internal/tenant"
	"github.com/evalcol/evalcol/internal/warehouse"
	"github.com/evalcol/evalcol/internal/warehouse/clickhouse"
	"github.com/evalcol/evalcol/internal/warehouse/sqlite"
)

// largeSpans stores n spans of env, each with a content attribute of size
// bytes (a hostile tenant's prompt), and returns the attribute's value.
func largeSpans(tb testing.TB, st warehouse.Store, env string, n, size int) {
	tb.Helper()
	big := strings.Repeat("p", size)
	for i := 0; i < n; i += 10 {
		var spans []warehouse.Span
		for j := i; j < min(i+10, n); j++ {
			spans = append(spans, warehouse.Span{Environment: env, Timestamp: int64(1_700_000_000_000 + j*1000),
				TraceID: fmt.Sprintf("%032x", j+1), SpanID: fmt.Sprintf("%016x", j+1), SpanName: "chat",
				SpanKind: "SPAN_KIND_CLIENT", StatusCode: "STATUS_CODE_UNSET",
				SpanAttributes: map[string]string{"llm.prompts.0.role": "user", "llm.prompts.0.content": big}})
		}
		if err := st.WriteSpans(context.Background(), spans); err != nil {
			tb.Fatalf("writing spans: %v", err)
		}
	}
}

// TestHostilePageOfLargeSpans: a tenant stores 50 spans of 1 MiB and asks
// for them in one page (limit=50). The page used to hold all 50 (a
// 100 MB answer: the content is in the attributes and the prompts). It
// is cut at the page's size bound: at most the bound and one span of
// stored bytes (the answer about twice that: a prompt shows in
// span_attributes and prompts), marked by the X-Evalcol-Page-Cut header,
// in the spec's shape (page_size, total_results 50, next_cursor); paging
// with next_cursor returns every span exactly once.
func TestHostilePageOfLargeSpans(t *testing.T) {
	s := newTestServer(t, nil)
	const n = 50
	largeSpans(t, s.store, "env-a", n, 1<<20)
	const maxBody = 2*(warehouse.DefaultPageBytes+1<<20) + 64<<10
	q := url.Values{"from_timestamp_sec": {"0"}, "limit": {fmt.Sprint(n)}}
	seen := map[string]int{}
	pages := 0
	for {
		status, header, body := s.send(t, "GET", "/v2/warehouse/spans?"+q.Encode(), authA, nil)
		if status != http.StatusOK {
			t.Fatalf("page %d: %d %s", pages+1, status, body)
		}
		pages++
		var resp struct {
			Spans struct {
				Data []struct {
					SpanID string `json:"span_id"`
				} `json:"data"`
				PageSize     int    `json:"page_size"`
				TotalResults int64  `json:"total_results"`
				NextCursor   string `json:"next_cursor"`
			} `json:"spans"`
		}
		if err := json.Unmarshal(body, &resp); err != nil {
			t.Fatalf("page %d: %v", pages, err)
		}
		page := resp.Spans
		if len(body) > maxBody {
			t.Errorf("page %d: %d spans in a %d-byte answer, want at most %d bytes", pages, len(page.Data), len(body), maxBody)
		}
		if page.PageSize != len(page.Data) || page.TotalResults != n || len(page.Data) == 0 {
			t.Errorf("page %d: page_size %d, %d spans, total_results %d; want equal, some, %d", pages, page.PageSize, len(page.Data), page.TotalResults, n)
		}
		for _, sp := range page.Data {
			seen[sp.SpanID]++
		}
		cut := header.Get(PageCutHeader)
		if page.NextCursor == "" {
			if cut != "" {
				t.Errorf("last page %d: %s %q", pages, PageCutHeader, cut)
			}
			break
		}
		if cut != "bytes" {
			t.Errorf("page %d of %d spans with a next cursor: %s %q, want bytes", pages, len(page.Data), PageCutHeader, cut)
		}
		if pages > n {
			t.Fatal("pagination does not end")
		}
		q.Set("cursor", page.NextCursor)
	}
	if len(seen) != n || pages < 2 {
		t.Errorf("%d distinct spans in %d pages, want %d in several", len(seen), pages, n)
	}
	for id, k := range seen {
		if k != 1 {
			t.Errorf("span %s returned %d times", id, k)
		}
	}
}

// BenchmarkLargeSpanPage measures the heap growth of one request for a
// page of 50 spans of 1 MiB (limit=50) through the real HTTP server, on
// SQLite and (with EVALCOL_CLICKHOUSE_ADDR) ClickHouse: bounded (the
// default, warehouse.DefaultPageBytes) and unbounded (as before the bound:
// the page holds all 50). heap-MiB is what the heap grew by during the
// request with the collector off (every byte the request allocated,
// server and client: an upper bound of its peak).
func BenchmarkLargeSpanPage(b *testing.B) {
	backends := map[string]func(b *testing.B, pageBytes int64) warehouse.Store{
		"sqlite": func(b *testing.B, pageBytes int64) warehouse.Store {
			st, err := sqlite.Open(context.Background(), filepath.Join(b.TempDir(), "w.db"), sqlite.Options{})
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { st.Close() })
			st.QueryPath = st.QueryPath.WithPageBytes(pageBytes)
			return st
		},
		"clickhouse": func(b *testing.B, pageBytes int64) warehouse.Store {
			addr := os.Getenv("EVALCOL_CLICKHOUSE_ADDR")
			if addr == "" {
				b.Skip("EVALCOL_CLICKHOUSE_ADDR is not set")
			}
			opts := clickhouse.Options{Addr: addr, Database: fmt.Sprintf("evalcol_bench_%d", time.Now().UnixNano())}
			st, err := clickhouse.Open(context.Background(), opts)
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() {
				st.Close()
				_ = clickhouse.DropDatabase(context.Background(), opts)
			})
			st.QueryPath = st.QueryPath.WithPageBytes(pageBytes)
			return st
		},
	}
	for _, backend := range []string{"sqlite", "clickhouse"} {
		for _, bc := range []struct {
			name  string
			bytes int64
		}{{"bounded", warehouse.DefaultPageBytes}, {"unbounded", 0}} {
			b.Run(backend+"/"+bc.name, func(b *testing.B) {
				st := backends[backend](b, bc.bytes)
				// The API as served (no response validation in between).
				keys := tenant.NewKeyring([]tenant.Key{{Secret: keyA, Tenant: tenant.Tenant{Environment: "env-a", OrganizationID: "org-a", ProjectID: "p-a"}}})
				s := httptest.NewServer(New(Options{Keys: keys, Store: st, MaxBodyBytes: 1 << 20}))
				defer s.Close()
				largeSpans(b, st, "env-a", 50, 1<<20)
				path := s.URL + "/v2/warehouse/spans?from_timestamp_sec=0&limit=50"
				var peak uint64
				var ms runtime.MemStats
				b.ReportAllocs()
				for b.Loop() {
					runtime.GC()
					runtime.ReadMemStats(&ms)
					before := ms.HeapAlloc
					old := debug.SetGCPercent(-1)
					req, _ := http.NewRequest("GET", path, nil)
					req.Header.Set("Authorization", authA)
					resp, err := s.Client().Do(req)
					if err != nil {
						b.Fatal(err)
					}
					_, _ = io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
					runtime.ReadMemStats(&ms)
					debug.SetGCPercent(old)
					if resp.StatusCode != http.StatusOK {
						b.Fatalf("status %d", resp.StatusCode)
					}
					peak = max(peak, ms.HeapAlloc-before)
				}
				b.ReportMetric(float64(peak)/(1<<20), "heap-MiB")
			})
		}
	}
}
