package alerting

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"go.uber.org/zap"

	"github.com/evalcol/evalcol/evaluators"
	"github.com/evalcol/evalcol/internal/warehouse"
)

// Warehouse document kinds of alerting.
const (
	RuleKind  = "alert_rule"  // scope: environment
	StateKind = "alert_state" // scope: environment, id: the rule's
	leaseKind = "alert_lease"
)

// Label names of evaluation points (internal/spanconv's).
const (
	labelWorkflow = "workflow"
	labelMonitor  = "monitor_id"
	labelVerdict  = "verdict"
	labelEvalName = "evaluator_name"
)

// Store is what alerting needs of the warehouse.
type Store interface {
	warehouse.DocumentStore
	warehouse.MetricAggregator
	QuerySpans(ctx context.Context, q warehouse.SpanQuery) (warehouse.SpanPage, error)
}

// Measure reads rule r's window of environment env ending at now.
func Measure(ctx context.Context, st Store, env string, r Rule, now time.Time) (Measurement, error) {
	from := now.Add(-time.Duration(r.WindowMinutes) * time.Minute).UnixMilli()
	if r.Kind == KindNoSpans {
		page, err := st.QuerySpans(ctx, warehouse.SpanQuery{Environments: []string{env}, FromMs: from, ToMs: now.UnixMilli(), Limit: 1})
		if err != nil {
			return Measurement{}, fmt.Errorf("measure %s: %w", r.ID, err)
		}
		return Measurement{Count: int64(len(page.Spans)), Value: float64(len(page.Spans))}, nil
	}
	q := warehouse.MetricAggregateQuery{Environments: []string{env}, FromMs: from, ToMs: now.UnixMilli(),
		MetricSource: warehouse.SourceEvaluator, GroupBy: []string{labelVerdict}}
	if d, ok := evaluators.Lookup(r.Evaluator); ok {
		q.MetricName = d.Slug + "." + d.Score // one point per evaluation
	} else {
		q.Filters = append(q.Filters, warehouse.Filter{Field: warehouse.PrefixLabel + labelEvalName, Operator: warehouse.OpEquals, Value: r.Evaluator})
	}
	if r.Workflow != "" {
		q.Filters = append(q.Filters, warehouse.Filter{Field: warehouse.PrefixLabel + labelWorkflow, Operator: warehouse.OpEquals, Value: r.Workflow})
	}
	if r.Monitor != "" {
		q.Filters = append(q.Filters, warehouse.Filter{Field: warehouse.PrefixLabel + labelMonitor, Operator: warehouse.OpEquals, Value: r.Monitor})
	}
	agg, err := st.AggregateMetrics(ctx, q)
	if err != nil {
		return Measurement{}, fmt.Errorf("measure %s: %w", r.ID, err)
	}
	var pass, fail, numeric int64
	var sum float64
	for _, row := range agg.Rows {
		switch row.Labels[0] {
		case string(evaluators.VerdictPass):
			pass += row.Count
		case string(evaluators.VerdictFail):
			fail += row.Count
		}
		numeric += row.Numeric
		sum += row.Sum
	}
	if r.Kind == KindMeanScore {
		if numeric == 0 {
			return Measurement{}, nil
		}
		return Measurement{Value: sum / float64(numeric), Count: numeric}, nil
	}
	if pass+fail == 0 {
		return Measurement{}, nil
	}
	return Measurement{Value: 100 * float64(pass) / float64(pass+fail), Count: pass + fail}, nil
}

// Runner evaluates every environment's rules on a schedule. Collectors
// sharing a warehouse each run one; a lease in the warehouse lets one of
// them evaluate at a time, so each alert fires once.
type Runner struct {
	Store    Store
	Notifier *Notifier
	Logger   *zap.Logger
	// Holder names this collector in the lease.
	Holder string
	// Interval is the time between evaluations (default 1 min).
	Interval time.Duration
	// Settle is how long after taking the lease the runner reads it back
	// before it acts (default 200 ms): on a warehouse without
	// transactions (ClickHouse) two collectors that took it at once both
	// see the one whose write came last.
	Settle time.Duration
	Now    func() time.Time
}

func (rn *Runner) interval() time.Duration {
	if rn.Interval <= 0 {
		return time.Minute
	}
	return rn.Interval
}

// Run evaluates until ctx ends.
func (rn *Runner) Run(ctx context.Context) {
	t := time.NewTicker(rn.interval())
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if err := rn.Tick(ctx); err != nil && ctx.Err() == nil {
				rn.logger().Warn("alert evaluation failed", zap.Error(err))
			}
		}
	}
}

func (rn *Runner) logger() *zap.Logger {
	if rn.Logger == nil {
		return zap.NewNop()
	}
	return rn.Logger
}

func (rn *Runner) now() time.Time {
	if rn.Now == nil {
		return time.Now()
	}
	return rn.Now()
}

// lease is the body of the lease document.
type lease struct {
	Holder string `json:"holder"`
	Until  int64  `json:"until"` // Unix ms
}

// takeLease reports whether this runner holds the lease for the next
// evaluations, taking or renewing it.
func (rn *Runner) takeLease(ctx context.Context) (bool, error) {
	now := rn.now()
	want := lease{Holder: rn.Holder, Until: now.Add(3 * rn.interval()).UnixMilli()}
	body, _ := json.Marshal(want)
	d, err := rn.Store.GetDocument(ctx, leaseKind, "-", "runner")
	switch {
	case errors.Is(err, warehouse.ErrNotFound):
		err = rn.Store.CreateDocument(ctx, warehouse.Document{Kind: leaseKind, Scope: "-", ID: "runner", Body: body})
	case err != nil:
		return false, err
	default:
		var held lease
		if jerr := json.Unmarshal(d.Body, &held); jerr == nil && held.Holder != rn.Holder && held.Until > now.UnixMilli() {
			return false, nil
		}
		d.Body, d.Version = body, d.Version+1
		err = rn.Store.UpdateDocument(ctx, d)
	}
	if errors.Is(err, warehouse.ErrConflict) || errors.Is(err, warehouse.ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	settle := rn.Settle
	if settle <= 0 {
		settle = 200 * time.Millisecond
	}
	select {
	case <-ctx.Done():
		return false, ctx.Err()
	case <-time.After(settle):
	}
	d, err = rn.Store.GetDocument(ctx, leaseKind, "-", "runner")
	if err != nil {
		return false, err
	}
	var held lease
	if err := json.Unmarshal(d.Body, &held); err != nil {
		return false, fmt.Errorf("decode lease: %w", err)
	}
	return held.Holder == rn.Holder, nil
}

// Tick evaluates every rule once, if this runner holds the lease.
func (rn *Runner) Tick(ctx context.Context) error {
	ok, err := rn.takeLease(ctx)
	if err != nil || !ok {
		return err
	}
	var after int64
	var errs []error
	for {
		docs, err := rn.Store.ListDocuments(ctx, warehouse.DocumentQuery{Kind: RuleKind, AllScopes: true, AfterSeq: after})
		if err != nil {
			return fmt.Errorf("list alert rules: %w", err)
		}
		for _, d := range docs {
			if err := rn.evaluate(ctx, d); err != nil {
				errs = append(errs, err)
			}
		}
		if len(docs) < warehouse.MaxDocumentPage {
			return errors.Join(errs...)
		}
		after = docs[len(docs)-1].Seq
	}
}

// evaluate evaluates one rule: measure, step its state, notify, and store
// the state.
func (rn *Runner) evaluate(ctx context.Context, d warehouse.Document) error {
	var r Rule
	if err := json.Unmarshal(d.Body, &r); err != nil {
		return fmt.Errorf("decode alert rule %s: %w", d.ID, err)
	}
	r.ID = d.ID
	env := d.Scope
	now := rn.now()
	m, err := Measure(ctx, rn.Store, env, r, now)
	if err != nil {
		return err
	}
	sd, s, err := LoadState(ctx, rn.Store, env, r.ID)
	if err != nil {
		return err
	}
	s, ev := Step(r, s, m, now)
	if ev != nil {
		if !ev.Silenced && rn.Notifier != nil {
			ev.Deliveries = rn.Notifier.Send(ctx, r.Notify, rn.Notifier.NewPayload(r, env, *ev))
		}
		s.Record(*ev)
	}
	return SaveState(ctx, rn.Store, sd, env, r.ID, s)
}

// LoadState reads a rule's state document (nil when it has none yet) and
// state.
func LoadState(ctx context.Context, st warehouse.DocumentStore, env, ruleID string) (*warehouse.Document, State, error) {
	d, err := st.GetDocument(ctx, StateKind, env, ruleID)
	if errors.Is(err, warehouse.ErrNotFound) {
		return nil, State{Status: StatusUnknown}, nil
	}
	if err != nil {
		return nil, State{}, fmt.Errorf("read alert state %s: %w", ruleID, err)
	}
	var s State
	if err := json.Unmarshal(d.Body, &s); err != nil {
		return nil, State{}, fmt.Errorf("decode alert state %s: %w", ruleID, err)
	}
	return &d, s, nil
}

// SaveState stores a rule's state, creating its document or updating d.
func SaveState(ctx context.Context, st warehouse.DocumentStore, d *warehouse.Document, env, ruleID string, s State) error {
	body, err := json.Marshal(s)
	if err != nil {
		return fmt.Errorf("encode alert state: %w", err)
	}
	if d == nil {
		err = st.CreateDocument(ctx, warehouse.Document{Kind: StateKind, Scope: env, ID: ruleID, Body: body})
	} else {
		d.Body, d.Version = body, d.Version+1
		err = st.UpdateDocument(ctx, *d)
	}
	if err != nil {
		return fmt.Errorf("store alert state %s: %w", ruleID, err)
	}
	return nil
}
