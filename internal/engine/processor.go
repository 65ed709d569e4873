// Package engine is the evaluation engine, free of collector wiring,
// shared by the evaluator processor and the backfill of auto monitor
// setups: it matches spans to monitors, builds evaluator inputs, runs the
// evaluators in a bounded worker pool with a per-evaluation timeout and
// records every result on its span as a gen_ai.evaluation.result event.
package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/open-telemetry/opentelemetry-collector-contrib/pkg/ottl/contexts/ottlspan"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/otel/metric"
	"go.uber.org/zap"

	"github.com/evalcol/evalcol/evaluators"
	"github.com/evalcol/evalcol/internal/genai"
	"github.com/evalcol/evalcol/internal/monitor"
	"github.com/evalcol/evalcol/internal/monitoringstatus"
	"github.com/evalcol/evalcol/internal/spanconv"
)

const (
	// DefaultGroundTruth is the default span attribute read for the
	// ground_truth and reference inputs.
	DefaultGroundTruth  = genai.AttrGroundTruth
	maxErrorMessageSize = 1024
	// stuckPerWorker * Workers abandoned evaluations may run on before new
	// evaluations are refused.
	stuckPerWorker = 8
)

// The error.type values of failed evaluations.
const (
	ErrorTimeout      = "timeout"
	ErrorPanic        = "panic"
	ErrorInvalidInput = "invalid_input"
	ErrorInternal     = "internal"
)

// Settings configure a Processor.
type Settings struct {
	// Static monitors come from the configuration.
	Static []*monitor.Monitor
	// Workers bounds the evaluations that run at once (default GOMAXPROCS).
	Workers int
	// Timeout bounds one evaluation.
	Timeout time.Duration
	// MaxTextBytes truncates longer text inputs (0 = no limit).
	MaxTextBytes int
	// GroundTruthAttribute is the span attribute read for ground_truth and
	// reference inputs.
	GroundTruthAttribute string
	Logger               *zap.Logger
	MeterProvider        metric.MeterProvider
	// ScopeName is the instrumentation scope of the engine's metrics
	// (default DefaultScopeName).
	ScopeName string
}

// runFunc runs one validated evaluator request.
type runFunc func(ctx context.Context, def *evaluators.Definition, req evaluators.Request) (evaluators.Result, error)

func runDefinition(ctx context.Context, def *evaluators.Definition, req evaluators.Request) (evaluators.Result, error) {
	return def.Run(ctx, req)
}

// explainFunc explains a failing result of a run.
type explainFunc func(ctx context.Context, def *evaluators.Definition, req evaluators.Request, res evaluators.Result) *evaluators.Explanation

// pipelineExplainBudget bounds the extra scorings of one explanation in
// the pipeline (a classifier's occlusion may take up to 120 on demand):
// the rule, the clauses that suffice alone and a few words.
const pipelineExplainBudget = 16

func explainDefinition(ctx context.Context, def *evaluators.Definition, req evaluators.Request, res evaluators.Result) *evaluators.Explanation {
	return def.Explain(evaluators.WithExplainBudget(ctx, pipelineExplainBudget), req, res)
}

// Processor evaluates the spans of trace batches. ProcessTraces may be
// called concurrently; at most Workers evaluations run at once overall.
type Processor struct {
	static      []*monitor.Monitor
	provider    monitor.Provider
	observer    Observer
	workers     int
	turns       *turns        // the workers, oldest request first
	tickets     atomic.Uint64 // request arrival order
	stuck       atomic.Int64  // abandoned evaluations still running
	maxStuck    int
	timeout     time.Duration
	maxText     int
	groundTruth string
	logger      *zap.Logger
	tel         *telemetry
	run         runFunc     // replaced by tests
	explain     explainFunc // nil: no explanations (tests that replace run)
	deferrer    Deferrer    // queues custom evaluators' work (nil: none)
}

// Deferred is the work of a custom evaluator (an LLM judge) on one span:
// too slow to run on the span's way to the warehouse, it is handed to a
// Deferrer, which must keep it before ProcessTraces returns.
type Deferred struct {
	// Environment is the span's (its resource's deployment environment).
	Environment string
	TraceID     pcommon.TraceID
	SpanID      pcommon.SpanID
	// Start is the span's start time.
	Start       time.Time
	MonitorID   string
	MonitorName string
	// Slug names the custom evaluator, resolved in the span's project.
	Slug string
	// Inputs are the values of the monitor's input expressions (cut to
	// the processor's MaxTextBytes); the evaluator's other inputs come
	// from the stored span when the work runs.
	Inputs map[string]string
	// Custom marks a custom evaluator (an LLM judge); else Slug is a
	// prebuilt evaluator's, run with Config (trace-level monitors), or
	// through Judge when set.
	Custom bool
	Config map[string]any
	Judge  *monitor.JudgeRef
	// Trace marks the work of a trace-level monitor: the evaluator runs on
	// the whole trace once no span arrived for QuietPeriod, its result
	// on the root span. SpanID is then the matching span's.
	Trace       bool
	QuietPeriod time.Duration
}

// Deferrer keeps deferred work durably: when Defer returns nil, the work
// survives a crash. Defer of work it already holds (the same span,
// monitor and slug, resent) must keep one copy.
type Deferrer interface {
	Defer(ctx context.Context, work []Deferred) error
}

// SetDeferrer installs the queue of custom evaluators' work. It must be
// called before the first ProcessTraces. Without one, the spans' custom
// evaluations are skipped (and counted as such).
func (p *Processor) SetDeferrer(d Deferrer) { p.deferrer = d }

// New returns a processor.
func New(set Settings) (*Processor, error) {
	if set.Workers <= 0 {
		set.Workers = runtime.GOMAXPROCS(0)
	}
	if set.Timeout <= 0 {
		return nil, errors.New("timeout must be positive")
	}
	if set.Logger == nil {
		set.Logger = zap.NewNop()
	}
	tel, err := newTelemetry(set.MeterProvider, set.ScopeName)
	if err != nil {
		return nil, err
	}
	return &Processor{
		static:      set.Static,
		workers:     set.Workers,
		turns:       newTurns(set.Workers),
		maxStuck:    stuckPerWorker * set.Workers,
		timeout:     set.Timeout,
		maxText:     set.MaxTextBytes,
		groundTruth: set.GroundTruthAttribute,
		logger:      set.Logger,
		tel:         tel,
		run:         runDefinition,
		explain:     explainDefinition,
	}, nil
}

// Close stops reporting the processor's asynchronous metrics; call it when
// the processor is shut down.
func (p *Processor) Close() error { return p.tel.close() }

// SetProvider installs the provider of dynamic monitors. It must be called
// before the first ProcessTraces (the processor's Start). A provider that
// is also an Observer is told about every batch's evaluated spans.
func (p *Processor) SetProvider(pr monitor.Provider) {
	p.provider = pr
	p.observer, _ = pr.(Observer)
}

// Observer follows the spans the processor evaluated (the monitoring
// status): once per batch, the spans with at least one evaluation, their
// environment and outcomes. It must not block.
type Observer interface {
	SpansEvaluated(at time.Time, spans []monitoringstatus.MatchedSpan)
}

// job is one evaluator run on one span.
type job struct {
	span      ptrace.Span
	env       string // the span's environment, when an observer wants it
	mon       *monitor.Monitor
	dynamic   bool
	binding   *monitor.Binding
	req       evaluators.Request
	truncated bool

	res     evaluators.Result
	expl    *evaluators.Explanation
	err     error
	end     time.Time
	dur     time.Duration
	invalid bool // the request failed validation; the evaluator never runs
}

// ProcessTraces evaluates the spans of td that match a monitor and records
// the results on them. It never drops or reorders spans. The static
// monitors are checked on every span; of the provider's, only the
// candidates its index finds for the span. The work of custom evaluators
// goes to the Deferrer; ProcessTraces fails only when the Deferrer cannot
// keep it (the sender should then retry the whole request).
func (p *Processor) ProcessTraces(ctx context.Context, td ptrace.Traces) (ptrace.Traces, error) {
	var dyn *monitor.Index
	if p.provider != nil {
		dyn = p.provider.Index()
	}
	if len(p.static) == 0 && dyn.Len() == 0 {
		return td, nil
	}
	start := time.Now()
	var (
		jobs       []job
		deferred   []Deferred
		hint       = p.jobsHint(td)
		candidates []int
		configs    checkedConfigs
		matched    = make([]matchedMonitor, 0, len(p.static)+4)
	)
	rss := td.ResourceSpans()
	for i := 0; i < rss.Len(); i++ {
		rs := rss.At(i)
		first, firstDeferred := len(jobs), len(deferred)
		rc := dyn.Resource(rs.Resource().Attributes())
		sss := rs.ScopeSpans()
		for j := 0; j < sss.Len(); j++ {
			ss := sss.At(j)
			spans := ss.Spans()
			for k := 0; k < spans.Len(); k++ {
				span := spans.At(k)
				candidates = rc.Candidates(span, ss.Scope(), candidates)
				if len(p.static) == 0 && len(candidates) == 0 {
					continue
				}
				jobs, deferred, matched = p.spanJobs(ctx, jobs, deferred, hint, &configs, matched, dyn, candidates, rs, ss, span)
			}
		}
		if len(deferred) > firstDeferred {
			env := spanconv.Environment(rs.Resource().Attributes(), "")
			for i := firstDeferred; i < len(deferred); i++ {
				deferred[i].Environment = env
			}
		}
		if p.observer != nil && len(jobs) > first {
			env := spanconv.Environment(rs.Resource().Attributes(), "")
			for i := first; i < len(jobs); i++ {
				jobs[i].env = env
			}
		}
	}
	if len(deferred) > 0 {
		if err := p.deferrer.Defer(ctx, deferred); err != nil {
			p.logger.Warn("custom evaluators' work could not be queued; the request fails so that its sender retries", zap.Int("work", len(deferred)), zap.Error(err))
			return td, fmt.Errorf("queue the work of custom evaluators: %w", err)
		}
	}
	if len(jobs) == 0 {
		return td, nil
	}
	p.runJobs(ctx, jobs)
	p.record(ctx, jobs)
	p.observe(start, jobs)
	return td, nil
}

// jobsHint is the number of evaluations td needs when every span matches
// every static monitor (the usual case of a monitor without condition),
// at most 4096: the jobs slice is allocated once, at the first span that
// may match, instead of copied as it grows.
func (p *Processor) jobsHint(td ptrace.Traces) int {
	per := 0
	for _, m := range p.static {
		per += len(m.Evaluators)
	}
	return max(min(per*td.SpanCount(), 4096), 1)
}

// observe tells the observer about the evaluated spans: the jobs of one
// span are consecutive.
func (p *Processor) observe(at time.Time, jobs []job) {
	if p.observer == nil {
		return
	}
	var spans []monitoringstatus.MatchedSpan
	for i := range jobs {
		j := &jobs[i]
		tid, sid := j.span.TraceID(), j.span.SpanID()
		if n := len(spans); n == 0 || spans[n-1].TraceID != tid || spans[n-1].SpanID != sid || spans[n-1].Environment != j.env {
			spans = append(spans, monitoringstatus.MatchedSpan{Environment: j.env, TraceID: tid, SpanID: sid})
		}
		s := &spans[len(spans)-1]
		if j.err == nil {
			s.OK++
		} else {
			s.Failed++
			s.Error = errorType(j.err)
		}
	}
	p.observer.SpansEvaluated(at, spans)
}

// matchedMonitor is a monitor that matched a span.
type matchedMonitor struct {
	m       *monitor.Monitor
	dynamic bool
}

// checkedConfigs are the bindings' configs checked once per batch (see
// evaluators.Definition.CheckConfig), shared by the batch's requests.
type checkedConfigs []checkedConfig

type checkedConfig struct {
	binding *monitor.Binding
	config  map[string]any
	err     error
}

func (c *checkedConfigs) get(b *monitor.Binding) (map[string]any, error) {
	for i := range *c {
		if e := &(*c)[i]; e.binding == b {
			return e.config, e.err
		}
	}
	config, err := b.Def.CheckConfig(b.Config)
	*c = append(*c, checkedConfig{binding: b, config: config, err: err})
	return config, err
}

// spanJobs appends the evaluations one span needs: of the static monitors
// and of the candidates (positions in dyn) that match it, in that order;
// custom evaluators' work goes to deferred instead. matched is scratch
// space, returned for reuse. The first span that matches allocates jobs
// with room for hint.
func (p *Processor) spanJobs(ctx context.Context, jobs []job, deferred []Deferred, hint int, configs *checkedConfigs, matched []matchedMonitor, dyn *monitor.Index, candidates []int,
	rs ptrace.ResourceSpans, ss ptrace.ScopeSpans, span ptrace.Span,
) ([]job, []Deferred, []matchedMonitor) {
	traceID := span.TraceID()
	tctx := ottlspan.NewTransformContext(rs, ss, span)
	defer tctx.Close()
	matched = matched[:0]
	for _, m := range p.static {
		if monitor.Sampled(traceID, m.SampleRate) && m.MatchesContext(ctx, tctx) {
			matched = append(matched, matchedMonitor{m: m})
		}
	}
	all := dyn.Monitors()
	for _, i := range candidates {
		if m := all[i]; monitor.Sampled(traceID, m.SampleRate) && m.MatchesContext(ctx, tctx) {
			matched = append(matched, matchedMonitor{m: m, dynamic: true})
		}
	}
	if len(matched) == 0 {
		return jobs, deferred, matched
	}
	if jobs == nil {
		jobs = make([]job, 0, hint)
	}
	attrs := span.Attributes()
	in := inputSource{attrs: attrs, groundTruth: p.groundTruth, maxText: p.maxText, content: contentOnce{attrs: attrs}}
	for _, mm := range matched {
		m := mm.m
		evaluations := len(jobs)
		for b := range m.Evaluators {
			binding := &m.Evaluators[b]
			if m.Trace {
				deferred = p.deferTrace(ctx, deferred, tctx, m, binding, span)
				continue
			}
			if binding.Custom || binding.Judge != nil {
				deferred = p.deferSpan(ctx, deferred, tctx, &in, m, binding, span)
				continue
			}
			input, truncated, missing := in.build(ctx, tctx, m, binding.Def)
			if missing != "" {
				p.tel.skip(ctx, binding.Slug)
				if ce := p.logger.Check(zap.DebugLevel, "span lacks an evaluator input; skipped"); ce != nil {
					ce.Write(zap.String("monitor", m.ID), zap.String("evaluator", binding.Slug), zap.String("input", missing),
						zap.Stringer("trace_id", traceID), zap.Stringer("span_id", span.SpanID()))
				}
				continue
			}
			j := job{span: span, mon: m, dynamic: mm.dynamic, binding: binding, truncated: truncated}
			j.req.Input = input
			j.req.Config, j.err = configs.get(binding)
			if j.err != nil {
				j.invalid, j.end = true, time.Now()
			}
			jobs = append(jobs, j)
		}
		p.tel.monitorSpan(m.ID, mm.dynamic, len(jobs) > evaluations)
	}
	return jobs, deferred, matched
}

// deferSpan appends the work of a custom evaluator on span, with the
// values of the monitor's input expressions. It is skipped without a
// Deferrer, and on a span with neither a prompt nor a completion when the
// monitor has no input expressions (a workflow's or a task's span, which
// a judge of LLM answers has nothing to read in), as the prebuilt
// evaluators skip a span that lacks their inputs.
func (p *Processor) deferSpan(ctx context.Context, deferred []Deferred, tctx *ottlspan.TransformContext, in *inputSource, m *monitor.Monitor, b *monitor.Binding, span ptrace.Span) []Deferred {
	if p.deferrer == nil {
		p.tel.skip(ctx, b.Slug)
		p.logger.Debug("no queue for custom evaluators; skipped", zap.String("monitor", m.ID), zap.String("evaluator", b.Slug))
		return deferred
	}
	if len(m.Inputs) == 0 {
		if c := in.content.get(); c.LastUserPrompt() == "" && c.LastCompletion() == "" {
			p.tel.skip(ctx, b.Slug)
			return deferred
		}
	}
	return append(deferred, p.deferred(ctx, tctx, m, b, span))
}

// deferTrace appends the work of an evaluator of a trace-level monitor on
// span's trace (skipped without a Deferrer).
func (p *Processor) deferTrace(ctx context.Context, deferred []Deferred, tctx *ottlspan.TransformContext, m *monitor.Monitor, b *monitor.Binding, span ptrace.Span) []Deferred {
	if p.deferrer == nil {
		p.tel.skip(ctx, b.Slug)
		p.logger.Debug("no queue for trace-level monitors; skipped", zap.String("monitor", m.ID), zap.String("evaluator", b.Slug))
		return deferred
	}
	for i := range deferred {
		if d := &deferred[i]; d.Trace && d.TraceID == span.TraceID() && d.MonitorID == m.ID && d.Slug == b.Slug {
			return deferred // the trace is queued once per batch
		}
	}
	d := p.deferred(ctx, tctx, m, b, span)
	d.Trace, d.QuietPeriod = true, m.QuietPeriod
	return append(deferred, d)
}

// deferred is the work of binding b of monitor m on span, with the values
// of the monitor's input expressions.
func (p *Processor) deferred(ctx context.Context, tctx *ottlspan.TransformContext, m *monitor.Monitor, b *monitor.Binding, span ptrace.Span) Deferred {
	d := Deferred{TraceID: span.TraceID(), SpanID: span.SpanID(), Start: span.StartTimestamp().AsTime(),
		MonitorID: m.ID, MonitorName: m.Name, Slug: b.Slug, Custom: b.Custom, Config: b.Config, Judge: b.Judge}
	for name, e := range m.Inputs {
		v, _, err := e.EvalString(ctx, tctx)
		if err != nil || v == "" {
			continue
		}
		if d.Inputs == nil {
			d.Inputs = make(map[string]string, len(m.Inputs))
		}
		d.Inputs[name], _ = truncateUTF8(v, p.maxText)
	}
	return d
}

// runJobs runs the jobs on at most p.workers goroutines of this batch, each
// evaluation holding one of the processor's p.workers slots. The jobs run
// evaluator by evaluator (see evaluationOrder); their results stay in
// job order.
func (p *Processor) runJobs(ctx context.Context, jobs []job) {
	ctx = context.WithoutCancel(ctx) // evaluations are bounded by p.timeout
	// The evaluators of one batch share the normal forms of its texts
	// (a completion checked for toxicity, sexism and profanity is
	// normalised once).
	ctx = evaluators.WithTextCache(ctx)
	ticket := p.tickets.Add(1)     // earlier requests get the workers first
	order := evaluationOrder(jobs) // nil: job order
	var next atomic.Int64
	work := func() {
		held := false // a worker, kept from one job to the next
		defer func() {
			if held {
				p.turns.release()
			}
		}()
		var r *runner // this worker's evaluations run on it, one after the other
		defer func() { r.stop() }()
		var deadline *time.Timer // this worker's, reset for each evaluation
		defer func() {
			if deadline != nil {
				deadline.Stop()
			}
		}()
		for {
			i := int(next.Add(1) - 1)
			if i >= len(jobs) {
				return
			}
			if order != nil {
				i = order[i]
			}
			if jobs[i].invalid {
				continue
			}
			if held {
				p.turns.yield(ticket)
			} else {
				p.turns.acquire(ticket)
				held = true
			}
			p.evaluate(ctx, &jobs[i], &r, &deadline)
		}
	}
	n := min(p.workers, len(jobs))
	var wg sync.WaitGroup
	for range n - 1 {
		wg.Go(work)
	}
	work()
	wg.Wait()
	// The texts' buffers go to the next batch, unless an evaluation
	// abandoned at its deadline may still read them.
	for i := range jobs {
		if jobs[i].err == errTimeout {
			return
		}
	}
	evaluators.ReleaseTextCache(ctx)
}

// evaluationOrder returns the indexes of jobs grouped by evaluator, the
// evaluators in order of first appearance and each one's jobs in span
// order: running all the spans' toxicity checks, then all their PII
// checks and so on keeps each evaluator's tables (model weights,
// lexicons, gazetteers) in the CPU caches, where span by span the five
// evaluators' tables evict each other (a quarter less CPU per span with
// the load test's five evaluators). It returns nil when the jobs are
// grouped already (a batch of one span): they run in job order.
func evaluationOrder(jobs []job) []int {
	var defs []*evaluators.Definition // a batch has a few distinct evaluators
	grouped := true
	for i := range jobs {
		d := jobs[i].binding.Def
		if len(defs) > 0 && defs[len(defs)-1] == d {
			continue
		}
		if slices.Contains(defs, d) {
			grouped = false
			break
		}
		defs = append(defs, d)
	}
	if grouped {
		return nil
	}
	group := make([]int, len(jobs))
	for i := range jobs {
		d := jobs[i].binding.Def
		g := slices.Index(defs, d)
		if g < 0 {
			g = len(defs)
			defs = append(defs, d)
		}
		group[i] = g
	}
	// Counting sort by group, stable.
	start := make([]int, len(defs)+1)
	for _, g := range group {
		start[g+1]++
	}
	for g := range defs {
		start[g+1] += start[g]
	}
	order := make([]int, len(jobs))
	for i, g := range group {
		order[start[g]] = i
		start[g]++
	}
	return order
}

type outcome struct {
	res  evaluators.Result
	expl *evaluators.Explanation
	err  error
}

// panicError is a panic recovered from an evaluator.
type panicError struct{ value any }

func (e panicError) Error() string { return fmt.Sprintf("evaluator panicked: %v", e.value) }

var (
	errTimeout    = errors.New("evaluation timed out")
	errOverloaded = errors.New("evaluation not started")
)

// States of one evaluation's goroutine.
const (
	stateRunning int32 = iota
	stateFinished
	stateAbandoned
)

// runner is a goroutine that runs one worker's evaluations, one after the
// other, for the length of a batch: an evaluator runs off the worker's
// goroutine, so that one ignoring its context cannot hold the batch past
// the deadline, without a goroutine (and its stack growth), a channel and
// a closure per evaluation. A runner abandoned at a deadline ends when its
// evaluation returns; the worker starts a new one.
type runner struct {
	p     *Processor
	in    chan runRequest // buffered: the worker does not wait for the runner to take it
	out   chan outcome    // buffered: the runner never waits for the worker
	state atomic.Int32    // of the current evaluation
}

type runRequest struct {
	ctx context.Context
	j   *job
}

func (p *Processor) newRunner() *runner {
	r := &runner{p: p, in: make(chan runRequest, 1), out: make(chan outcome, 1)}
	go r.loop()
	return r
}

func (r *runner) loop() {
	for req := range r.in {
		o := r.run(req)
		if !r.state.CompareAndSwap(stateRunning, stateFinished) {
			r.p.stuck.Add(-1) // abandoned earlier; no longer stuck
			return
		}
		r.out <- o
	}
}

// run runs one evaluation, a panic recovered into its outcome.
func (r *runner) run(req runRequest) (o outcome) {
	defer func() {
		if v := recover(); v != nil {
			o = outcome{err: panicError{v}}
		}
	}()
	def := req.j.binding.Def
	res, err := r.p.run(req.ctx, def, req.j.req)
	if err != nil || res == nil {
		return outcome{res: res, err: err}
	}
	// Only failures are explained in the pipeline: an explanation costs up
	// to a second evaluation, and the passes are most of the traffic.
	var expl *evaluators.Explanation
	if r.p.explain != nil && !def.Pass(res) {
		expl = r.p.explain(req.ctx, def, req.j.req, res)
	}
	return outcome{res: res, expl: expl}
}

// stop ends an idle runner (nil: none).
func (r *runner) stop() {
	if r != nil {
		close(r.in)
	}
}

// evaluate runs one job with the timeout on the worker's runner *rp
// (started when nil), timed by the worker's timer *tp (made when nil). At
// the deadline the evaluation's context expires and the runner is
// abandoned (its late result is discarded) and counted as stuck until its
// evaluation returns; *rp becomes nil. While maxStuck evaluations are
// stuck, new ones fail at once instead of piling up.
func (p *Processor) evaluate(ctx context.Context, j *job, rp **runner, tp **time.Timer) {
	start := time.Now()
	defer func() {
		j.end = time.Now()
		j.dur = j.end.Sub(start)
	}()
	if n := p.stuck.Load(); n >= int64(p.maxStuck) {
		j.err = fmt.Errorf("%w: %d evaluations are still running past their timeout", errOverloaded, n)
		return
	}
	if *rp == nil {
		*rp = p.newRunner()
	}
	r := *rp
	ectx := &evalContext{parent: ctx, deadline: start.Add(p.timeout)}
	t := *tp
	if t == nil {
		t = time.NewTimer(p.timeout)
		*tp = t
	} else {
		t.Reset(p.timeout)
	}
	r.state.Store(stateRunning)
	r.in <- runRequest{ctx: ectx, j: j}
	var o outcome
	select {
	case o = <-r.out:
		t.Stop()
	case <-t.C:
		ectx.expire()
		if r.state.CompareAndSwap(stateRunning, stateAbandoned) {
			p.stuck.Add(1)
			j.err = errTimeout
			*rp = nil
			return
		}
		o = <-r.out // it finished just now; its outcome is (being) sent
	}
	j.res, j.expl, j.err = o.res, o.expl, o.err
	if j.err == nil && j.res == nil {
		j.err = errors.New("evaluator returned no result")
	}
}

// evalContext is the context of one evaluation: the batch's values, a
// deadline, expired by the worker when its timer fires (see evaluate).
// It is context.WithTimeout without a timer of its own per evaluation:
// the worker's timer, reset for each, times them all. Its parent never
// ends (the batch's context is detached from the request's).
type evalContext struct {
	parent   context.Context
	deadline time.Time
	mu       sync.Mutex
	done     chan struct{} // made by the first Done
	err      error
}

func (c *evalContext) Deadline() (time.Time, bool) { return c.deadline, true }

func (c *evalContext) Value(key any) any { return c.parent.Value(key) }

func (c *evalContext) Done() <-chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.done == nil {
		c.done = make(chan struct{})
		if c.err != nil {
			close(c.done)
		}
	}
	return c.done
}

func (c *evalContext) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// expire ends the context at its deadline.
func (c *evalContext) expire() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err == nil {
		c.err = context.DeadlineExceeded
		if c.done != nil {
			close(c.done)
		}
	}
}

// record appends each job's event to its span, in job order, updates the
// telemetry and notifies the provider of the dynamic monitors that ran.
func (p *Processor) record(ctx context.Context, jobs []job) {
	var notified map[string]bool
	for i := range jobs {
		j := &jobs[i]
		ev := j.span.Events().AppendEmpty()
		ev.SetName(genai.EvaluationEvent)
		ev.SetTimestamp(pcommon.NewTimestampFromTime(j.end))
		attrs := ev.Attributes()
		attrs.EnsureCapacity(eventAttributes(j))
		attrs.PutStr(genai.AttrEvaluationName, j.binding.Slug)
		attrs.PutStr(genai.AttrMonitorID, j.mon.ID)
		if j.truncated {
			attrs.PutBool(genai.AttrTruncated, true)
		}
		outcome := "ok"
		if j.err != nil {
			outcome = errorType(j.err)
			attrs.PutStr(genai.AttrErrorType, outcome)
			msg := errorMessage(j.err)
			if outcome == ErrorTimeout && !errors.Is(j.err, errOverloaded) {
				msg = fmt.Sprintf("evaluation timed out after %s", p.timeout)
			}
			attrs.PutStr(genai.AttrEvaluationErrorMessage, msg)
			p.logger.Debug("evaluation failed", zap.String("monitor", j.mon.ID), zap.String("evaluator", j.binding.Slug),
				zap.String("error.type", outcome), zap.Error(j.err))
		} else {
			putResult(attrs, j.binding.Def, j.res)
			putExplanation(attrs, j.expl)
		}
		attrs.PutStr(genai.AttrEvaluationVerdict, string(verdictOf(j)))
		p.tel.evaluated(ctx, j.binding.Slug, outcome, j.dur, !j.invalid)
		if j.dynamic && p.provider != nil && !notified[j.mon.ID] {
			if notified == nil {
				notified = make(map[string]bool)
			}
			notified[j.mon.ID] = true
			p.provider.Evaluated(j.mon.ID)
		}
	}
}

// eventAttributes is the number of attributes record puts on the event
// of j (at most: a score label or an output may be absent).
func eventAttributes(j *job) int {
	n := 3 // evaluation name, monitor id, verdict
	if j.truncated {
		n++
	}
	if j.err != nil {
		return n + 2 // error type and message
	}
	n += 2 + len(j.binding.Def.Outputs) // score value and label, outputs
	if j.expl != nil {
		n += 2 // summary and details
	}
	return n
}

// verdictOf decides the verdict of a job's result, once, for every reader.
func verdictOf(j *job) evaluators.Verdict {
	if j.err != nil {
		return evaluators.VerdictError
	}
	if j.binding.Def.Pass(j.res) {
		return evaluators.VerdictPass
	}
	return evaluators.VerdictFail
}

// putExplanation records an explanation (nil: none): its summary as
// gen_ai.evaluation.explanation, the whole of it as JSON in
// evalcol.evaluation.explanation.
func putExplanation(attrs pcommon.Map, e *evaluators.Explanation) {
	if e == nil {
		return
	}
	attrs.PutStr(genai.AttrEvaluationExplanation, e.Summary)
	if b, err := json.Marshal(e); err == nil {
		attrs.PutStr(genai.AttrEvaluationExplanationJSON, string(b))
	}
}

// putResult writes the score and every output field, typed.
func putResult(attrs pcommon.Map, def *evaluators.Definition, res evaluators.Result) {
	value, label := def.ScoreOf(res)
	attrs.PutDouble(genai.AttrEvaluationScoreValue, value)
	if label != "" {
		attrs.PutStr(genai.AttrEvaluationScoreLabel, label)
	}
	for _, f := range def.Outputs {
		if v, ok := res[f.Name]; ok {
			putTyped(attrs, genai.AttrEvaluationOutputPrefix+f.Name, v)
		}
	}
}

func putTyped(attrs pcommon.Map, key string, v any) {
	switch t := v.(type) {
	case string:
		attrs.PutStr(key, t)
	case bool:
		attrs.PutBool(key, t)
	case float64:
		attrs.PutDouble(key, t)
	case float32:
		attrs.PutDouble(key, float64(t))
	case int:
		attrs.PutInt(key, int64(t))
	case int64:
		attrs.PutInt(key, t)
	default:
		attrs.PutStr(key, fmt.Sprint(t))
	}
}

// errorType classifies an evaluation error.
func errorType(err error) string {
	var pe panicError
	switch {
	case errors.Is(err, errTimeout), errors.Is(err, context.DeadlineExceeded), errors.Is(err, errOverloaded):
		return ErrorTimeout
	case errors.As(err, &pe), errors.Is(err, evaluators.ErrPanic):
		return ErrorPanic
	case evaluators.KindOf(err) == evaluators.KindInvalidInput:
		return ErrorInvalidInput
	default:
		return ErrorInternal
	}
}

// errorMessage is the first line of the error (no stack traces), capped.
func errorMessage(err error) string {
	msg := err.Error()
	if i := strings.IndexByte(msg, '\n'); i >= 0 {
		msg = msg[:i]
	}
	if len(msg) > maxErrorMessageSize {
		msg, _ = truncateUTF8(msg, maxErrorMessageSize)
	}
	return msg
}

// contentOnce extracts a span's LLM content on first use.
type contentOnce struct {
	attrs pcommon.Map
	done  bool
	c     genai.Content
}

func (o *contentOnce) get() *genai.Content {
	if !o.done {
		o.c, o.done = genai.Extract(o.attrs), true
	}
	return &o.c
}
