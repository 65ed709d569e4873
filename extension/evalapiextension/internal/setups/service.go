package setups

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/evalcol/evalcol/extension/evalapiextension/internal/customevaluators"
	"github.com/evalcol/evalcol/internal/engine"
	"sync"
	"sync/atomic"
	"time"

	"go.uber.org/zap"

	"github.com/evalcol/evalcol/internal/monitor"
	"github.com/evalcol/evalcol/internal/tenant"
	"github.com/evalcol/evalcol/internal/warehouse"
)

// Service manages auto monitor setups: it stores them, compiles the active
// ones into monitors for the evaluator processor (through a monitor.Set),
// and moves them through their lifecycle. Changes made through this
// process apply at once; changes made through another collector sharing the
// warehouse apply within the poll interval.
type Service struct {
	store    warehouse.SetupStore
	compiler *monitor.Compiler
	monitors *monitor.Set
	logger   *zap.Logger
	poll     time.Duration
	now      func() time.Time

	wake chan struct{}
	// bg is cancelled by Shutdown; it bounds the loop and the backfills.
	bg   context.Context
	stop context.CancelFunc
	done chan struct{}

	backfill *backfiller
	custom   CustomEvaluators
	deferrer engine.Deferrer

	// maxPerEnvironment caps the setups of one environment; createMu
	// makes this process's count-then-create atomic.
	maxPerEnvironment int
	// maxBytesPerEnvironment caps the JSON bytes of one environment's
	// setups (createMu serialises the check too).
	maxBytesPerEnvironment int64
	createMu               sync.Mutex

	mu sync.Mutex
	// compiled caches monitors by setup id and version.
	compiled map[string]compiledSetup
	// evaluated are the setups processors reported since the last flush.
	evaluated map[string]bool
	// running are the setups known to be in_progress: Evaluated ignores
	// them without taking the lock's slow path.
	running sync.Map
	// summaries are the environments' setups in brief, as of the last
	// reload.
	summaries map[string]Summary
	// statusCounts are the setups by status at the last reload.
	statusCounts atomic.Pointer[map[string]int64]
	// loadedVersion and loadedAt are the store's setups version at the
	// last reload, and when it ran.
	loadedVersion string
	loadedAt      time.Time
}

// Summary is what an environment's setups say about its evaluation.
type Summary struct {
	// Setups counts the environment's setups, Usable those with at least
	// one evaluator binding that did not fail.
	Setups, Usable int
	// FirstError is the message of a failed binding, if any.
	FirstError string
	// BackfillPending counts the spans running backfills still have to
	// read.
	BackfillPending int64
}

// Summary returns env's setups in brief, as of the last reload.
func (s *Service) Summary(env string) Summary {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.summaries[env]
}

func summarise(all []warehouse.MonitorSetup) map[string]Summary {
	out := map[string]Summary{}
	for _, setup := range all {
		sum := out[setup.Environment]
		sum.Setups++
		usable := false
		for _, b := range setup.Evaluators {
			if b.Status != BindingFailed {
				usable = true
			} else if sum.FirstError == "" {
				sum.FirstError = b.ErrorMessage
			}
		}
		if usable && setup.Status != StatusFailed {
			sum.Usable++
		}
		if b := setup.Backfill; b != nil && b.Status == BackfillRunning && b.Total > b.Scanned {
			sum.BackfillPending += b.Total - b.Scanned
		}
		out[setup.Environment] = sum
	}
	return out
}

type compiledSetup struct {
	version int64
	monitor *monitor.Monitor
}

// Options configures a Service.
type Options struct {
	Store    warehouse.SetupStore
	Compiler *monitor.Compiler
	Monitors *monitor.Set
	Logger   *zap.Logger
	// Poll is how often setups are re-read from the store.
	Poll time.Duration
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Backfill configures the evaluation of stored spans for setups that
	// ask for it.
	Backfill BackfillOptions
	// MaxPerEnvironment caps the setups of one environment (default
	// DefaultMaxPerEnvironment).
	MaxPerEnvironment int
	// MaxBytesPerEnvironment caps the bytes (JSON) all setups of one
	// environment hold together (default DefaultMaxBytesPerEnvironment).
	MaxBytesPerEnvironment int64
	// Custom resolves the custom evaluators (LLM judges) of the tenant's
	// project that a setup may bind besides the prebuilt ones; nil: none.
	Custom CustomEvaluators
	// Deferrer queues the custom evaluators' work of backfills (nil: a
	// backfill skips them).
	Deferrer engine.Deferrer
}

// CustomEvaluators resolves a project's custom evaluators
// (customevaluators.API).
type CustomEvaluators interface {
	Resolve(ctx context.Context, t tenant.Tenant, ref string) (customevaluators.Version, error)
}

// customOf resolves the evaluators of r that are no prebuilt one among
// t's custom evaluators; those it does not find stay unresolved (their
// bindings fail, naming them).
func (s *Service) customOf(ctx context.Context, t tenant.Tenant, r Request) (map[string]customevaluators.Version, error) {
	if s.custom == nil {
		return nil, nil
	}
	var out map[string]customevaluators.Version
	for _, ref := range r.Evaluators {
		if ref.Slug != "" {
			continue
		}
		v, err := s.custom.Resolve(ctx, t, ref.Name)
		if errors.Is(err, warehouse.ErrNotFound) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("resolve custom evaluator %q: %w", ref.Name, err)
		}
		if out == nil {
			out = map[string]customevaluators.Version{}
		}
		out[ref.Name] = v
	}
	return out, nil
}

// DefaultMaxPerEnvironment is the default cap on the setups of one
// environment.
const DefaultMaxPerEnvironment = 1000

// DefaultMaxBytesPerEnvironment is the default cap on the bytes of one
// environment's setups: a thousand setups of 8 KiB (a usual setup is 1-3
// KiB; one at every request limit is about 125 KiB).
const DefaultMaxBytesPerEnvironment = 8 << 20

// MaxPageBytes bounds the JSON size of a page of List: a page ends early,
// with a cursor, rather than grow past it (a page holds at least one
// setup; with the request limits a setup stays far below it).
const MaxPageBytes = 1 << 20

// listChunk is how many setups List reads from the warehouse at a time,
// so that what one page holds in memory besides its MaxPageBytes is at
// most listChunk setups (about 2 MiB at every request limit).
const listChunk = 16

// LimitError is a request refused because the environment is at one of its
// limits (HTTP 409); the message names the limit.
type LimitError struct{ Msg string }

func (e *LimitError) Error() string { return e.Msg }

// NewService returns a service; Start begins applying setups.
func NewService(o Options) *Service {
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Logger == nil {
		o.Logger = zap.NewNop()
	}
	if o.MaxPerEnvironment <= 0 {
		o.MaxPerEnvironment = DefaultMaxPerEnvironment
	}
	if o.MaxBytesPerEnvironment <= 0 {
		o.MaxBytesPerEnvironment = DefaultMaxBytesPerEnvironment
	}
	s := &Service{
		maxPerEnvironment: o.MaxPerEnvironment, maxBytesPerEnvironment: o.MaxBytesPerEnvironment,
		store: o.Store, compiler: o.Compiler, monitors: o.Monitors, logger: o.Logger, poll: o.Poll,
		now: func() time.Time { return o.Now().UTC().Truncate(time.Second) }, wake: make(chan struct{}, 1),
		compiled: map[string]compiledSetup{}, evaluated: map[string]bool{},
		custom: o.Custom, deferrer: o.Deferrer,
	}
	s.bg, s.stop = context.WithCancel(context.Background())
	s.backfill = newBackfiller(o.Store, o.Backfill.withDefaults(), o.Logger)
	return s
}

// Start loads the stored setups once, then keeps them applied in the
// background until Shutdown.
func (s *Service) Start(ctx context.Context) {
	if err := s.Reload(ctx); err != nil {
		s.logger.Warn("loading auto monitor setups failed; retrying in the background", zap.Error(err))
	}
	s.done = make(chan struct{})
	go s.loop(s.bg)
}

// Shutdown stops the background loop and the backfills; a backfill that
// was running goes back to pending, to start again at the next load.
func (s *Service) Shutdown() {
	s.stop()
	if s.done != nil {
		<-s.done
	}
	s.backfill.wait()
}

func (s *Service) loop(ctx context.Context) {
	defer close(s.done)
	poll := s.poll
	if poll <= 0 {
		poll = 5 * time.Second
	}
	t := time.NewTicker(poll)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if s.unchanged(ctx) {
				continue
			}
		case <-s.wake:
		}
		if err := s.Reload(ctx); err != nil && ctx.Err() == nil {
			s.logger.Warn("reloading auto monitor setups failed", zap.Error(err))
		}
	}
}

// fullReloadEvery bounds how long a poll may skip reading the setups
// because their version token did not change.
const fullReloadEvery = time.Minute

// unchanged reports whether a poll can skip the reload: the store's setups
// version is the one of the last reload, no evaluation news is waiting, and
// the last full reload is recent. Reading every setup at every poll costs
// a collector with 10 000 setups 6 % of a CPU while idle.
func (s *Service) unchanged(ctx context.Context) bool {
	v, ok := s.store.(warehouse.SetupsVersioner)
	if !ok {
		return false
	}
	version, err := v.SetupsVersion(ctx)
	if err != nil {
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return version == s.loadedVersion && len(s.evaluated) == 0 && s.now().Sub(s.loadedAt) < fullReloadEvery
}

// notify wakes the loop without blocking.
func (s *Service) notify() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// Evaluated records that the monitor of setup id evaluated a span. It never
// blocks; the setup moves to in_progress on the next reload, which it
// triggers.
func (s *Service) Evaluated(id string) {
	if _, ok := s.running.Load(id); ok {
		return
	}
	s.mu.Lock()
	first := !s.evaluated[id]
	s.evaluated[id] = true
	s.mu.Unlock()
	if first {
		s.notify()
	}
}

// Reload reads every setup, compiles the active ones into the monitor set,
// and applies the status transitions that are due.
func (s *Service) Reload(ctx context.Context) error {
	// The version is read first: a change made while the setups are read
	// makes the next poll reload again.
	version := ""
	if v, ok := s.store.(warehouse.SetupsVersioner); ok {
		version, _ = v.SetupsVersion(ctx)
	}
	all, err := s.store.AllSetups(ctx)
	if err != nil {
		return fmt.Errorf("read setups: %w", err)
	}
	s.mu.Lock()
	evaluated := s.evaluated
	s.evaluated = map[string]bool{}
	s.summaries = summarise(all)
	s.loadedVersion, s.loadedAt = version, s.now()
	s.mu.Unlock()

	now := s.now()
	var monitors []*monitor.Monitor
	seen := make(map[string]bool, len(all))
	for _, setup := range all {
		seen[setup.ID] = true
		if setup.Status == StatusFailed {
			if backfillPending(setup) {
				s.transition(ctx, setup, now, func(u *warehouse.MonitorSetup) {
					failBackfill(u, now, "the setup has no valid evaluator")
				})
			}
			continue
		}
		m, err := s.compile(setup)
		if err != nil {
			s.logger.Error("auto monitor setup cannot be compiled; marking it failed", zap.String("id", setup.ID), zap.Error(err))
			s.transition(ctx, setup, now, func(u *warehouse.MonitorSetup) {
				u.Status = StatusFailed
				for i := range u.Evaluators {
					u.Evaluators[i].Status, u.Evaluators[i].ErrorMessage, u.Evaluators[i].ProcessedAt = BindingFailed, err.Error(), &now
				}
				if backfillPending(*u) {
					failBackfill(u, now, "the setup cannot be compiled: "+err.Error())
				}
			})
			continue
		}
		monitors = append(monitors, m)
		ok := true
		switch {
		case setup.Status == StatusPending || setup.Status == StatusPartial:
			ok = s.transition(ctx, setup, now, func(u *warehouse.MonitorSetup) {
				u.Status = StatusWaitingForSpans
				if evaluated[setup.ID] {
					u.Status = StatusInProgress
				}
				for i := range u.Evaluators {
					if u.Evaluators[i].Status == BindingPending {
						u.Evaluators[i].Status, u.Evaluators[i].ProcessedAt = BindingActive, &now
					}
				}
			})
		case setup.Status == StatusWaitingForSpans && evaluated[setup.ID]:
			ok = s.transition(ctx, setup, now, func(u *warehouse.MonitorSetup) { u.Status = StatusInProgress })
		case setup.Status == StatusInProgress:
			s.running.Store(setup.ID, true)
		}
		if !ok && evaluated[setup.ID] {
			// Lost to a concurrent change (a backfill's progress, another
			// collector): keep the news for the next reload.
			s.mu.Lock()
			s.evaluated[setup.ID] = true
			s.mu.Unlock()
		}
		if backfillPending(setup) {
			// After the transition above, so that this collector's status
			// change is not raced by the backfill's claim.
			s.startBackfill(setup)
		}
	}
	s.mu.Lock()
	for id := range s.compiled {
		if !seen[id] {
			delete(s.compiled, id)
			s.running.Delete(id)
		}
	}
	s.mu.Unlock()
	s.monitors.Replace(monitors)
	counts := countByStatus(all)
	s.statusCounts.Store(&counts)
	return nil
}

// compile returns the monitor of a setup, from the cache when the setup has
// not changed.
func (s *Service) compile(setup warehouse.MonitorSetup) (*monitor.Monitor, error) {
	s.mu.Lock()
	c, ok := s.compiled[setup.ID]
	s.mu.Unlock()
	if ok && c.version == setup.Version {
		return c.monitor, nil
	}
	sp, err := spec(setup)
	if err != nil {
		return nil, err
	}
	m, err := s.compiler.Compile(sp)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	s.compiled[setup.ID] = compiledSetup{version: setup.Version, monitor: m}
	s.mu.Unlock()
	return m, nil
}

// transition applies change to a copy of setup and stores it, compare-and-
// set on the version: when another collector changed the setup first, the
// change is dropped and the next reload sees the new state.
func (s *Service) transition(ctx context.Context, setup warehouse.MonitorSetup, now time.Time, change func(*warehouse.MonitorSetup)) bool {
	if _, err := s.apply(ctx, setup, now, change); err != nil {
		if !errors.Is(err, warehouse.ErrConflict) && !errors.Is(err, warehouse.ErrNotFound) {
			s.logger.Warn("updating auto monitor setup status failed", zap.String("id", setup.ID), zap.Error(err))
		}
		return false
	}
	return true
}

// apply applies change to a copy of setup (its evaluators and backfill
// state copied too) and stores it, compare-and-set on the version; it
// returns the stored setup. The cached monitor follows the new version.
func (s *Service) apply(ctx context.Context, setup warehouse.MonitorSetup, now time.Time, change func(*warehouse.MonitorSetup)) (warehouse.MonitorSetup, error) {
	u := setup
	u.Evaluators = append([]warehouse.SetupBinding(nil), setup.Evaluators...)
	if setup.Backfill != nil {
		b := *setup.Backfill
		u.Backfill = &b
	}
	change(&u)
	u.UpdatedAt = now
	u.Version = setup.Version + 1
	if err := s.store.UpdateSetup(ctx, u); err != nil {
		return setup, err
	}
	// The monitor itself is unchanged: keep the compiled one for the new
	// version.
	s.mu.Lock()
	if c, ok := s.compiled[setup.ID]; ok && c.version == setup.Version {
		s.compiled[setup.ID] = compiledSetup{version: u.Version, monitor: c.monitor}
	}
	s.mu.Unlock()
	if u.Status == StatusInProgress {
		s.running.Store(u.ID, true)
	}
	return u, nil
}

// Create stores a new setup for tenant t and applies it at once. It
// fails with a *LimitError when t's environment has MaxPerEnvironment
// setups already (counted in the warehouse; collectors creating at the
// same moment may overshoot by the few they race with).
func (s *Service) Create(ctx context.Context, t tenant.Tenant, r Request) (warehouse.MonitorSetup, error) {
	s.createMu.Lock()
	defer s.createMu.Unlock()
	n, err := s.store.CountSetups(ctx, t.Environment)
	if err != nil {
		return warehouse.MonitorSetup{}, err
	}
	if n >= s.maxPerEnvironment {
		return warehouse.MonitorSetup{}, &LimitError{Msg: fmt.Sprintf(
			"this environment has %d auto monitor setups, the limit (max_setups_per_environment is %d): delete setups before creating more", n, s.maxPerEnvironment)}
	}
	now := s.now()
	if err := checkBackfillWindow(r, now); err != nil {
		return warehouse.MonitorSetup{}, err
	}
	custom, err := s.customOf(ctx, t, r)
	if err != nil {
		return warehouse.MonitorSetup{}, err
	}
	setup := build(r, t, now, nil, custom)
	if err := s.checkBytes(ctx, t.Environment, setup, 0); err != nil {
		return warehouse.MonitorSetup{}, err
	}
	if err := s.store.CreateSetup(ctx, setup); err != nil {
		return warehouse.MonitorSetup{}, err
	}
	s.notify()
	return setup, nil
}

// setupSize is the bytes a setup takes in the warehouse (its JSON
// document, as warehouse.SetupStore.SetupBytes counts it).
func setupSize(m warehouse.MonitorSetup) (int64, error) {
	b, err := json.Marshal(m)
	if err != nil {
		return 0, fmt.Errorf("encode setup %s: %w", m.ID, err)
	}
	return int64(len(b)), nil
}

// checkBytes fails with a *LimitError when storing setup, in place of a
// setup of replaced bytes (0 for a new one), would take env's setups
// over maxBytesPerEnvironment. The caller holds createMu.
func (s *Service) checkBytes(ctx context.Context, env string, setup warehouse.MonitorSetup, replaced int64) error {
	size, err := setupSize(setup)
	if err != nil {
		return err
	}
	used, err := s.store.SetupBytes(ctx, env)
	if err != nil {
		return err
	}
	if total := used - replaced + size; total > s.maxBytesPerEnvironment {
		return &LimitError{Msg: fmt.Sprintf(
			"this setup (%d bytes) would take this environment's auto monitor setups to %d bytes, over the limit (max_setup_bytes_per_environment is %d): make setups smaller or delete some",
			size, total, s.maxBytesPerEnvironment)}
	}
	return nil
}

// checkBackfillWindow fails with a *FieldError when r asks for a backfill
// that starts after it would end: a backfill evaluates the spans stored
// from backfill_from_timestamp_sec until now (the setup's creation or
// update), so a later start is an empty window that used to be accepted
// and reported done, having looked at nothing.
func checkBackfillWindow(r Request, now time.Time) error {
	if r.BackfillFromSec > now.Unix() {
		return fieldErrorf("backfill_from_timestamp_sec", "%d is after now (%d, %s): a backfill evaluates the spans stored from then until now",
			r.BackfillFromSec, now.Unix(), now.UTC().Format(time.RFC3339))
	}
	return nil
}

// checkBytesLocked is checkBytes for an update of prev, under createMu.
// Racing updates of one environment may overshoot by what they race with.
func (s *Service) checkBytesLocked(ctx context.Context, env string, setup, prev warehouse.MonitorSetup) error {
	s.createMu.Lock()
	defer s.createMu.Unlock()
	old, err := setupSize(prev)
	if err != nil {
		return err
	}
	return s.checkBytes(ctx, env, setup, old)
}

// Get returns one of t's setups by id or, as Traceloop's API addresses
// them, by external id (in t's project).
func (s *Service) Get(ctx context.Context, t tenant.Tenant, idOrExternalID string) (warehouse.MonitorSetup, error) {
	setup, err := s.store.GetSetup(ctx, t.Environment, idOrExternalID)
	if !errors.Is(err, warehouse.ErrNotFound) {
		return setup, err
	}
	page, lerr := s.store.ListSetups(ctx, warehouse.SetupQuery{Environment: t.Environment, ExternalID: idOrExternalID, Limit: MaxListLimit})
	if lerr != nil {
		return warehouse.MonitorSetup{}, lerr
	}
	for _, m := range page.Setups {
		if m.ProjectID == t.ProjectID {
			return m, nil
		}
	}
	if len(page.Setups) > 0 {
		return page.Setups[0], nil
	}
	return warehouse.MonitorSetup{}, err
}

// MaxListLimit is the largest page List serves; DefaultListLimit the page
// when the query has no limit.
const (
	MaxListLimit     = 1000
	DefaultListLimit = 100
)

// List returns a page of t's setups: at most q.Limit (default
// DefaultListLimit) and at most MaxPageBytes of JSON (at least one
// setup). It reads the warehouse listChunk setups at a time, so a page
// never holds more than MaxPageBytes and one chunk in memory, whatever
// the limit.
func (s *Service) List(ctx context.Context, t tenant.Tenant, q warehouse.SetupQuery) (warehouse.SetupPage, error) {
	q.Environment = t.Environment
	if q.Limit <= 0 {
		q.Limit = DefaultListLimit
	}
	limit := min(q.Limit, MaxListLimit)
	var out warehouse.SetupPage
	size := 0
	for {
		q.Limit = min(listChunk, limit-len(out.Setups))
		page, err := s.store.ListSetups(ctx, q)
		if err != nil {
			return warehouse.SetupPage{}, err
		}
		for i, m := range page.Setups {
			b, err := json.Marshal(m)
			if err != nil {
				return warehouse.SetupPage{}, fmt.Errorf("encode setup %s: %w", m.ID, err)
			}
			if size+len(b)+1 > MaxPageBytes && len(out.Setups) > 0 {
				out.NextCursor = out.Cursors[len(out.Cursors)-1]
				return out, nil
			}
			size += len(b) + 1
			out.Setups = append(out.Setups, m)
			out.Cursors = append(out.Cursors, page.Cursors[i])
		}
		if page.NextCursor == "" {
			return out, nil
		}
		if len(out.Setups) >= limit {
			out.NextCursor = page.NextCursor
			return out, nil
		}
		q.Cursor = page.NextCursor
	}
}

// maxUpdateAttempts bounds how often Update re-applies a request to a
// setup that changed while it was being updated.
const maxUpdateAttempts = 5

// Update changes one of t's setups (by id or external id). A request with
// an entity replaces the entity, evaluators and selector; one without
// changes only the fields it has. The status starts again at pending. A
// setup that changes meanwhile (its binding status recorded) gets the
// request applied again.
func (s *Service) Update(ctx context.Context, t tenant.Tenant, idOrExternalID string, r Request) (warehouse.MonitorSetup, error) {
	if err := checkBackfillWindow(r, s.now()); err != nil {
		return warehouse.MonitorSetup{}, err
	}
	var setup warehouse.MonitorSetup
	for attempt := 0; ; attempt++ {
		prev, err := s.Get(ctx, t, idOrExternalID)
		if err != nil {
			return warehouse.MonitorSetup{}, err
		}
		req := r
		if !r.HasEntity() {
			req = merge(prev, r)
		}
		custom, err := s.customOf(ctx, t, req)
		if err != nil {
			return warehouse.MonitorSetup{}, err
		}
		setup = build(req, t, s.now(), &prev, custom)
		if err := s.checkBytesLocked(ctx, t.Environment, setup, prev); err != nil {
			return warehouse.MonitorSetup{}, err
		}
		err = s.store.UpdateSetup(ctx, setup)
		if err == nil {
			break
		}
		// The binder records a setup's status as a new version: an update
		// read before it conflicts on the version, not on the external
		// id. Read the setup again and apply the request to it.
		if errors.Is(err, warehouse.ErrConflict) && attempt < maxUpdateAttempts-1 {
			if cur, gerr := s.Get(ctx, t, idOrExternalID); gerr == nil && cur.Version != prev.Version {
				continue
			}
		}
		return warehouse.MonitorSetup{}, err
	}
	s.running.Delete(setup.ID)
	s.notify()
	return setup, nil
}

// Delete removes one of t's setups (by id or external id); its monitor
// stops at once.
func (s *Service) Delete(ctx context.Context, t tenant.Tenant, idOrExternalID string) error {
	setup, err := s.Get(ctx, t, idOrExternalID)
	if err != nil {
		return err
	}
	id := setup.ID
	if err := s.store.DeleteSetup(ctx, t.Environment, id); err != nil {
		return err
	}
	s.running.Delete(id)
	// Drop the monitor now rather than on the next reload.
	var kept []*monitor.Monitor
	for _, m := range s.monitors.Monitors() {
		if m.ID != id {
			kept = append(kept, m)
		}
	}
	s.monitors.Replace(kept)
	s.notify()
	return nil
}
