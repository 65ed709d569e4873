package evaluationmetricsconnector

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/connector"
	"go.opentelemetry.io/collector/consumer"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/otel/metric"
	"go.uber.org/zap"

	"github.com/evalcol/evalcol/connector/evaluationmetricsconnector/internal/aggregate"
	"github.com/evalcol/evalcol/connector/evaluationmetricsconnector/internal/metadata"
)

// evaluationMetrics is the connector: ConsumeTraces adds the batch's
// evaluation results to the aggregator; a goroutine started by Start sends
// the cumulative metrics on every flush interval, and once more at
// Shutdown.
type evaluationMetrics struct {
	logger   *zap.Logger
	next     consumer.Metrics
	agg      *aggregate.Aggregator
	interval time.Duration
	version  string
	now      func() time.Time

	stop     chan struct{}
	done     chan struct{}
	stopOnce sync.Once
	// flushMu makes flushes one at a time, so that the next consumer
	// never sees an older cumulative value after a newer one.
	flushMu sync.Mutex
	// overflowLogged is set once the warning that max_series was reached
	// has been logged (under flushMu).
	overflowLogged bool
	maxSeries      int
	// telemetry is the registration of the connector's own metrics.
	telemetry metric.Registration
}

var _ connector.Traces = (*evaluationMetrics)(nil)

func newConnector(set connector.Settings, cfg *Config, next consumer.Metrics) (*evaluationMetrics, error) {
	dims, err := cfg.dimensions()
	if err != nil {
		return nil, err
	}
	agg := aggregate.New(aggregate.Options{
		Dimensions: dims,
		MaxSeries:  cfg.MaxSeries,
		Buckets:    cfg.Histogram.Buckets,
		Expiration: cfg.MetricsExpiration,
	})
	reg, err := registerTelemetry(set.MeterProvider, agg)
	if err != nil {
		return nil, err
	}
	return &evaluationMetrics{
		logger:    set.Logger,
		next:      next,
		agg:       agg,
		telemetry: reg,
		interval:  cfg.MetricsFlushInterval,
		maxSeries: cfg.MaxSeries,
		version:   set.BuildInfo.Version,
		now:       time.Now,
		stop:      make(chan struct{}),
	}, nil
}

// Start starts the periodic flush.
func (c *evaluationMetrics) Start(context.Context, component.Host) error {
	c.done = make(chan struct{})
	go c.run()
	return nil
}

func (c *evaluationMetrics) run() {
	defer close(c.done)
	ticker := time.NewTicker(c.interval)
	defer ticker.Stop()
	for {
		select {
		case <-c.stop:
			return
		case <-ticker.C:
			if err := c.flush(context.Background()); err != nil {
				c.logger.Warn("sending evaluation metrics failed", zap.Error(err))
			}
		}
	}
}

// Shutdown stops the periodic flush and sends the metrics a last time, so
// that a push exporter gets the evaluations of the last interval. Calls
// after the first do nothing.
func (c *evaluationMetrics) Shutdown(ctx context.Context) error {
	first := false
	c.stopOnce.Do(func() {
		first = true
		close(c.stop)
	})
	if !first {
		return nil
	}
	var errs []error
	if err := c.telemetry.Unregister(); err != nil {
		errs = append(errs, fmt.Errorf("unregistering the connector's metrics: %w", err))
	}
	if c.done != nil { // started
		select {
		case <-c.done:
			if err := c.flush(ctx); err != nil {
				errs = append(errs, fmt.Errorf("last flush of the evaluation metrics: %w", err))
			}
		case <-ctx.Done():
			errs = append(errs, fmt.Errorf("waiting for the periodic flush to stop: %w", ctx.Err()))
		}
	}
	return errors.Join(errs...)
}

// Capabilities: the connector only reads the spans.
func (c *evaluationMetrics) Capabilities() consumer.Capabilities {
	return consumer.Capabilities{MutatesData: false}
}

// ConsumeTraces counts the evaluation results of td.
func (c *evaluationMetrics) ConsumeTraces(_ context.Context, td ptrace.Traces) error {
	c.agg.Add(td, c.now())
	return nil
}

// flush sends the cumulative metrics to the next consumer, if there are
// any.
func (c *evaluationMetrics) flush(ctx context.Context) error {
	c.flushMu.Lock()
	defer c.flushMu.Unlock()
	if st := c.agg.Stats(); st.Overflowed > 0 && !c.overflowLogged {
		c.overflowLogged = true
		c.logger.Warn("evaluation metrics reached max_series: the evaluations of new attribute combinations count in the series with otel.metric.overflow=true; lower the dimensions, raise max_series or set metrics_expiration",
			zap.Int("max_series", c.maxSeries), zap.Int64("overflowed", st.Overflowed))
	}
	md := c.agg.Metrics(c.now(), metadata.ScopeName, c.version)
	if md.DataPointCount() == 0 {
		return nil
	}
	return c.next.ConsumeMetrics(ctx, md)
}
