package warehouse

import (
	"context"
	"sync"
	"time"
)

// Retention is how long a store keeps spans and metric points. A zero
// duration keeps them forever (the default).
type Retention struct {
	// Spans is the age (by span start time) after which spans are deleted.
	Spans time.Duration
	// MetricPoints is the age (by event time) after which points are
	// deleted.
	MetricPoints time.Duration
	// Interval is how often the pruning job runs (default
	// DefaultPruneInterval).
	Interval time.Duration
	// Grace is how long rows stay stored after they are out of the
	// retention, so that a pagination that started before they expired
	// ends as it began (see README.md, "Retention"): 0 means
	// DefaultPruneGrace, a negative value none.
	Grace time.Duration
}

// Defaults of Retention.
const (
	DefaultPruneInterval = time.Minute
	DefaultPruneGrace    = 15 * time.Minute
)

// Enabled reports whether anything is ever deleted.
func (r Retention) Enabled() bool { return r.Spans > 0 || r.MetricPoints > 0 }

// WithDefaults fills Interval and Grace.
func (r Retention) WithDefaults() Retention {
	if r.Interval <= 0 {
		r.Interval = DefaultPruneInterval
	}
	if r.Grace < 0 {
		r.Grace = 0
	} else if r.Grace == 0 {
		r.Grace = DefaultPruneGrace
	}
	return r
}

// Pruned counts what one pruning pass deleted.
type Pruned struct {
	Spans, MetricPoints int64
}

// Pruner is implemented by stores that enforce a Retention: Prune runs
// one pruning pass now (the store also runs it every Retention.Interval
// in the background). Like EvaluationAppender it is optional; callers
// check for it with a type assertion.
type Pruner interface {
	Prune(ctx context.Context) (Pruned, error)
}

// PruneJob runs a store's Prune every Retention.Interval in the
// background until Stop.
type PruneJob struct {
	stop context.CancelFunc
	done sync.WaitGroup
}

// StartPruneJob starts running p.Prune every r.Interval; onErr (may be
// nil) receives the errors of failed runs (the next run tries again). It
// returns nil, running nothing, when r deletes nothing.
func StartPruneJob(p Pruner, r Retention, onErr func(error)) *PruneJob {
	r = r.WithDefaults()
	if !r.Enabled() {
		return nil
	}
	ctx, stop := context.WithCancel(context.Background())
	j := &PruneJob{stop: stop}
	j.done.Add(1)
	go func() {
		defer j.done.Done()
		t := time.NewTicker(r.Interval)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
			if _, err := p.Prune(ctx); err != nil && ctx.Err() == nil && onErr != nil {
				onErr(err)
			}
		}
	}()
	return j
}

// Stop ends the job and waits for a run in progress to return (it is
// cancelled). A nil job does nothing.
func (j *PruneJob) Stop() {
	if j == nil {
		return
	}
	j.stop()
	j.done.Wait()
}
