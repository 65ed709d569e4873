package console

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/evalcol/evalcol/internal/warehouse"
	"github.com/evalcol/evalcol/internal/warehouse/sqlite"
	"github.com/evalcol/evalcol/internal/warehouse/synthspans"
)

// The dashboard's benchmark warehouse: benchSpans() synthspans spans (LLM
// spans of several workflows and models, with token attributes) over 7
// days, written as the exporter writes them (span stats kept by the
// writer). Kept in the temporary directory and reused by later runs of the
// same size.
var (
	statsOnce  sync.Once
	statsErr   error
	statsStore warehouse.Store
	statsPath  string
)

func openStatsStore(b *testing.B) warehouse.Store {
	b.Helper()
	statsOnce.Do(func() {
		n := benchSpans()
		statsPath = filepath.Join(os.TempDir(), fmt.Sprintf("evalcol-console-spanstats-bench-%d.db", n))
		_, statErr := os.Stat(statsPath)
		ctx := context.Background()
		st, err := sqlite.Open(ctx, statsPath, sqlite.Options{})
		if err != nil {
			statsErr = err
			return
		}
		statsStore = st
		if statErr == nil {
			return
		}
		g := synthspans.New(benchEnv, 7)
		start := time.Now()
		const batch = 10_000
		for done := 0; done < n; done += batch {
			k := min(batch, n-done)
			from := benchStart + (benchEnd-benchStart)*int64(done)/int64(n)
			to := benchStart + (benchEnd-benchStart)*int64(done+k)/int64(n)
			if err := st.WriteSpans(ctx, g.Batch(k, from, to)); err != nil {
				statsErr = err
				return
			}
		}
		fmt.Fprintf(os.Stderr, "filled %s with %d spans in %s\n", statsPath, n, time.Since(start).Round(time.Second))
	})
	if statsErr != nil {
		b.Fatal(statsErr)
	}
	return statsStore
}

// oldDashboard is the least a dashboard read without the stats: one GROUP
// BY over the spans of the range (counts, errors and latency sums per
// bucket, workflow and model; no percentiles, no tokens, which would need
// every span's durations and attributes), on a read-only connection.
func oldDashboard(ctx context.Context, db *sql.DB, from, to, bucketMs int64) error {
	rows, err := db.QueryContext(ctx, `SELECT (timestamp - ?) / ? AS b, workflow_name, response_model, count(*),
		sum(status_code = 'STATUS_CODE_ERROR'), sum(duration) FROM spans
		WHERE environment = ? AND timestamp >= ? AND timestamp <= ? GROUP BY b, workflow_name, response_model`,
		from, bucketMs, benchEnv, from, to)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
	}
	return rows.Err()
}

// BenchmarkDashboard measures, back to back over the same warehouse, a
// GROUP BY over the spans (old: the least a dashboard without the stats
// reads) and the whole dashboard page from the span stats (new, rendering
// included), over 24 hours and 7 days:
//
//	go test -run '^$' -bench BenchmarkDashboard$ -benchtime 10x ./extension/evalapiextension/internal/console/
func BenchmarkDashboard(b *testing.B) {
	st := openStatsStore(b)
	c, ck := consoleOver(b, st)
	db, err := sql.Open("sqlite", "file:"+statsPath+"?_pragma=query_only(1)")
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	for _, r := range []struct {
		name     string
		from     int64
		bucketMs int64
	}{{"24h", benchEnd - 24*3600_000, 3600_000}, {"7d", benchEnd - 7*24*3600_000, 6 * 3600_000}} {
		b.Run(r.name+"/old", func(b *testing.B) {
			var durations []time.Duration
			cpu0 := synthspans.CPUTime()
			for b.Loop() {
				start := time.Now()
				if err := oldDashboard(ctx, db, r.from-r.from%r.bucketMs, benchEnd, r.bucketMs); err != nil {
					b.Fatal(err)
				}
				durations = append(durations, time.Since(start))
			}
			report(b, durations, 0, cpu0)
		})
		b.Run(r.name+"/new", func(b *testing.B) {
			var durations []time.Duration
			bytes := 0
			cpu0 := synthspans.CPUTime()
			for b.Loop() {
				d, rec := serve(b, c, ck, "/ui/dashboard?range="+r.name)
				durations = append(durations, d)
				bytes = rec.Body.Len()
			}
			report(b, durations, bytes, cpu0)
		})
	}
}
