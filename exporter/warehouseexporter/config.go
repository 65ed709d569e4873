package warehouseexporter

import (
	"errors"
	"fmt"

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
	// DefaultEnvironment is the environment of spans whose resource has
	// neither deployment.environment.name nor deployment.environment.
	DefaultEnvironment string `mapstructure:"default_environment"`
	// RedactContent drops ("drop") or hashes ("hash") the prompt and
	// completion text of spans before they are stored; empty keeps it.
	RedactContent string `mapstructure:"redact_content"`

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
	if c.TimeoutConfig.Timeout < 0 {
		errs = append(errs, fmt.Errorf("timeout: must not be negative, got %s", c.TimeoutConfig.Timeout))
	}
	return errors.Join(errs...)
}
