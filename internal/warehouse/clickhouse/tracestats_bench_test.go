package clickhouse

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/evalcol/evalcol/internal/warehouse"
)

// BenchmarkSortedTraces measures a sorted traces page (ReadTraceStats)
// and the range's count (CountTraces) over 1 000 000 one-write traces in
// 7 days, inserted as trace stats rows directly (the spans are not needed
// for these two reads): EVALCOL_CLICKHOUSE_ADDR=... go test -run '^$'
// -bench BenchmarkSortedTraces ./internal/warehouse/clickhouse/.
func BenchmarkSortedTraces(b *testing.B) {
	addr := serverAddr(b)
	ctx := context.Background()
	st := openTestStore(b, addr)
	defer st.Close()
	const traces, week = 1_000_000, int64(604_800_000)
	start := int64(1_790_000_000_000)
	r := rand.New(rand.NewPCG(1, 2))
	for chunk := 0; chunk < traces; chunk += 100_000 {
		c := warehouse.TraceStatChanges{Rows: map[warehouse.TraceStatKey]warehouse.TraceStatValues{}}
		for i := chunk; i < chunk+100_000; i++ {
			s := start + int64(i)*week/traces
			c.Rows[warehouse.TraceStatKey{Environment: "bench", TraceID: fmt.Sprintf("%032x", r.Uint64())}] = warehouse.TraceStatValues{
				StartMs: s, EndMs: s + r.Int64N(30000), Spans: 1, Tokens: r.Int64N(3000), CostUSD: r.Float64() / 100}
		}
		if err := st.writeTraceStats(ctx, &c); err != nil {
			b.Fatal(err)
		}
	}
	end := start + week
	for _, q := range []struct {
		name     string
		from, to int64
		key      warehouse.TraceSortKey
	}{
		{"1h by latency", end - 3_600_000, end, warehouse.TraceSortLatency},
		{"24h by latency", end - 86_400_000, end, warehouse.TraceSortLatency},
		{"7d by cost", start, end, warehouse.TraceSortCost},
	} {
		b.Run(q.name+"/page", func(b *testing.B) {
			for b.Loop() {
				if _, err := st.ReadTraceStats(ctx, warehouse.TraceStatRead{Environments: []string{"bench"}, FromMs: q.from, ToMs: q.to,
					SortBy: q.key, Desc: true, Limit: 51}); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(q.name+"/count", func(b *testing.B) {
			for b.Loop() {
				if _, err := st.CountTraces(ctx, []string{"bench"}, q.from, q.to); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
