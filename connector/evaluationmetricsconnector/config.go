package evaluationmetricsconnector

import (
	"errors"
	"fmt"
	"math"
	"time"

	"go.opentelemetry.io/collector/component"

	"github.com/evalcol/evalcol/connector/evaluationmetricsconnector/internal/aggregate"
)

// Config is the configuration of the evaluationmetrics connector.
type Config struct {
	// Dimensions are the attributes of the metrics besides the evaluator:
	// any of verdict, monitor, workflow, agent, service, environment
	// (default: all). The score histogram has no verdict.
	Dimensions []string `mapstructure:"dimensions"`
	// MaxSeries bounds the series of each metric (default 1000); the
	// evaluations of every later combination count in one series with
	// otel.metric.overflow=true.
	MaxSeries int `mapstructure:"max_series"`
	// MetricsFlushInterval is how often the cumulative metrics are sent
	// on (default 15s).
	MetricsFlushInterval time.Duration `mapstructure:"metrics_flush_interval"`
	// MetricsExpiration drops a series that no evaluation updated for this
	// long, making room for new combinations; 0 (the default) keeps every
	// series until the collector stops.
	MetricsExpiration time.Duration `mapstructure:"metrics_expiration"`
	// Histogram configures the score histogram.
	Histogram HistogramConfig `mapstructure:"histogram"`

	// prevent unkeyed literal initialization
	_ struct{}
}

// HistogramConfig configures the score histogram.
type HistogramConfig struct {
	// Buckets are the explicit bucket bounds, strictly increasing.
	Buckets []float64 `mapstructure:"buckets"`

	// prevent unkeyed literal initialization
	_ struct{}
}

var _ component.Config = (*Config)(nil)

// Validate checks the configuration: known, distinct dimensions, a
// positive max_series and metrics_flush_interval, a metrics_expiration
// that is not negative, and strictly increasing finite bucket bounds.
func (c *Config) Validate() error {
	var errs []error
	if _, err := c.dimensions(); err != nil {
		errs = append(errs, err)
	}
	if c.MaxSeries <= 0 {
		errs = append(errs, fmt.Errorf("max_series: must be positive, got %d", c.MaxSeries))
	}
	if c.MetricsFlushInterval <= 0 {
		errs = append(errs, fmt.Errorf("metrics_flush_interval: must be positive, got %s", c.MetricsFlushInterval))
	}
	if c.MetricsExpiration < 0 {
		errs = append(errs, fmt.Errorf("metrics_expiration: must not be negative, got %s", c.MetricsExpiration))
	}
	if len(c.Histogram.Buckets) == 0 {
		errs = append(errs, errors.New("histogram.buckets: must not be empty"))
	}
	for i, b := range c.Histogram.Buckets {
		if math.IsNaN(b) || math.IsInf(b, 0) {
			errs = append(errs, fmt.Errorf("histogram.buckets[%d]: must be a finite number, got %v", i, b))
		} else if i > 0 && b <= c.Histogram.Buckets[i-1] {
			errs = append(errs, fmt.Errorf("histogram.buckets[%d]: must be greater than the bound before it (%v), got %v", i, c.Histogram.Buckets[i-1], b))
		}
	}
	return errors.Join(errs...)
}

// dimensions parses Dimensions.
func (c *Config) dimensions() ([]aggregate.Dimension, error) {
	var errs []error
	dims := make([]aggregate.Dimension, 0, len(c.Dimensions))
	seen := map[string]int{}
	for i, name := range c.Dimensions {
		d, err := aggregate.ParseDimension(name)
		if err != nil {
			errs = append(errs, fmt.Errorf("dimensions[%d]: %w", i, err))
			continue
		}
		if j, dup := seen[name]; dup {
			errs = append(errs, fmt.Errorf("dimensions[%d]: %q is already dimensions[%d]", i, name, j))
			continue
		}
		seen[name] = i
		dims = append(dims, d)
	}
	return dims, errors.Join(errs...)
}
