package warehouse

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"
)

// countingPruner counts its runs and fails every second one.
type countingPruner struct{ runs atomic.Int64 }

func (p *countingPruner) Prune(ctx context.Context) (Pruned, error) {
	if p.runs.Add(1)%2 == 0 {
		return Pruned{}, errors.New("disk busy")
	}
	return Pruned{Spans: 1}, nil
}

func TestPruneJob(t *testing.T) {
	if j := StartPruneJob(&countingPruner{}, Retention{Interval: time.Millisecond}, nil); j != nil {
		t.Fatal("a retention that deletes nothing started a job")
	}
	var nilJob *PruneJob
	nilJob.Stop() // does nothing

	p := &countingPruner{}
	var failures atomic.Int64
	j := StartPruneJob(p, Retention{Spans: time.Hour, Interval: 5 * time.Millisecond}, func(err error) {
		if err.Error() == "disk busy" {
			failures.Add(1)
		}
	})
	deadline := time.Now().Add(10 * time.Second)
	for p.runs.Load() < 4 {
		if time.Now().After(deadline) {
			t.Fatalf("%d runs in 10 s, want 4", p.runs.Load())
		}
		time.Sleep(5 * time.Millisecond)
	}
	j.Stop()
	after := p.runs.Load()
	time.Sleep(30 * time.Millisecond)
	if p.runs.Load() != after {
		t.Errorf("the job ran after Stop")
	}
	if failures.Load() < 2 {
		t.Errorf("%d failures reported, want every second run's", failures.Load())
	}
}

func TestRetentionDefaultsAndValidate(t *testing.T) {
	r := Retention{Spans: time.Hour}.WithDefaults()
	if r.Interval != DefaultPruneInterval || r.Grace != DefaultPruneGrace || !r.Enabled() {
		t.Errorf("defaults: %+v", r)
	}
	if r := (Retention{Grace: -1}).WithDefaults(); r.Grace != 0 || r.Enabled() {
		t.Errorf("negative grace: %+v, want none and nothing enabled", r)
	}
}
