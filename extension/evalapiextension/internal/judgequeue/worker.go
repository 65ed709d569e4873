package judgequeue

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/evalcol/evalcol/evaluators"
	"github.com/evalcol/evalcol/extension/evalapiextension/internal/customevaluators"
	"github.com/evalcol/evalcol/internal/engine"
	"github.com/evalcol/evalcol/internal/judge"
	"github.com/evalcol/evalcol/internal/spanconv"
	"github.com/evalcol/evalcol/internal/tenant"
	"github.com/evalcol/evalcol/internal/trajectory"
	"github.com/evalcol/evalcol/internal/warehouse"
)

// Evaluators resolves a project's custom evaluators
// (customevaluators.API).
type Evaluators interface {
	Resolve(ctx context.Context, t tenant.Tenant, ref string) (customevaluators.Version, error)
}

// Judge calls a judge (judge.Client, or its metered wrapper).
type Judge interface {
	Run(ctx context.Context, spec judge.Spec, input map[string]any) (judge.Result, error)
}

// Options configure a Worker. Zero fields take the defaults.
type Options struct {
	Store      Store
	Evaluators Evaluators
	Judge      Judge
	// Holder names this collector in leases.
	Holder string
	// Workers bounds the items judged at once (default 4).
	Workers int
	// Lease is how long a claimed item stays this collector's (default
	// 2m).
	Lease time.Duration
	// MaxAttempts bounds the retried failures of an item (default 5).
	MaxAttempts int
	// SpanWait is how long an item waits for its span to be stored
	// (default 2m).
	SpanWait time.Duration
	// Poll is the rest between scans of an idle queue (default 1s).
	Poll time.Duration
	// RetryBase is the first retry's wait, doubled with each attempt up
	// to 5m (default 2s).
	RetryBase time.Duration
	// Budget caps each environment's daily calls and tokens.
	Budget Budget
	// GroundTruthAttribute and MaxTextBytes shape the inputs taken from
	// the span (see engine.SpanInput).
	GroundTruthAttribute string
	MaxTextBytes         int
	Logger               *zap.Logger
	// Now is the clock (default time.Now).
	Now func() time.Time
}

// Worker judges the queued work of every environment.
type Worker struct {
	opts Options
	wake chan struct{}
}

// NewWorker returns a worker.
func NewWorker(opts Options) *Worker {
	if opts.Workers <= 0 {
		opts.Workers = 4
	}
	if opts.Lease <= 0 {
		opts.Lease = 2 * time.Minute
	}
	if opts.MaxAttempts <= 0 {
		opts.MaxAttempts = 5
	}
	if opts.SpanWait <= 0 {
		opts.SpanWait = 2 * time.Minute
	}
	if opts.Poll <= 0 {
		opts.Poll = time.Second
	}
	if opts.RetryBase <= 0 {
		opts.RetryBase = 2 * time.Second
	}
	if opts.MaxTextBytes <= 0 {
		opts.MaxTextBytes = 64 << 10
	}
	if opts.GroundTruthAttribute == "" {
		opts.GroundTruthAttribute = engine.DefaultGroundTruth
	}
	if opts.Logger == nil {
		opts.Logger = zap.NewNop()
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	return &Worker{opts: opts, wake: make(chan struct{}, 1)}
}

// Wake makes an idle worker scan the queue now (new work was queued).
func (w *Worker) Wake() {
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

// Run works the queue until ctx ends; items in flight then finish their
// current step (their lease lets another collector take them over).
func (w *Worker) Run(ctx context.Context) {
	slots := make(chan struct{}, w.opts.Workers)
	var wg sync.WaitGroup
	defer wg.Wait()
	for {
		n, err := w.scan(ctx, slots, &wg)
		if err != nil && ctx.Err() == nil {
			w.opts.Logger.Warn("judge queue: scan failed; retrying", zap.Error(err))
		}
		if n > 0 {
			continue // more may be due
		}
		t := time.NewTimer(w.opts.Poll)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-w.wake:
			t.Stop()
		case <-t.C:
		}
	}
}

// scan claims due items in queue order while a slot is free, each judged
// on its own goroutine; it returns how many it claimed.
func (w *Worker) scan(ctx context.Context, slots chan struct{}, wg *sync.WaitGroup) (int, error) {
	claimed := 0
	q := warehouse.DocumentQuery{Kind: Kind, AllScopes: true}
	for {
		docs, err := w.opts.Store.ListDocuments(ctx, q)
		if err != nil {
			return claimed, fmt.Errorf("list: %w", err)
		}
		for _, d := range docs {
			var it Item
			if err := json.Unmarshal(d.Body, &it); err != nil {
				w.opts.Logger.Error("judge queue: an item is not readable; dropped", zap.String("id", d.ID), zap.Error(err))
				_ = w.opts.Store.DeleteDocument(ctx, Kind, d.Scope, d.ID)
				continue
			}
			now := w.opts.Now()
			if now.Before(it.NotBefore) || (it.Holder != "" && now.Before(it.LeaseUntil)) {
				continue
			}
			select {
			case slots <- struct{}{}:
			case <-ctx.Done():
				return claimed, ctx.Err()
			}
			it.Holder, it.LeaseUntil = w.opts.Holder, now.Add(w.opts.Lease)
			d, err := w.save(ctx, d, &it)
			if err != nil {
				<-slots
				if errors.Is(err, warehouse.ErrConflict) || errors.Is(err, warehouse.ErrNotFound) {
					continue // another collector took it
				}
				return claimed, err
			}
			claimed++
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer func() { <-slots }()
				w.work(ctx, d, it)
			}()
		}
		if len(docs) < warehouse.MaxDocumentPage {
			return claimed, nil
		}
		q.AfterSeq = docs[len(docs)-1].Seq
	}
}

// save writes it into d (compare-and-set) and returns the new document.
func (w *Worker) save(ctx context.Context, d warehouse.Document, it *Item) (warehouse.Document, error) {
	body, err := json.Marshal(it)
	if err != nil {
		return d, fmt.Errorf("encode: %w", err)
	}
	d.Body, d.Version = body, d.Version+1
	if err := w.opts.Store.UpdateDocument(ctx, d); err != nil {
		return d, err
	}
	return d, nil
}

// work takes one claimed item as far as it goes: decided, appended and
// deleted, or put back for later.
func (w *Worker) work(ctx context.Context, d warehouse.Document, it Item) {
	log := w.opts.Logger.With(zap.String("evaluator", it.Slug), zap.String("environment", it.Environment),
		zap.String("trace_id", it.TraceID), zap.String("span_id", it.SpanID))
	if it.Outcome == nil {
		out, retry, err := w.judge(ctx, &it)
		if ctx.Err() != nil {
			return // shutting down: the lease runs out, the item stays
		}
		if retry > 0 {
			it.Holder, it.LeaseUntil, it.NotBefore = "", time.Time{}, w.opts.Now().Add(retry)
			if err != nil {
				it.LastError = err.Error()
				log.Debug("judge queue: retrying later", zap.Duration("in", retry), zap.Int("attempts", it.Attempts), zap.Error(err))
			}
			if _, err := w.save(ctx, d, &it); err != nil {
				log.Warn("judge queue: could not put an item back; its lease will free it", zap.Error(err))
			}
			return
		}
		it.Outcome = out
		nd, err := w.save(ctx, d, &it)
		if err != nil {
			// Lost the lease (another collector took the item over) or
			// the warehouse failed: the item stays for whoever holds it.
			log.Warn("judge queue: could not keep a judgement", zap.Error(err))
			return
		}
		d = nd
	}
	if err := w.append(ctx, &it); err != nil {
		log.Warn("judge queue: could not store a judgement on its span; retrying later", zap.Error(err))
		return // the lease runs out; the kept outcome is appended then
	}
	if err := w.opts.Store.DeleteDocument(ctx, Kind, d.Scope, d.ID); err != nil && !errors.Is(err, warehouse.ErrNotFound) {
		log.Warn("judge queue: a done item stays queued; it will be appended again (no new call)", zap.Error(err))
	}
}

// judge decides an item: an outcome, or a wait before the next try.
func (w *Worker) judge(ctx context.Context, it *Item) (*Outcome, time.Duration, error) {
	now := w.opts.Now()
	var v customevaluators.Version
	if it.Custom {
		var err error
		v, err = w.opts.Evaluators.Resolve(ctx, it.tenant(), it.Slug)
		if errors.Is(err, warehouse.ErrNotFound) {
			return &Outcome{ErrorType: ErrorNotFound, At: now, Error: fmt.Sprintf("no custom evaluator %q in organization %q, project %q", it.Slug, it.OrganizationID, it.ProjectID)}, 0, nil
		}
		if err != nil {
			return nil, w.backoff(it, 0), err
		}
	} else if _, ok := evaluators.Lookup(it.Slug); !ok {
		return &Outcome{ErrorType: ErrorNotFound, At: now, Error: fmt.Sprintf("no prebuilt evaluator %q", it.Slug)}, 0, nil
	}
	var (
		inputs map[string]string // the trace's, or nil: the span's by name
		span   warehouse.Span
	)
	if it.Trace {
		tr, wait, out, err := w.trace(ctx, it, now)
		if out != nil || wait > 0 || err != nil {
			return out, wait, err
		}
		span, inputs = tr.Root, tr.Inputs()
		it.TargetSpanID, it.TargetStartMs = tr.Root.SpanID, tr.Root.Timestamp
	} else {
		var found bool
		var err error
		span, found, err = w.span(ctx, it)
		if err != nil {
			return nil, w.backoff(it, 0), err
		}
		if !found {
			if now.Sub(it.EnqueuedAt) < w.opts.SpanWait {
				return nil, min(w.opts.RetryBase, w.opts.SpanWait/4+1), nil // the exporter writes it after the queue has it
			}
			return &Outcome{ErrorType: ErrorNotFound, At: now, Error: fmt.Sprintf("span not stored within %s of its queueing", w.opts.SpanWait)}, 0, nil
		}
	}
	if !it.Custom && it.JudgeProvider == "" {
		return w.runPrebuilt(ctx, it, w.input(span, it, inputs, prebuiltFields(it.Slug))), 0, nil
	}
	if reason, over, err := w.opts.Budget.exceeded(ctx, w.opts.Store, it.Environment, now); err != nil {
		return nil, w.backoff(it, 0), err
	} else if over {
		return &Outcome{ErrorType: ErrorSkipped, At: now, Error: reason, EvaluatorID: v.ID, Version: v.Version}, 0, nil
	}
	if !it.Custom {
		def, _ := evaluators.Lookup(it.Slug)
		input := w.input(span, it, inputs, prebuiltFields(it.Slug))
		return w.runJudge(ctx, it, PrebuiltSpec(def, it.JudgeProvider, it.JudgeModel, input), input, Outcome{})
	}
	return w.runJudge(ctx, it, v.Definition.Spec(), w.input(span, it, inputs, v.Definition.InputSchema),
		Outcome{EvaluatorID: v.ID, Version: v.Version})
}

// runJudge calls the judge of spec on input; out names the custom
// evaluator's version (zero for a prebuilt evaluator run by a judge, whose
// verdict and score its catalogue entry decides from the answer).
func (w *Worker) runJudge(ctx context.Context, it *Item, spec judge.Spec, input map[string]any, out Outcome) (*Outcome, time.Duration, error) {
	res, err := w.opts.Judge.Run(ctx, spec, input)
	out.Model, out.Provider, out.At = spec.Model, spec.Provider, w.opts.Now()
	var usage judge.Usage
	if err == nil {
		usage = res.Usage
	} else if je, ok := judge.AsError(err); ok {
		usage = je.Usage
	}
	if usage.InputTokens+usage.OutputTokens > 0 || err == nil {
		if berr := w.opts.Budget.spend(ctx, w.opts.Store, it.Environment, it.Slug, spec.Model, usage, out.At); berr != nil {
			w.opts.Logger.Warn("judge queue: could not count a call against the budget", zap.Error(berr))
		}
	}
	out.InputTokens, out.OutputTokens = usage.InputTokens, usage.OutputTokens
	if err != nil {
		je, _ := judge.AsError(err)
		if je != nil && retryable(je.Kind) && it.Attempts+1 < w.opts.MaxAttempts {
			it.Attempts++
			return nil, w.backoff(it, je.RetryAfter), err
		}
		out.ErrorType, out.Error = ErrorJudge, err.Error()
		if je != nil && je.Kind == judge.KindInput {
			out.ErrorType = ErrorInput
		}
		return &out, 0, nil
	}
	out.Output = res.Output
	if def, ok := evaluators.Lookup(it.Slug); ok && !it.Custom {
		var value float64
		out.Verdict, value, out.ScoreLabel = PrebuiltVerdict(def, res.Output)
		out.Score = &value
		return &out, 0, nil
	}
	out.Score = res.Verdict.Score
	if res.Verdict.Passed != nil {
		out.Verdict = map[bool]string{true: warehouse.VerdictPass, false: warehouse.VerdictFail}[*res.Verdict.Passed]
	}
	return &out, 0, nil
}

// prebuiltTimeout bounds one prebuilt evaluation of a trace.
const prebuiltTimeout = 30 * time.Second

// prebuiltFields are the inputs of a prebuilt evaluator, as schema fields.
func prebuiltFields(slug string) []judge.Field {
	def, _ := evaluators.Lookup(slug)
	out := make([]judge.Field, len(def.Inputs))
	for i, f := range def.Inputs {
		out[i] = judge.Field{Name: f.Name, Type: judge.TypeString}
	}
	return out
}

// runPrebuilt runs the item's prebuilt evaluator (trace-level monitors)
// with its config, explaining a failing result.
func (w *Worker) runPrebuilt(ctx context.Context, it *Item, input map[string]any) *Outcome {
	def, _ := evaluators.Lookup(it.Slug)
	out := &Outcome{At: w.opts.Now()}
	req, err := def.NewRequest(input, it.Config)
	if err != nil {
		out.ErrorType, out.Error = ErrorInput, err.Error()
		return out
	}
	rctx, cancel := context.WithTimeout(ctx, prebuiltTimeout)
	defer cancel()
	res, err := def.Run(rctx, req)
	if err != nil {
		out.ErrorType, out.Error = ErrorEvaluator, err.Error()
		if evaluators.KindOf(err) == evaluators.KindInvalidInput {
			out.ErrorType = ErrorInput
		}
		return out
	}
	var value float64
	out.Output = res
	out.Verdict, value, out.ScoreLabel = PrebuiltVerdict(def, res)
	out.Score = &value
	if out.Verdict == warehouse.VerdictFail {
		out.Explanation = def.Explain(rctx, req, res)
	}
	return out
}

// trace reads the item's trace: its trajectory once it is complete (no new
// span for the quiet period), else how long to wait, or an outcome when
// it is gone.
func (w *Worker) trace(ctx context.Context, it *Item, now time.Time) (trajectory.Trajectory, time.Duration, *Outcome, error) {
	spans, err := w.traceSpans(ctx, it, now)
	if err != nil {
		return trajectory.Trajectory{}, w.backoff(it, 0), nil, err
	}
	if len(spans) == 0 {
		if now.Sub(it.EnqueuedAt) < w.opts.SpanWait {
			return trajectory.Trajectory{}, min(w.opts.RetryBase, w.opts.SpanWait/4+1), nil, nil
		}
		return trajectory.Trajectory{}, 0, &Outcome{ErrorType: ErrorNotFound, At: now, Error: fmt.Sprintf("no span of the trace stored within %s of its queueing", w.opts.SpanWait)}, nil
	}
	quiet := time.Duration(it.QuietMs) * time.Millisecond
	var latest int64
	for _, s := range spans {
		latest = max(latest, s.Timestamp+s.Duration)
	}
	// Complete when the spans' own clock says nothing happened for the
	// quiet period, or when no span arrived since the last look a quiet
	// period ago (the application's clock may run ahead).
	if now.Sub(time.UnixMilli(latest)) < quiet && it.SeenSpans != len(spans) {
		it.SeenSpans = len(spans)
		return trajectory.Trajectory{}, quiet, nil, nil
	}
	return trajectory.FromSpans(spans), 0, nil, nil
}

// maxTraceSpans bounds the spans of a trace read for its trajectory.
const maxTraceSpans = 2 * warehouse.MaxSpanLimit

// traceSpans reads the item's trace, from an hour before its matching
// span until now.
func (w *Worker) traceSpans(ctx context.Context, it *Item, now time.Time) ([]warehouse.Span, error) {
	q := warehouse.SpanQuery{
		Environments: []string{it.Environment},
		FromMs:       it.StartMs - time.Hour.Milliseconds(), ToMs: now.Add(time.Hour).UnixMilli(),
		Filters: []warehouse.Filter{{Field: "trace_id", Operator: warehouse.OpEquals, Value: it.TraceID}},
		SortBy:  warehouse.SortTimestamp, Limit: warehouse.MaxSpanLimit,
	}
	var out []warehouse.Span
	for len(out) < maxTraceSpans {
		page, err := w.opts.Store.QuerySpans(ctx, q)
		if err != nil {
			return nil, fmt.Errorf("read the trace: %w", err)
		}
		out = append(out, page.Spans...)
		if page.NextCursor == "" {
			break
		}
		q.Cursor = page.NextCursor
	}
	return out, nil
}

// retryable reports whether a judge error may pass on its own.
func retryable(k judge.Kind) bool {
	switch k {
	case judge.KindRateLimited, judge.KindBusy, judge.KindTimeout, judge.KindUpstream:
		return true
	}
	return false
}

// backoff is the wait before an item's next try: what the provider asked
// for, else exponential in its attempts (RetryBase, twice that, ... up to
// 5m), jittered.
func (w *Worker) backoff(it *Item, asked time.Duration) time.Duration {
	d := w.opts.RetryBase << min(max(it.Attempts-1, 0), 8)
	d = min(d, 5*time.Minute)
	d = max(d, asked)
	return d + rand.N(d/4+1)
}

// span reads the item's span.
func (w *Worker) span(ctx context.Context, it *Item) (warehouse.Span, bool, error) {
	page, err := w.opts.Store.QuerySpans(ctx, warehouse.SpanQuery{
		Environments: []string{it.Environment},
		FromMs:       it.StartMs - 1000, ToMs: it.StartMs + 1000,
		Filters: []warehouse.Filter{
			{Field: "trace_id", Operator: warehouse.OpEquals, Value: it.TraceID},
			{Field: "span_id", Operator: warehouse.OpEquals, Value: it.SpanID},
		},
		Limit: 1,
	})
	if err != nil {
		return warehouse.Span{}, false, fmt.Errorf("read the span: %w", err)
	}
	if len(page.Spans) == 0 {
		return warehouse.Span{}, false, nil
	}
	return page.Spans[0], true, nil
}

// input builds an evaluator's input: each field of schema from the
// monitor's input expressions, else from the trace's inputs (trace-level
// work), else from the span by the default mapping; values typed as the
// schema says.
func (w *Worker) input(span warehouse.Span, it *Item, traced map[string]string, schema []judge.Field) map[string]any {
	td := spanconv.ToTraces([]warehouse.Span{span})
	attrs := td.ResourceSpans().At(0).ScopeSpans().At(0).Spans().At(0).Attributes()
	in := make(map[string]any, len(schema))
	for _, f := range schema {
		v, ok := it.Inputs[f.Name]
		if !ok {
			v, ok = traced[f.Name]
		}
		if !ok {
			v = engine.SpanInput(attrs, f.Name, w.opts.GroundTruthAttribute, w.opts.MaxTextBytes)
		}
		if v == "" {
			continue
		}
		in[f.Name] = judge.ParseValue(f.Type, v)
	}
	return in
}

// append stores the item's outcome on its span (a trace's root span for
// trace-level work) as an evaluation of its monitor.
func (w *Worker) append(ctx context.Context, it *Item) error {
	spanID, start := it.SpanID, it.StartMs
	if it.TargetSpanID != "" {
		spanID, start = it.TargetSpanID, it.TargetStartMs
	}
	return w.opts.Store.AppendEvaluations(ctx, it.Environment, []warehouse.SpanEvaluations{{
		TraceID: it.TraceID, SpanID: spanID, Timestamp: start,
		Evaluations: []warehouse.Evaluation{it.Outcome.evaluation(it)},
	}})
}
