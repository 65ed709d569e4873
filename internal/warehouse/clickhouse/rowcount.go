package clickhouse

import (
	"context"
	"sync/atomic"

	ch "github.com/ClickHouse/clickhouse-go/v2"
)

// limitCounter records the server's rows_before_limit of a query with
// ORDER BY ... LIMIT: the rows that reached the sort, i.e. every row
// that passed WHERE after FINAL collapsed the duplicates. That is the
// exact number of matches, so the page query also yields total_results
// and the second pass (count() FINAL over the same range) is saved.
type limitCounter struct {
	rows atomic.Uint64
	ok   atomic.Bool
}

// record is the driver's profile-info callback.
func (c *limitCounter) record(p *ch.ProfileInfo) {
	if p.CalculatedRowsBeforeLimit {
		c.rows.Store(p.RowsBeforeLimit)
		c.ok.Store(true)
	}
}

// count returns the recorded number of rows; ok is false when the server
// sent none (then the caller counts with a query).
func (c *limitCounter) count() (n uint64, ok bool) { return c.rows.Load(), c.ok.Load() }

// countingContext returns ctx set up to record the query's
// rows_before_limit into the returned counter. On a cluster the counter
// stays empty: a Distributed query's figure is a sum over shards that
// the server only promises as a lower bound, so callers count instead.
func (s *Store) countingContext(ctx context.Context) (context.Context, *limitCounter) {
	c := &limitCounter{}
	if s.schema.cluster != "" {
		return ctx, c
	}
	return ch.Context(ctx, ch.WithProfileInfo(c.record)), c
}
