package warehouseexporter

import (
	"errors"
	"fmt"
	"time"

	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/config/configoptional"
	"go.opentelemetry.io/collector/config/configretry"
	"go.opentelemetry.io/collector/exporter/exporterhelper"

	"github.com/evalcol/evalcol/internal/spanconv"
)

// Config is the configuration of the warehouse exporter.
type Config struct {
	// API is the id of the evalapi extension that owns the warehouse.
	API component.ID `mapstructure:"api"`
	// DefaultEnvironment is the environment of unauthenticated data whose
	// resource has neither deployment.environment.name nor
	// deployment.environment.
	DefaultEnvironment string `mapstructure:"default_environment"`
	// RedactContent drops ("drop") or hashes ("hash") the prompt and
	// completion text of spans before they are stored; empty keeps it.
	RedactContent string `mapstructure:"redact_content"`
	// MaxPendingMiB bounds the OTLP size of the requests waiting for their
	// commit; more is refused with a retryable error (HTTP 503 / gRPC
	// UNAVAILABLE).
	MaxPendingMiB int `mapstructure:"max_pending_mib"`
	// CommitInterval is the shortest time between the starts of two
	// commits (0: as soon as the previous one ends). ClickHouse prefers
	// fewer, larger inserts.
	CommitInterval time.Duration `mapstructure:"commit_interval"`

	TimeoutConfig exporterhelper.TimeoutConfig                             `mapstructure:",squash"`
	QueueConfig   configoptional.Optional[exporterhelper.QueueBatchConfig] `mapstructure:"sending_queue"`
	RetryConfig   configretry.BackOffConfig                                `mapstructure:"retry_on_failure"`

	// prevent unkeyed literal initialization
	_ struct{}
}

// Validate checks the configuration.
func (c *Config) Validate() error {
	var errs []error
	if c.API.Type().String() == "" {
		errs = append(errs, errors.New("api: must name the evalapi extension that owns the warehouse (e.g. api: evalapi)"))
	}
	if c.DefaultEnvironment == "" {
		errs = append(errs, errors.New("default_environment: must not be empty"))
	}
	if err := spanconv.CheckRedact(c.RedactContent); err != nil {
		errs = append(errs, fmt.Errorf("redact_content: %w", err))
	}
	if c.MaxPendingMiB <= 0 {
		errs = append(errs, fmt.Errorf("max_pending_mib: must be at least 1, got %d", c.MaxPendingMiB))
	}
	if c.CommitInterval < 0 {
		errs = append(errs, fmt.Errorf("commit_interval: must not be negative, got %s", c.CommitInterval))
	}
	if c.TimeoutConfig.Timeout <= 0 {
		errs = append(errs, fmt.Errorf("timeout: must be positive (it bounds one commit), got %s", c.TimeoutConfig.Timeout))
	}
	return errors.Join(errs...)
}
