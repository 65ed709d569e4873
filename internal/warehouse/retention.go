package warehouse

import (
	"context"
	"fmt"
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
	// retention (default DefaultPruneGrace), so that a pagination that
	// started before they expired ends as it began; see the backend's
	// README for what each backend guarantees.
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

// Validate checks the durations.
func (r Retention) Validate() error {
	for _, d := range []struct {
		name string
		v    time.Duration
	}{{"spans", r.Spans}, {"metric_points", r.MetricPoints}, {"interval", r.Interval}} {
		if d.v < 0 {
			return fmt.Errorf("%s: must not be negative, got %s", d.name, d.v)
		}
	}
	return nil
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
