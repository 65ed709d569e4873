package warehouse

import (
	"context"
	"time"
)

// PipelineStatus is one collector's counters of one environment's
// evaluation pipeline, as it last reported them (GET
// /v2/monitoring/status folds the rows of every collector). Zero times
// mean never.
type PipelineStatus struct {
	CollectorID string
	Environment string
	ReportedAt  time.Time
	// LatestStored is when the collector last stored a span of the
	// environment; LastEvaluatedStored when it last stored one carrying
	// evaluations.
	LatestStored        time.Time
	LastEvaluatedStored time.Time
	// Pending are the spans matched by a monitor and not stored yet;
	// OldestPending is when the oldest of them was matched.
	Pending       int64
	OldestPending time.Time
	// Lost counts matched spans that were never stored (the exporter gave
	// up on them); LastLost is when the last was counted.
	Lost     int64
	LastLost time.Time
	// The last successful and the last failed evaluations, and why the
	// last failed.
	LastEvalOK, LastEvalFailed time.Time
	LastEvalError              string
	// The last successful and the last refused warehouse writes, and why
	// the last was refused.
	LastWriteOK, LastWriteFailed time.Time
	LastWriteError               string
}

// StatusStore keeps the pipeline status rows of the collectors sharing a
// warehouse: one row per collector and environment, replaced on every
// report.
type StatusStore interface {
	// WritePipelineStatus stores rows, replacing each collector's earlier
	// row of the same environment.
	WritePipelineStatus(ctx context.Context, rows []PipelineStatus) error
	// PipelineStatus returns the latest row of every collector that
	// reported on environment env.
	PipelineStatus(ctx context.Context, env string) ([]PipelineStatus, error)
}

// UnixMs is a time as Unix milliseconds, 0 for the zero time (the stored
// form of PipelineStatus times).
func UnixMs(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixMilli()
}

// FromUnixMs is the time of UnixMs ms, the zero time for 0.
func FromUnixMs(ms int64) time.Time {
	if ms == 0 {
		return time.Time{}
	}
	return time.UnixMilli(ms).UTC()
}

// TimesMs returns the row's times as Unix ms (UnixMs) in the column
// order of the stores: reported, latest stored, last evaluated stored,
// oldest pending, last lost, last evaluation ok, last evaluation failed,
// last write ok, last write failed.
func (r PipelineStatus) TimesMs() [9]int64 {
	ms := UnixMs
	return [9]int64{ms(r.ReportedAt), ms(r.LatestStored), ms(r.LastEvaluatedStored), ms(r.OldestPending), ms(r.LastLost),
		ms(r.LastEvalOK), ms(r.LastEvalFailed), ms(r.LastWriteOK), ms(r.LastWriteFailed)}
}

// SetTimesMs sets the row's times from Unix ms in the order of TimesMs.
func (r *PipelineStatus) SetTimesMs(t [9]int64) {
	f := FromUnixMs
	r.ReportedAt, r.LatestStored, r.LastEvaluatedStored, r.OldestPending, r.LastLost = f(t[0]), f(t[1]), f(t[2]), f(t[3]), f(t[4])
	r.LastEvalOK, r.LastEvalFailed, r.LastWriteOK, r.LastWriteFailed = f(t[5]), f(t[6]), f(t[7]), f(t[8])
}

// PipelineStatusColumns are the stored columns of a PipelineStatus, in the
// order of Values and ScanPipelineStatus.
const PipelineStatusColumns = `environment, collector_id, reported_at, latest_stored, last_evaluated_stored, pending, oldest_pending,
	lost, last_lost, last_eval_ok, last_eval_failed, last_eval_error, last_write_ok, last_write_failed, last_write_error`

// Values returns the row's column values (times as Unix ms).
func (r PipelineStatus) Values() []any {
	t := r.TimesMs()
	return []any{r.Environment, r.CollectorID, t[0], t[1], t[2], r.Pending, t[3],
		r.Lost, t[4], t[5], t[6], r.LastEvalError, t[7], t[8], r.LastWriteError}
}

// ScanPipelineStatus reads a row of PipelineStatusColumns with scan (the
// Scan of a database/sql or ClickHouse driver row).
func ScanPipelineStatus(scan func(dest ...any) error) (PipelineStatus, error) {
	var r PipelineStatus
	var t [9]int64
	if err := scan(&r.Environment, &r.CollectorID, &t[0], &t[1], &t[2], &r.Pending, &t[3],
		&r.Lost, &t[4], &t[5], &t[6], &r.LastEvalError, &t[7], &t[8], &r.LastWriteError); err != nil {
		return r, err
	}
	r.SetTimesMs(t)
	return r, nil
}
