package warehouseexporter

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"

	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/consumer/consumererror"
	"go.opentelemetry.io/collector/exporter"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/otel/metric"
	"go.uber.org/zap"

	"github.com/evalcol/evalcol/exporter/warehouseexporter/internal/groupcommit"
	"github.com/evalcol/evalcol/exporter/warehouseexporter/internal/metadata"
	"github.com/evalcol/evalcol/internal/partialsuccess"
	"github.com/evalcol/evalcol/internal/spanconv"
	"github.com/evalcol/evalcol/internal/tenant"
	"github.com/evalcol/evalcol/internal/warehouse"
)

// maxItemsPerCommit bounds the spans and metric points of one group
// commit: large enough that SQLite's per-transaction cost vanishes, small
// enough that one commit takes a fraction of a second.
const maxItemsPerCommit = 16384

type warehouseExporter struct {
	cfg       *Config
	logger    *zap.Logger
	meters    metric.MeterProvider
	store     warehouse.Store
	orgs      spanconv.OrganizationFunc
	status    statusRecorder     // nil when the provider does not follow spans
	prep      warehouse.Preparer // nil when the store has nothing to prepare
	committer *groupcommit.Committer
	conflicts metric.Int64Counter

	tracesSizer  ptrace.ProtoMarshaler
	metricsSizer pmetric.ProtoMarshaler
}

func newExporter(cfg *Config, set exporter.Settings) *warehouseExporter {
	return &warehouseExporter{cfg: cfg, logger: set.Logger, meters: set.MeterProvider}
}

// organizations is optionally implemented by the warehouse provider to map
// an environment to its organization id.
type organizations interface {
	OrganizationOf(environment string) string
}

// statusRecorder is optionally implemented by the warehouse provider to
// follow the spans stored (the monitoring status): spans stored, and
// spans refused (final when they are dropped, not retried).
type statusRecorder interface {
	SpansStored(at time.Time, spans []warehouse.Span)
	SpansNotStored(at time.Time, spans []warehouse.Span, err error, final bool)
}

func (e *warehouseExporter) start(_ context.Context, host component.Host) error {
	ext, ok := host.GetExtensions()[e.cfg.API]
	if !ok {
		return fmt.Errorf("warehouse exporter: api: extension %q is not configured (add it under extensions and service.extensions)", e.cfg.API)
	}
	p, ok := ext.(warehouse.Provider)
	if !ok {
		return fmt.Errorf("warehouse exporter: api: extension %q does not own a warehouse (use an evalapi extension)", e.cfg.API)
	}
	e.store = p.Warehouse()
	if e.store == nil {
		return fmt.Errorf("warehouse exporter: api: extension %q has not opened its warehouse", e.cfg.API)
	}
	e.prep, _ = e.store.(warehouse.Preparer) // the store's own, not the timing wrapper's
	timed, err := newTimedStore(e.store, e.meters)
	if err != nil {
		return fmt.Errorf("warehouse exporter: %w", err)
	}
	e.store = timed
	if e.conflicts, err = e.meters.Meter(metadata.ScopeName).Int64Counter(MetricConflictingSpans,
		metric.WithDescription("Resent spans not stored because a span with the same trace id, span id and start time but other content was stored first (the first is kept); reported to the sender in the OTLP partial_success. Identical resends are not counted."),
		metric.WithUnit("{span}")); err != nil {
		return fmt.Errorf("warehouse exporter: creating %s: %w", MetricConflictingSpans, err)
	}
	e.orgs = func(string) string { return "" }
	if o, ok := ext.(organizations); ok {
		e.orgs = o.OrganizationOf
	}
	e.status, _ = ext.(statusRecorder)
	if e.cfg.QueueConfig.HasValue() {
		e.logger.Warn("sending_queue is enabled: OTLP requests are acknowledged before their data is committed, " +
			"so a crash loses the queued data; remove sending_queue for acknowledgements that follow the commit")
	}
	e.committer = groupcommit.NewReporting(e.write, groupcommit.Settings{
		MaxPendingBytes:   int64(e.cfg.MaxPendingMiB) << 20,
		MaxItemsPerCommit: maxItemsPerCommit,
		WriteTimeout:      e.cfg.TimeoutConfig.Timeout,
		Interval:          e.cfg.CommitInterval,
		IsRetryable:       isRetryable,
	})
	return nil
}

func (e *warehouseExporter) shutdown(ctx context.Context) error {
	if e.committer == nil {
		return nil
	}
	return e.committer.Close(ctx)
}

// write stores the spans, then the evaluation and OTLP metric points, of a
// group of requests. Both writes are idempotent, so a group that failed
// after its spans were committed is retried without storing them twice.
// The evaluation points of a conflicting duplicate (a resent span whose
// content differs from the stored copy, which is kept) are left out: they
// judge content that is not stored.
func (e *warehouseExporter) write(ctx context.Context, spans []warehouse.Span, points []warehouse.MetricPoint) (warehouse.SpanWriteReport, error) {
	var rep warehouse.SpanWriteReport
	if len(spans) > 0 {
		var err error
		if rep, err = e.store.WriteSpansReport(ctx, spans); err != nil {
			return rep, fmt.Errorf("write %d spans: %w", len(spans), err)
		}
	}
	if len(rep.Conflicts) > 0 {
		points = withoutPointsOf(spans, rep.Conflicts, points)
	}
	if len(points) > 0 {
		if err := e.store.WriteMetricPoints(ctx, points); err != nil {
			return rep, fmt.Errorf("write %d metric points: %w", len(points), err)
		}
	}
	return rep, nil
}

// spanIdentity is what makes two spans the same span to the warehouse.
type spanIdentity struct{ env, traceID, spanID string }

// withoutPointsOf returns points without the evaluation points of the
// conflicting spans (indexes into spans). A point names its span by
// environment, trace and span id; when a span of the same identity is
// also stored by this write (the first copy and the conflicting one sent
// at once), its points are kept, both copies' (they cannot be told apart).
func withoutPointsOf(spans []warehouse.Span, conflicting []int, points []warehouse.MetricPoint) []warehouse.MetricPoint {
	drop := make(map[spanIdentity]bool, len(conflicting))
	for _, i := range conflicting {
		drop[spanIdentity{spans[i].Environment, spans[i].TraceID, spans[i].SpanID}] = true
	}
	j := 0
	for i := range spans {
		if j < len(conflicting) && conflicting[j] == i {
			j++
			continue
		}
		delete(drop, spanIdentity{spans[i].Environment, spans[i].TraceID, spans[i].SpanID})
	}
	if len(drop) == 0 {
		return points
	}
	out := make([]warehouse.MetricPoint, 0, len(points))
	for _, p := range points {
		if p.Source == warehouse.SourceEvaluator && drop[spanIdentity{p.Environment, p.TraceID, p.SpanID}] {
			continue
		}
		out = append(out, p)
	}
	return out
}

func (e *warehouseExporter) pushTraces(ctx context.Context, td ptrace.Traces) error {
	batch := spanconv.Traces(td, e.options(ctx))
	if n := len(batch.Dropped); n > 0 {
		d := batch.Dropped[0]
		e.logger.Warn("dropping spans that can never be stored", zap.Int("spans", n),
			zap.String("reason", d.Reason), zap.String("first_trace_id", d.TraceID), zap.String("first_span_id", d.SpanID))
		// Without a tenant processor in front (which rejects these
		// first), the sender still learns of them.
		byReason := map[string]int64{}
		for _, d := range batch.Dropped {
			byReason[d.Reason]++
		}
		for _, reason := range slices.Sorted(maps.Keys(byReason)) {
			n := byReason[reason]
			partialsuccess.Reject(ctx, reason, n, fmt.Sprintf("%d span(s) rejected: %s; the other spans were accepted", n, reason))
		}
	}
	if p := e.prep; p != nil {
		// Here, in parallel with other requests, not in the one writer.
		p.PrepareSpans(batch.Spans)
		p.PreparePoints(batch.Points)
	}
	res, err := e.committer.CommitReport(ctx, groupcommit.Batch{Spans: batch.Spans, Points: batch.Points, Bytes: int64(e.tracesSizer.TracesSize(td))})
	err = e.classify(err, len(batch.Spans)+len(batch.Points))
	if n := len(res.Conflicts); n > 0 && err == nil {
		e.reportConflicts(ctx, batch.Spans, res.Conflicts)
	}
	if e.status != nil && len(batch.Spans) > 0 {
		if err == nil {
			e.status.SpansStored(time.Now(), batch.Spans)
		} else {
			e.status.SpansNotStored(time.Now(), batch.Spans, err, consumererror.IsPermanent(err))
		}
	}
	return err
}

// reportConflicts tells the sender (partial_success), the metric and the
// debug log of the conflicting duplicates of a request.
func (e *warehouseExporter) reportConflicts(ctx context.Context, spans []warehouse.Span, conflicts []int) {
	n := len(conflicts)
	first := spans[conflicts[0]]
	partialsuccess.Reject(ctx, "conflicting_duplicate", int64(n), fmt.Sprintf(
		"%d span(s) rejected: a span with the same trace_id, span_id and start time but other content was stored first and is kept "+
			"(first: trace_id %s span_id %s); resend a span unchanged, or give changed content a new span_id; the other spans were accepted",
		n, first.TraceID, first.SpanID))
	e.conflicts.Add(ctx, int64(n))
	e.logger.Debug("resent spans with other content than the stored copies were not stored", zap.Int("spans", n),
		zap.String("first_trace_id", first.TraceID), zap.String("first_span_id", first.SpanID))
}

func (e *warehouseExporter) pushMetrics(ctx context.Context, md pmetric.Metrics) error {
	pts, late := spanconv.MetricPoints(md, e.options(ctx))
	if late > 0 {
		// Without a tenant processor in front (which rejects these
		// first), the sender still learns of them.
		reason := "time_unix_nano or start_time_unix_nano after " + spanconv.MaxSpanTime().Format(time.RFC3339)
		e.logger.Warn("dropping metric data points that can never be stored", zap.Int("data_points", late), zap.String("reason", reason))
		partialsuccess.RejectDataPoints(ctx, "time_out_of_range", int64(late),
			fmt.Sprintf("%d data point(s) rejected: %s; the other data points were accepted", late, reason))
	}
	if p := e.prep; p != nil {
		p.PreparePoints(pts)
	}
	err := e.committer.Commit(ctx, groupcommit.Batch{Points: pts, Bytes: int64(e.metricsSizer.MetricsSize(md))})
	return e.classify(err, len(pts))
}

// options are the conversion options of a request. When the request was
// authenticated by an API key (its context carries the tenant, which it
// does when no batch processor or queue stands between the receiver and
// the exporter), the key's environment files everything; else the
// resource's deployment.environment.name (stamped by the tenant processor),
// else default_environment.
func (e *warehouseExporter) options(ctx context.Context) spanconv.Options {
	opts := spanconv.Options{DefaultEnvironment: e.cfg.DefaultEnvironment, Organization: e.orgs, Redact: e.cfg.RedactContent}
	if t, ok := tenant.FromContext(ctx); ok {
		opts.Environment = t.Environment
	}
	return opts
}

// Errors the senders see: the receivers answer them (as the status
// message), so they name no internal detail; the log has the cause.
var (
	errRetryLater = fmt.Errorf("warehouse unavailable or slow, retry later: %w", warehouse.ErrUnavailable)
	errRefused    = errors.New("the warehouse cannot store this data (the collector log says why)")
)

// classify returns err as the pipeline should see it. A busy, slow,
// locked or unreachable warehouse, and a request that timed out waiting
// for its commit, are retryable: the receiver answers HTTP 503 / gRPC
// UNAVAILABLE and the sender retries. Only an error the warehouse
// reported for this request alone, that is not transient, is permanent:
// that data can never be stored, and is dropped with a log line.
func (e *warehouseExporter) classify(err error, items int) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, groupcommit.ErrBusy):
		return err
	case errors.Is(err, groupcommit.ErrWaitEnded):
		// The request's own deadline, or its sender gone: nothing failed.
		e.logger.Debug("request ended while waiting for its commit", zap.Int("spans_and_points", items), zap.Error(err))
		return errRetryLater
	case isRetryable(err):
		e.logger.Warn("warehouse write failed, the sender is asked to retry", zap.Int("spans_and_points", items), zap.Error(err))
		return errRetryLater
	}
	e.logger.Error("dropping data the warehouse refuses", zap.Int("spans_and_points", items), zap.Error(err))
	return consumererror.NewPermanent(errRefused)
}

// isRetryable reports whether a write error is transient.
func isRetryable(err error) bool {
	return warehouse.IsRetryable(err) || errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled)
}
