package groupcommit

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/evalcol/evalcol/internal/warehouse"
)

// TestConflictsGoToTheirRequests: requests that share a commit each get
// the conflicting duplicates among their own spans, by their own indexes.
func TestConflictsGoToTheirRequests(t *testing.T) {
	g := newGatedStore(t)
	c := NewReporting(func(ctx context.Context, spans []warehouse.Span, points []warehouse.MetricPoint) (warehouse.SpanWriteReport, error) {
		if err := g.write(ctx, spans, points); err != nil {
			return warehouse.SpanWriteReport{}, err
		}
		var rep warehouse.SpanWriteReport
		for i, s := range spans {
			if s.StatusMessage == "conflict" {
				rep.Conflicts = append(rep.Conflicts, i)
			}
		}
		return rep, nil
	}, settings())
	defer c.Close(context.Background())
	g.close()
	first := make(chan error, 1)
	go func() { first <- c.Commit(context.Background(), batch("first", 1, 100)) }()
	waitWrites(t, g, 1)

	// Request r has 4 spans; spans r and r+1 (mod 4) of it conflict.
	const senders = 5
	type answer struct {
		r   int
		res Result
		err error
	}
	answers := make(chan answer, senders)
	for r := range senders {
		b := batch(fmt.Sprint("r", r), 4, 100)
		b.Spans[r%4].StatusMessage, b.Spans[(r+1)%4].StatusMessage = "conflict", "conflict"
		go func() {
			res, err := c.CommitReport(context.Background(), b)
			answers <- answer{r, res, err}
		}()
	}
	queued(t, c, senders)
	g.open()
	if err := <-first; err != nil {
		t.Fatal(err)
	}
	for range senders {
		a := <-answers
		want := []int{a.r % 4, (a.r + 1) % 4}
		slices.Sort(want)
		if a.err != nil || !slices.Equal(a.res.Conflicts, want) {
			t.Errorf("request r%d: conflicts %v, %v; want %v", a.r, a.res.Conflicts, a.err, want)
		}
	}
	if n := g.writeCount(); n != 2 {
		t.Errorf("%d writes, want 2 (the %d requests shared one)", n, senders)
	}
}
