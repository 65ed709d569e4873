package setups

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/evalcol/evalcol/internal/engine"
	"github.com/evalcol/evalcol/internal/monitor"
	"github.com/evalcol/evalcol/internal/spanconv"
	"github.com/evalcol/evalcol/internal/warehouse"
)

// Backfill statuses.
const (
	BackfillPending = "pending"
	BackfillRunning = "running"
	BackfillDone    = "done"
	BackfillFailed  = "failed"
)

// BackfillOptions configure the backfill of setups: the evaluation of the
// spans already stored in a setup's window, in the background.
type BackfillOptions struct {
	// Backend names the warehouse backend in errors (default "sqlite").
	Backend string
	// PageSize is the number of spans read and written at a time (default
	// 200).
	PageSize int
	// Pause is the rest between pages, so that ingestion keeps the
	// warehouse and the CPUs (default 20ms).
	Pause time.Duration
	// Workers bounds the evaluations a backfill runs at once (default half
	// of GOMAXPROCS, at least 1); they do not take the evaluator
	// processor's workers.
	Workers int
	// Timeout bounds one evaluation (default 2s, the processor's default).
	Timeout time.Duration
	// MaxTextBytes truncates longer evaluator text inputs (default 64 KiB).
	MaxTextBytes int
	// GroundTruthAttribute is the span attribute read for ground_truth and
	// reference inputs (default gen_ai.evaluation.ground_truth).
	GroundTruthAttribute string
	// Retries is how often a page is retried after a transient warehouse
	// error (default 3), RetryDelay the first wait, doubled each time
	// (default 1s).
	Retries    int
	RetryDelay time.Duration
}

func (o BackfillOptions) withDefaults() BackfillOptions {
	if o.Backend == "" {
		o.Backend = "sqlite"
	}
	if o.PageSize <= 0 {
		o.PageSize = 200
	}
	if o.PageSize > warehouse.MaxSpanLimit {
		o.PageSize = warehouse.MaxSpanLimit
	}
	if o.Pause <= 0 {
		o.Pause = 20 * time.Millisecond
	}
	if o.Workers <= 0 {
		o.Workers = max(1, runtime.GOMAXPROCS(0)/2)
	}
	if o.Timeout <= 0 {
		o.Timeout = 2 * time.Second
	}
	if o.MaxTextBytes <= 0 {
		o.MaxTextBytes = 64 << 10
	}
	if o.GroundTruthAttribute == "" {
		o.GroundTruthAttribute = engine.DefaultGroundTruth
	}
	if o.Retries <= 0 {
		o.Retries = 3
	}
	if o.RetryDelay <= 0 {
		o.RetryDelay = time.Second
	}
	return o
}

// SpanStore is what a backfill reads spans from and writes metric points
// to; the warehouse must also be a warehouse.EvaluationAppender.
type SpanStore interface {
	QuerySpans(ctx context.Context, q warehouse.SpanQuery) (warehouse.SpanPage, error)
	WriteMetricPoints(ctx context.Context, pts []warehouse.MetricPoint) error
}

// backfiller runs the backfills of one Service: one goroutine per pending
// backfill, at most one of them working at a time.
type backfiller struct {
	spans    SpanStore                    // nil when the store has no spans
	appender warehouse.EvaluationAppender // nil when the backend cannot append
	opts     BackfillOptions
	logger   *zap.Logger

	slot chan struct{} // held by the working backfill
	wg   sync.WaitGroup
	mu   sync.Mutex
	busy map[string]bool // setup ids with a goroutine
	// progress of the working backfills, by setup id (under mu).
	progress map[string]BackfillProgress
}

func newBackfiller(store warehouse.SetupStore, opts BackfillOptions, logger *zap.Logger) *backfiller {
	b := &backfiller{opts: opts, logger: logger, slot: make(chan struct{}, 1), busy: map[string]bool{}, progress: map[string]BackfillProgress{}}
	b.spans, _ = store.(SpanStore)
	b.appender, _ = store.(warehouse.EvaluationAppender)
	return b
}

// wait waits for every backfill goroutine to return.
func (b *backfiller) wait() { b.wg.Wait() }

// backfillPending reports whether the setup asks for a backfill that no
// collector has started.
func backfillPending(s warehouse.MonitorSetup) bool {
	return s.Backfill != nil && s.Backfill.Status == BackfillPending
}

func failBackfill(u *warehouse.MonitorSetup, now time.Time, msg string) {
	u.Backfill.Status, u.Backfill.Error, u.Backfill.FinishedAt = BackfillFailed, msg, &now
}

// startBackfill starts the backfill of a setup unless one runs for it in
// this process already.
func (s *Service) startBackfill(setup warehouse.MonitorSetup) {
	b := s.backfill
	b.mu.Lock()
	if b.busy[setup.ID] || s.bg.Err() != nil {
		b.mu.Unlock()
		return
	}
	b.busy[setup.ID] = true
	b.mu.Unlock()
	b.wg.Go(func() {
		defer func() {
			b.mu.Lock()
			delete(b.busy, setup.ID)
			b.mu.Unlock()
		}()
		defer b.endProgress(setup.ID)
		s.runBackfill(s.bg, setup.Environment, setup.ID)
	})
}

// errSuperseded stops a backfill whose setup was changed (a new backfill
// asked for, the setup replaced or deleted) or taken by another collector.
var errSuperseded = errors.New("backfill superseded")

// runBackfill claims the pending backfill of setup id, evaluates the spans
// of its window with the setup's monitor as claimed and records the outcome
// on the setup.
func (s *Service) runBackfill(ctx context.Context, env, id string) {
	b := s.backfill
	log := s.logger.With(zap.String("setup", id))
	if b.spans == nil || b.appender == nil {
		_, err := s.updateBackfill(ctx, env, id, BackfillPending, func(u *warehouse.MonitorSetup) {
			failBackfill(u, s.now(), fmt.Sprintf("backfill is not supported by the %s warehouse", b.opts.Backend))
		})
		if err != nil && !errors.Is(err, errSuperseded) {
			log.Warn("marking the backfill unsupported failed", zap.Error(err))
		}
		return
	}
	select {
	case b.slot <- struct{}{}:
		defer func() { <-b.slot }()
	case <-ctx.Done():
		return
	}
	setup, err := s.updateBackfill(ctx, env, id, BackfillPending, func(u *warehouse.MonitorSetup) {
		u.Backfill.Status, u.Backfill.Scanned, u.Backfill.Evaluated, u.Backfill.Error, u.Backfill.FinishedAt =
			BackfillRunning, 0, 0, "", nil
	})
	if err != nil {
		if !errors.Is(err, errSuperseded) && ctx.Err() == nil {
			log.Warn("claiming the backfill failed; retrying at the next reload", zap.Error(err))
		}
		return
	}
	s.notify() // the status change may have raced this process's reload
	window := *setup.Backfill
	log.Info("backfill started", zap.Int64("from_timestamp_sec", window.FromTimestampSec), zap.Int64("to_timestamp_sec", window.ToTimestampSec))

	// The setup may have changed while this backfill waited for its turn:
	// evaluate with the monitor of the version claimed.
	m, runErr := s.compile(setup)
	if runErr == nil {
		runErr = s.evaluateWindow(ctx, setup, m, log)
	}
	// The outcome is recorded even when the collector is shutting down.
	finish := context.WithoutCancel(ctx)
	finish, cancel := context.WithTimeout(finish, 5*time.Second)
	defer cancel()
	var change func(*warehouse.MonitorSetup)
	switch {
	case runErr == nil:
		change = func(u *warehouse.MonitorSetup) {
			now := s.now()
			u.Backfill.Status, u.Backfill.FinishedAt = BackfillDone, &now
		}
	case errors.Is(runErr, errSuperseded):
		log.Info("backfill superseded by a change of the setup")
		return
	case ctx.Err() != nil:
		// Interrupted by shutdown: back to pending, so that the next
		// collector to load the setup starts it again (writes are
		// idempotent, so evaluating the same spans again is harmless).
		log.Info("backfill interrupted by shutdown; it starts again at the next load")
		change = func(u *warehouse.MonitorSetup) {
			u.Backfill.Status, u.Backfill.Scanned, u.Backfill.Evaluated = BackfillPending, 0, 0
		}
	default:
		log.Warn("backfill failed", zap.Error(runErr))
		change = func(u *warehouse.MonitorSetup) { failBackfill(u, s.now(), runErr.Error()) }
	}
	if _, err := s.updateBackfill(finish, env, id, BackfillRunning, change); err != nil && !errors.Is(err, errSuperseded) {
		log.Warn("recording the backfill outcome failed", zap.Error(err))
	}
	if runErr == nil {
		log.Info("backfill done")
	}
}

// evaluateWindow pages through the setup's spans in the backfill window,
// evaluates them with m and writes the results, recording progress on the
// setup after every page.
func (s *Service) evaluateWindow(ctx context.Context, setup warehouse.MonitorSetup, m *monitor.Monitor, log *zap.Logger) error {
	b := s.backfill
	eng, err := engine.New(engine.Settings{
		Static: []*monitor.Monitor{m}, Workers: b.opts.Workers, Timeout: b.opts.Timeout,
		MaxTextBytes: b.opts.MaxTextBytes, GroundTruthAttribute: b.opts.GroundTruthAttribute, Logger: log,
	})
	if err != nil {
		return fmt.Errorf("evaluation engine: %w", err)
	}
	if s.deferrer != nil {
		eng.SetDeferrer(s.deferrer)
	}
	w := setup.Backfill
	q := warehouse.SpanQuery{
		Environments: []string{setup.Environment},
		FromMs:       w.FromTimestampSec * 1000,
		ToMs:         w.ToTimestampSec*1000 + 999, // the whole second of the request
		Filters:      entityFilters(setup.EntityType, setup.EntityValue),
		Limit:        b.opts.PageSize,
	}
	if q.ToMs < q.FromMs {
		return nil
	}
	orgOf := func(string) string { return setup.OrgID }
	var scanned, evaluated, total int64
	for {
		var page warehouse.SpanPage
		if err := s.retry(ctx, func() error {
			var err error
			page, err = b.spans.QuerySpans(ctx, q)
			return err
		}); err != nil {
			return fmt.Errorf("reading spans: %w", err)
		}
		n, err := s.evaluatePage(ctx, eng, setup, page.Spans, orgOf)
		if err != nil {
			return err
		}
		scanned += int64(len(page.Spans))
		evaluated += n
		if q.Cursor == "" {
			total = page.TotalResults // the first page counts the window
		}
		b.setProgress(setup.ID, scanned, total)
		if n > 0 {
			s.Evaluated(setup.ID)
		}
		if _, err := s.updateBackfill(ctx, setup.Environment, setup.ID, BackfillRunning, func(u *warehouse.MonitorSetup) {
			u.Backfill.Scanned, u.Backfill.Evaluated, u.Backfill.Total = scanned, evaluated, total
			if evaluated > 0 && u.Status == StatusWaitingForSpans {
				u.Status = StatusInProgress
			}
		}); err != nil {
			return err
		}
		if page.NextCursor == "" {
			return nil
		}
		q.Cursor = page.NextCursor
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(b.opts.Pause):
		}
	}
}

// evaluatePage evaluates one page of spans in chunks (so that shutdown
// does not wait for a whole page) and writes the results; it returns the
// number of spans that got an evaluation.
func (s *Service) evaluatePage(ctx context.Context, eng *engine.Processor, setup warehouse.MonitorSetup, spans []warehouse.Span, orgOf spanconv.OrganizationFunc) (int64, error) {
	b := s.backfill
	chunk := max(4*b.opts.Workers, 16)
	var (
		evals  []warehouse.SpanEvaluations
		points []warehouse.MetricPoint
	)
	for len(spans) > 0 {
		if err := ctx.Err(); err != nil {
			return 0, err
		}
		part := spans[:min(chunk, len(spans))]
		spans = spans[len(part):]
		td, err := eng.ProcessTraces(ctx, spanconv.ToTraces(part))
		if err != nil {
			return 0, fmt.Errorf("evaluating spans: %w", err)
		}
		batch := spanconv.Traces(td, spanconv.Options{DefaultEnvironment: setup.Environment, Organization: orgOf})
		for _, sp := range batch.Spans {
			if len(sp.Evaluations) > 0 {
				evals = append(evals, warehouse.SpanEvaluations{TraceID: sp.TraceID, SpanID: sp.SpanID, Timestamp: sp.Timestamp, Evaluations: sp.Evaluations})
			}
		}
		points = append(points, batch.Points...)
	}
	if len(evals) == 0 {
		return 0, nil
	}
	if err := s.retry(ctx, func() error { return b.appender.AppendEvaluations(ctx, setup.Environment, evals) }); err != nil {
		return 0, fmt.Errorf("writing evaluations: %w", err)
	}
	if err := s.retry(ctx, func() error { return b.spans.WriteMetricPoints(ctx, points) }); err != nil {
		return 0, fmt.Errorf("writing metric points: %w", err)
	}
	return int64(len(evals)), nil
}

// retry runs op, again after a transient warehouse error, up to
// opts.Retries more times with doubling waits.
func (s *Service) retry(ctx context.Context, op func() error) error {
	delay := s.backfill.opts.RetryDelay
	for attempt := 0; ; attempt++ {
		err := op()
		if err == nil || !warehouse.IsRetryable(err) || attempt >= s.backfill.opts.Retries || ctx.Err() != nil {
			return err
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(delay):
		}
		delay *= 2
	}
}

// updateBackfill applies change to the stored setup while its backfill has
// status want, compare-and-set: on a conflict it reads the setup again and
// retries. errSuperseded when the setup is gone or its backfill is no
// longer in status want.
func (s *Service) updateBackfill(ctx context.Context, env, id, want string, change func(*warehouse.MonitorSetup)) (warehouse.MonitorSetup, error) {
	for {
		cur, err := s.store.GetSetup(ctx, env, id)
		if errors.Is(err, warehouse.ErrNotFound) {
			return cur, errSuperseded
		}
		if err != nil {
			return cur, fmt.Errorf("reading the setup: %w", err)
		}
		if cur.Backfill == nil || cur.Backfill.Status != want {
			return cur, errSuperseded
		}
		u, err := s.apply(ctx, cur, s.now(), change)
		if errors.Is(err, warehouse.ErrConflict) {
			continue
		}
		if errors.Is(err, warehouse.ErrNotFound) {
			return cur, errSuperseded
		}
		if err != nil {
			return cur, fmt.Errorf("updating the setup: %w", err)
		}
		return u, nil
	}
}

// entityFilters are span query filters that narrow the scan to the
// setup's entity where one filter expresses it exactly; every span is still
// checked with the monitor's condition.
func entityFilters(entityType, entityValue string) []warehouse.Filter {
	eq := func(field string) []warehouse.Filter {
		return []warehouse.Filter{{Field: field, Operator: warehouse.OpEquals, Value: entityValue}}
	}
	switch entityType {
	case monitor.EntityWorkflow:
		return eq(warehouse.PrefixSpanAttribute + "traceloop.workflow.name")
	case monitor.EntityEntity:
		return eq(warehouse.PrefixSpanAttribute + "traceloop.entity.name")
	case monitor.EntitySpan:
		return eq("span_name")
	case monitor.EntityService:
		return eq("service_name")
	default: // agent and model match one of several attributes
		return nil
	}
}
