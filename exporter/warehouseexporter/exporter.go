package warehouseexporter

import (
	"context"
	"fmt"
	"time"

	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/consumer/consumererror"
	"go.opentelemetry.io/collector/exporter"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/otel/metric"
	"go.uber.org/zap"

	"github.com/evalcol/evalcol/internal/spanconv"
	"github.com/evalcol/evalcol/internal/warehouse"
)

type warehouseExporter struct {
	cfg    *Config
	logger *zap.Logger
	meters metric.MeterProvider
	store  warehouse.Store
	orgs   spanconv.OrganizationFunc
	status statusRecorder // nil when the provider does not follow spans
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
	timed, err := newTimedStore(e.store, e.meters)
	if err != nil {
		return fmt.Errorf("warehouse exporter: %w", err)
	}
	e.store = timed
	e.orgs = func(string) string { return "" }
	if o, ok := ext.(organizations); ok {
		e.orgs = o.OrganizationOf
	}
	e.status, _ = ext.(statusRecorder)
	return nil
}

func (e *warehouseExporter) pushTraces(ctx context.Context, td ptrace.Traces) error {
	batch := spanconv.Traces(td, spanconv.Options{DefaultEnvironment: e.cfg.DefaultEnvironment, Organization: e.orgs,
		Redact: e.cfg.RedactContent})
	for _, d := range batch.Dropped {
		e.logger.Warn("dropping span that cannot be stored", zap.String("trace_id", d.TraceID), zap.String("span_id", d.SpanID), zap.String("reason", d.Reason))
	}
	if len(batch.Spans) > 0 {
		if err := e.store.WriteSpans(ctx, batch.Spans); err != nil {
			if e.status != nil {
				e.status.SpansNotStored(time.Now(), batch.Spans, err, !warehouse.IsRetryable(err))
			}
			return classify(fmt.Errorf("write %d spans: %w", len(batch.Spans), err))
		}
		if e.status != nil {
			e.status.SpansStored(time.Now(), batch.Spans)
		}
	}
	if len(batch.Points) > 0 {
		if err := e.store.WriteMetricPoints(ctx, batch.Points); err != nil {
			// The spans are stored; retrying the whole request would store
			// them again, so only a transient failure is retried (span
			// writes are idempotent upserts keyed by environment, trace and
			// span id).
			return classify(fmt.Errorf("write %d evaluation metric points: %w", len(batch.Points), err))
		}
	}
	return nil
}

func (e *warehouseExporter) pushMetrics(ctx context.Context, md pmetric.Metrics) error {
	pts := spanconv.Metrics(md, spanconv.Options{DefaultEnvironment: e.cfg.DefaultEnvironment, Organization: e.orgs})
	if len(pts) == 0 {
		return nil
	}
	if err := e.store.WriteMetricPoints(ctx, pts); err != nil {
		return classify(fmt.Errorf("write %d metric points: %w", len(pts), err))
	}
	return nil
}

// classify marks non-transient store errors permanent, so the exporter
// helper retries only what may succeed later.
func classify(err error) error {
	if warehouse.IsRetryable(err) {
		return err
	}
	return consumererror.NewPermanent(err)
}
