package console

import (
	"context"
	"crypto/sha256"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/evalcol/evalcol/internal/tenant"
	"github.com/evalcol/evalcol/internal/warehouse/sqlite"
	"github.com/evalcol/evalcol/internal/warehouse/synthspans"
)

// The search benchmark warehouse is the SQLite load test's fill with text
// (go run ./internal/warehouse/sqlite/internal/querybench -text): 1 000 000
// spans of environment production over the 7 days before 2026-11-01, each
// with a prompt and a completion. EVALCOL_CONSOLE_SEARCH_DB names such a
// file (e.g. the load test's -dir/warehouse.db); without it the benchmark
// fills one in the temporary directory (about 10 minutes) and reuses it.
const (
	searchBenchEnv = "production"
	searchBenchN   = 1_000_000
)

var searchBenchEnd = time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC).UnixMilli()

func searchBenchConsole(b *testing.B) (*Console, *http.Cookie) {
	b.Helper()
	ctx := context.Background()
	path := os.Getenv("EVALCOL_CONSOLE_SEARCH_DB")
	if path == "" {
		path = filepath.Join(os.TempDir(), fmt.Sprintf("evalcol-console-search-bench-%d.db", searchBenchN))
	}
	_, statErr := os.Stat(path)
	st, err := sqlite.Open(ctx, path, sqlite.Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { st.Close() })
	if statErr != nil {
		g := synthspans.New(searchBenchEnv, 1).WithText(1)
		start := searchBenchEnd - 7*synthspans.Day
		const batch = 1000
		for i := 0; i < searchBenchN; i += batch {
			from := start + (searchBenchEnd-start)*int64(i)/searchBenchN
			to := start + (searchBenchEnd-start)*int64(i+batch)/searchBenchN
			if err := st.WriteSpans(ctx, g.Batch(batch, from, to)); err != nil {
				b.Fatal(err)
			}
		}
	}
	c, err := New(Options{
		Keys:  tenant.NewKeyring([]tenant.Key{{Secret: "bench-key-0001", Tenant: tenant.Tenant{Environment: searchBenchEnv}}}),
		Store: st, SessionKeys: StaticKeys(secret), Now: func() time.Time { return time.UnixMilli(searchBenchEnd) },
	})
	if err != nil {
		b.Fatal(err)
	}
	value, err := c.startSession(ctx, tenant.Tenant{Environment: searchBenchEnv}, sha256.Sum256([]byte("bench-key-0001")), "")
	if err != nil {
		b.Fatal(err)
	}
	return c, &http.Cookie{Name: sessionCookie, Value: value}
}

// BenchmarkSearchList measures the server time of the traces and spans
// lists with a search (q) over the 1M-span warehouse with text, against
// the same lists without one in the same run (the baseline):
//
//	EVALCOL_CONSOLE_SEARCH_DB=/tmp/search-lt/warehouse.db go test -run '^$' -bench SearchList -benchtime 30x ./extension/evalapiextension/internal/console/
func BenchmarkSearchList(b *testing.B) {
	c, ck := searchBenchConsole(b)
	cases := []pageCase{
		{"baseline traces 7d", "/ui/traces?range=7d"},
		{"traces 7d q word", "/ui/traces?range=7d&q=invoice"},
		{"traces 7d q two words", "/ui/traces?range=7d&q=invoice+weather"},
		{"traces 7d q rare phrase", "/ui/traces?range=7d&q=%22invoice+and+the+weather%22"},
		{"traces 24h q word", "/ui/traces?range=24h&q=invoice"},
		{"traces 24h q word + model contains", "/ui/traces?range=24h&q=invoice&model=GPT-4o"},
		{"traces 7d q word page 2", ""},
		{"baseline spans 7d sort tokens", "/ui/traces?view=spans&range=7d&sort=total_tokens"},
		{"spans 7d q word sort tokens", "/ui/traces?view=spans&range=7d&sort=total_tokens&q=invoice"},
		{"spans 24h q two words", "/ui/traces?view=spans&range=24h&q=invoice+weather"},
	}
	benchPages(b, c, ck, cases, "/ui/traces?range=7d&q=invoice")
}
