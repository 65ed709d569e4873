package monitoringstatus

import (
	"context"
	"errors"
	"fmt"
	"time"

	"go.uber.org/zap"

	"github.com/evalcol/evalcol/internal/tenant"
	"github.com/evalcol/evalcol/internal/warehouse"
)

// The status thresholds and windows.
const (
	// DegradedAfter and ErrorAfter are the lags past which the status is
	// DEGRADED and ERROR.
	DegradedAfter = 3 * time.Minute
	ErrorAfter    = 10 * time.Minute
	// recent is how long a failed evaluation or a lost span keeps the
	// status at ERROR after the last one.
	recent = 10 * time.Minute
)

// The status values.
const (
	StatusOK       = "OK"
	StatusDegraded = "DEGRADED"
	StatusError    = "ERROR"
)

// SetupSummary is what an environment's auto monitor setups say about
// its evaluation.
type SetupSummary struct {
	// Setups counts the environment's setups, Usable those with at least
	// one evaluator binding that did not fail.
	Setups, Usable int
	// FirstError is the message of a failed binding, when there is one.
	FirstError string
	// BackfillPending counts the spans backfills still have to evaluate.
	BackfillPending int64
}

// JudgeBacklog is an environment's queued online judge work (custom
// evaluators judged after their spans are stored).
type JudgeBacklog struct {
	Items  int64
	Oldest time.Time
}

// AddJudgeBacklog counts queued judge work in s: its items in the lag in
// spans, its oldest item in the lag in seconds, DEGRADED (or ERROR) when
// that lag passes the thresholds.
func AddJudgeBacklog(s Status, b JudgeBacklog, now time.Time) Status {
	if b.Items == 0 {
		return s
	}
	s.LagInSpans += b.Items
	lag := max(0, now.Sub(b.Oldest))
	if int64(lag/time.Second) <= s.LagInSeconds {
		return s
	}
	s.LagInSeconds = int64(lag / time.Second)
	switch {
	case lag > ErrorAfter:
		s.Status = StatusError
		s.Reasons = append(s.Reasons, fmt.Sprintf("online judging is %s behind, more than the %s an ERROR allows: %d judgements wait in the queue, the oldest since %s",
			minutes(lag), minutes(ErrorAfter), b.Items, b.Oldest.UTC().Format(time.RFC3339)))
	case lag > DegradedAfter:
		if s.Status == StatusOK {
			s.Status = StatusDegraded
		}
		s.Reasons = append(s.Reasons, fmt.Sprintf("online judging is %s behind, more than the %s that count as keeping up: %d judgements wait in the queue, the oldest since %s",
			minutes(lag), minutes(DegradedAfter), b.Items, b.Oldest.UTC().Format(time.RFC3339)))
	}
	return s
}

// Status is the answer of GET /v2/monitoring/status.
type Status struct {
	OrganizationID     string     `json:"organization_id"`
	Environment        string     `json:"environment"`
	Project            string     `json:"project"`
	EvaluatedUpTo      *time.Time `json:"evaluated_up_to"`
	LatestSpanReceived *time.Time `json:"latest_span_received"`
	LagInSeconds       int64      `json:"lag_in_seconds"`
	LagInSpans         int64      `json:"lag_in_spans"`
	Status             string     `json:"status"`
	Reasons            []string   `json:"reasons"`
}

func stamp(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	u := t.UTC().Truncate(time.Second)
	return &u
}

func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

func minutes(d time.Duration) string {
	if d < 2*time.Minute {
		return fmt.Sprintf("%d seconds", int(d.Seconds()))
	}
	return fmt.Sprintf("%.0f minutes", d.Minutes())
}

// Compute folds the rows of every collector of t's environment into its
// status at now. Rows reported within live of now are live: their pending
// spans and failures count; older rows (collectors gone) count only for
// the watermarks.
func Compute(t tenant.Tenant, rows []warehouse.PipelineStatus, setups SetupSummary, now time.Time, live time.Duration) Status {
	s := Status{OrganizationID: t.OrganizationID, Environment: t.Environment, Project: t.ProjectID, Reasons: []string{}}
	var (
		latest, lastEval, oldest      time.Time
		pending                       int64
		writeFailed, evalFailed, lost *warehouse.PipelineStatus
	)
	for i := range rows {
		r := &rows[i]
		latest = later(latest, r.LatestStored)
		lastEval = later(lastEval, r.LastEvaluatedStored)
		if now.Sub(r.ReportedAt) > live {
			continue
		}
		pending += r.Pending
		if r.Pending > 0 && !r.OldestPending.IsZero() && (oldest.IsZero() || r.OldestPending.Before(oldest)) {
			oldest = r.OldestPending
		}
		if r.LastWriteFailed.After(r.LastWriteOK) && (writeFailed == nil || r.LastWriteFailed.After(writeFailed.LastWriteFailed)) {
			writeFailed = r
		}
		if r.LastEvalFailed.After(r.LastEvalOK) && now.Sub(r.LastEvalFailed) <= recent && (evalFailed == nil || r.LastEvalFailed.After(evalFailed.LastEvalFailed)) {
			evalFailed = r
		}
		if !r.LastLost.IsZero() && now.Sub(r.LastLost) <= recent && (lost == nil || r.LastLost.After(lost.LastLost)) {
			lost = r
		}
	}
	s.LatestSpanReceived = stamp(latest)
	var lag time.Duration
	switch {
	case pending > 0:
		lag = max(0, now.Sub(oldest))
		if !lastEval.IsZero() {
			upTo := oldest
			if !latest.IsZero() && latest.Before(upTo) {
				upTo = latest
			}
			s.EvaluatedUpTo = stamp(upTo)
		}
	case !lastEval.IsZero():
		s.EvaluatedUpTo = stamp(latest)
	}
	s.LagInSeconds = int64(lag / time.Second)
	s.LagInSpans = pending + setups.BackfillPending

	var errs []string
	if writeFailed != nil {
		errs = append(errs, fmt.Sprintf("the warehouse refused the last write of this environment's spans at %s: %s",
			writeFailed.LastWriteFailed.UTC().Format(time.RFC3339), writeFailed.LastWriteError))
	}
	if lost != nil {
		errs = append(errs, fmt.Sprintf("spans matched by a monitor were dropped without being stored, the last at %s",
			lost.LastLost.UTC().Format(time.RFC3339)))
	}
	if setups.Setups > 0 && setups.Usable == 0 {
		msg := fmt.Sprintf("none of the environment's %d auto monitor setups has an evaluator that can run: every binding failed", setups.Setups)
		if setups.FirstError != "" {
			msg += " (" + setups.FirstError + ")"
		}
		errs = append(errs, msg)
	}
	if evalFailed != nil {
		why := ""
		if evalFailed.LastEvalError != "" {
			why = " (" + evalFailed.LastEvalError + ")"
		}
		errs = append(errs, fmt.Sprintf("every evaluation since %s failed%s",
			later(evalFailed.LastEvalOK, now.Add(-recent)).UTC().Format(time.RFC3339), why))
	}
	switch {
	case lag > ErrorAfter:
		errs = append(errs, fmt.Sprintf("evaluation is %s behind, more than the %s an ERROR allows: a span matched at %s still waits for its evaluations to be stored",
			minutes(lag), minutes(ErrorAfter), oldest.UTC().Format(time.RFC3339)))
	case lag > DegradedAfter:
		s.Reasons = append(s.Reasons, fmt.Sprintf("evaluation is %s behind, more than the %s that count as keeping up: a span matched at %s still waits for its evaluations to be stored",
			minutes(lag), minutes(DegradedAfter), oldest.UTC().Format(time.RFC3339)))
	}
	switch {
	case len(errs) > 0:
		s.Status = StatusError
		s.Reasons = append(errs, s.Reasons...)
	case len(s.Reasons) > 0:
		s.Status = StatusDegraded
	default:
		s.Status = StatusOK
	}
	return s
}

// Reader answers the status of an environment from the warehouse rows of
// the other collectors and this collector's live tracker.
type Reader struct {
	Store   warehouse.StatusStore
	Tracker *Tracker
	// CollectorID names this collector's rows.
	CollectorID string
	// Setups summarises an environment's setups; nil means none.
	Setups func(env string) SetupSummary
	// Judge returns an environment's queued online judge work; nil means
	// none.
	Judge func(ctx context.Context, env string) (JudgeBacklog, error)
	// Live is how recently a row must have been reported to count as a
	// running collector's.
	Live time.Duration
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// Status returns the status of t's environment. When the warehouse cannot
// be read it answers from this collector alone, as an ERROR saying so.
func (r *Reader) Status(ctx context.Context, t tenant.Tenant) Status {
	now := time.Now()
	if r.Now != nil {
		now = r.Now()
	}
	rows, err := r.Store.PipelineStatus(ctx, t.Environment)
	own := rows[:0]
	for _, row := range rows {
		if row.CollectorID != r.CollectorID {
			own = append(own, row)
		}
	}
	rows = own
	for _, row := range r.Tracker.Snapshot(r.CollectorID, now) {
		if row.Environment == t.Environment {
			rows = append(rows, row)
		}
	}
	var setups SetupSummary
	if r.Setups != nil {
		setups = r.Setups(t.Environment)
	}
	s := Compute(t, rows, setups, now, r.Live)
	if r.Judge != nil {
		b, jerr := r.Judge(ctx, t.Environment)
		if jerr != nil {
			err = errors.Join(err, jerr)
		}
		s = AddJudgeBacklog(s, b, now)
	}
	if err != nil {
		s.Status = StatusError
		s.Reasons = append([]string{"the warehouse cannot be read, so this status covers this collector only: " + err.Error()}, s.Reasons...)
	}
	return s
}

// Reporter writes this collector's rows to the warehouse.
type Reporter struct {
	Store       warehouse.StatusStore
	Tracker     *Tracker
	CollectorID string
	Logger      *zap.Logger
}

// Report writes the rows once.
func (r *Reporter) Report(ctx context.Context) error {
	rows := r.Tracker.Snapshot(r.CollectorID, time.Now())
	if err := r.Store.WritePipelineStatus(ctx, rows); err != nil {
		return fmt.Errorf("write pipeline status: %w", err)
	}
	return nil
}

// Run reports every interval until ctx ends, and once more then.
func (r *Reporter) Run(ctx context.Context, interval time.Duration) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			final, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Second)
			_ = r.Report(final)
			cancel()
			return
		case <-t.C:
		}
		if err := r.Report(ctx); err != nil && ctx.Err() == nil && r.Logger != nil {
			r.Logger.Warn("reporting the monitoring status failed", zap.Error(err))
		}
	}
}
