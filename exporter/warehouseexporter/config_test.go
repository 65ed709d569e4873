package warehouseexporter

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/confmap"
	"go.opentelemetry.io/collector/confmap/confmaptest"

	"github.com/evalcol/evalcol/exporter/warehouseexporter/internal/metadata"
)

func TestLoadConfig(t *testing.T) {
	cm, err := confmaptest.LoadConf(filepath.Join("testdata", "config.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		check   func(t *testing.T, c *Config)
		wantErr string
	}{
		{name: "", check: func(t *testing.T, c *Config) {
			if c.API != component.MustNewID("evalapi") || c.DefaultEnvironment != "default" {
				t.Errorf("defaults: api %s, default_environment %q", c.API, c.DefaultEnvironment)
			}
			// No queue and no retries by default: the OTLP answer follows
			// the commit, and a refusal reaches the sender.
			if c.QueueConfig.HasValue() || c.RetryConfig.Enabled || c.TimeoutConfig.Timeout != 5*time.Second || c.MaxPendingMiB != 32 {
				t.Errorf("defaults: queue %v, retry %v, timeout %s, max_pending_mib %d", c.QueueConfig.HasValue(), c.RetryConfig.Enabled, c.TimeoutConfig.Timeout, c.MaxPendingMiB)
			}
		}},
		{name: "full", check: func(t *testing.T, c *Config) {
			if c.API != component.MustNewIDWithName("evalapi", "team") || c.DefaultEnvironment != "staging" || c.TimeoutConfig.Timeout != 10*time.Second ||
				c.RedactContent != "hash" {
				t.Errorf("got %+v", c)
			}
			q := c.QueueConfig.Get()
			if q == nil || q.NumConsumers != 4 || q.QueueSize != 500 {
				t.Errorf("sending_queue = %+v", q)
			}
			if c.MaxPendingMiB != 8 || c.CommitInterval != 250*time.Millisecond {
				t.Errorf("max_pending_mib = %d, commit_interval = %s; want 8, 250ms", c.MaxPendingMiB, c.CommitInterval)
			}
			if !c.RetryConfig.Enabled || c.RetryConfig.InitialInterval != time.Second || c.RetryConfig.MaxElapsedTime != 2*time.Minute {
				t.Errorf("retry_on_failure = %+v", c.RetryConfig)
			}
		}},
		{name: "empty_environment", wantErr: "default_environment: must not be empty"},
		{name: "negative_timeout", wantErr: "timeout: must be positive (it bounds one commit), got -1s"},
		{name: "negative_interval", wantErr: "commit_interval: must not be negative, got -1s"},
		{name: "zero_pending", wantErr: "max_pending_mib: must be at least 1, got 0"},
		{name: "bad_api", wantErr: `'api' in "valid id" id: invalid character(s)`},
		{name: "unknown_field", wantErr: "endpoint"},
		{name: "bad_redact", wantErr: `redact_content: "mask" is not one of drop, hash (or empty: keep the text)`},
	}
	for _, tt := range tests {
		id := component.NewIDWithName(metadata.Type, tt.name)
		t.Run(id.String(), func(t *testing.T) {
			cfg := NewFactory().CreateDefaultConfig()
			sub, err := cm.Sub(id.String())
			if err != nil {
				t.Fatal(err)
			}
			err = sub.Unmarshal(cfg)
			if err == nil {
				err = confmap.Validate(cfg)
			}
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error = %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			tt.check(t, cfg.(*Config))
		})
	}
}
