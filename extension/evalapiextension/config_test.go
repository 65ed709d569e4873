package evalapiextension

import (
	"net/netip"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/confmap"
	"go.opentelemetry.io/collector/confmap/confmaptest"

	"github.com/evalcol/evalcol/extension/evalapiextension/internal/metadata"
	"github.com/evalcol/evalcol/internal/judge"
	"github.com/evalcol/evalcol/internal/pricing"
)

func TestLoadConfig(t *testing.T) {
	cm, err := confmaptest.LoadConf(filepath.Join("testdata", "config.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		id      component.ID
		check   func(t *testing.T, c *Config)
		wantErr string
	}{
		{id: component.NewID(metadata.Type), check: func(t *testing.T, c *Config) {
			if c.ServerConfig.NetAddr.Endpoint != "127.0.0.1:8080" || c.ServerConfig.MaxRequestBodySize != 1<<20 {
				t.Errorf("server defaults = %s, %d; want 127.0.0.1:8080, 1 MiB", c.ServerConfig.NetAddr.Endpoint, c.ServerConfig.MaxRequestBodySize)
			}
			// Slow clients cannot hold the API port: header, body and idle
			// bounds by default.
			var idle time.Duration
			if ka := c.ServerConfig.Keepalive.Get(); ka != nil {
				idle = ka.IdleTimeout
			}
			if c.ServerConfig.ReadHeaderTimeout != 10*time.Second || c.ServerConfig.ReadTimeout != 30*time.Second || idle != time.Minute {
				t.Errorf("server timeouts = read_header %s, read %s, idle %s; want 10s, 30s, 1m",
					c.ServerConfig.ReadHeaderTimeout, c.ServerConfig.ReadTimeout, idle)
			}
			if c.Warehouse != (WarehouseConfig{Backend: "sqlite", Path: "./data/evalcol.db", IntegrityCheck: true, SearchIndex: true}) {
				t.Errorf("warehouse default = %+v", c.Warehouse)
			}
			if c.MaxSetupBytesPerEnvironment != 8<<20 {
				t.Errorf("max_setup_bytes_per_environment default = %d, want 8 MiB", c.MaxSetupBytesPerEnvironment)
			}
			if c.SetupPollInterval != 5*time.Second || c.MaxSetupsPerEnvironment != 1000 {
				t.Errorf("setup_poll_interval default = %s, max_setups_per_environment %d; want 5s, 1000", c.SetupPollInterval, c.MaxSetupsPerEnvironment)
			}
			if len(c.APIKeys) != 1 || c.APIKeys[0].Key != "secret-key-1" || c.APIKeys[0].Environment != "production" {
				t.Errorf("api_keys = %+v", c.APIKeys)
			}
			if c.UI != (UIConfig{Enabled: true, SessionTTL: 12 * time.Hour}) {
				t.Errorf("ui default = %+v, want enabled with a 12h session", c.UI)
			}
		}},
		{id: component.NewIDWithName(metadata.Type, "ui"), check: func(t *testing.T, c *Config) {
			if c.UI != (UIConfig{Enabled: false, SessionTTL: 30 * time.Minute, SessionSecret: "0123456789abcdef0123456789abcdef"}) {
				t.Errorf("ui = %+v", c.UI)
			}
		}},
		{id: component.NewIDWithName(metadata.Type, "trusted_proxies"), check: func(t *testing.T, c *Config) {
			got, err := c.trustedProxies()
			want := []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8"), netip.MustParsePrefix("127.0.0.1/32"),
				netip.MustParsePrefix("::1/128"), netip.MustParsePrefix("fd00::/8")}
			if err != nil || !slices.Equal(got, want) {
				t.Errorf("trusted_proxies = %v, %v; want %v", got, err, want)
			}
		}},
		{id: component.NewIDWithName(metadata.Type, "trusted_proxies_bad"),
			wantErr: `trusted_proxies[1]: "proxy.example" is not a CIDR (10.0.0.0/8) or an IP address`},
		{id: component.NewIDWithName(metadata.Type, "ui_short_secret"), wantErr: "ui.session_secret: must be at least 32 characters, got 9"},
		{id: component.NewIDWithName(metadata.Type, "ui_bad_ttl"), wantErr: "ui.session_ttl: must be between 1s and 720h0m0s, got 0s"},
		{id: component.NewIDWithName(metadata.Type, "ui_unknown_field"), wantErr: "ui: unknown field(s) enable (valid fields: enabled, session_secret, session_ttl)"},
		{id: component.NewIDWithName(metadata.Type, "evaluator_limits"), check: func(t *testing.T, c *Config) {
			want := EvaluatorLimitsConfig{MaxConcurrentPerKey: 4, TimePerSecond: 500 * time.Millisecond, Burst: 2 * time.Second, MaxWait: 250 * time.Millisecond}
			if c.EvaluatorLimits != want {
				t.Errorf("evaluator_limits = %+v, want %+v", c.EvaluatorLimits, want)
			}
			if c.Warehouse.IntegrityCheck || c.Warehouse.SearchIndex {
				t.Errorf("warehouse.integrity_check and search_index: false were not read: %+v", c.Warehouse)
			}
		}},
		{id: component.NewIDWithName(metadata.Type, "evaluator_limits_unknown_field"),
			wantErr: "evaluator_limits: unknown field(s) max_concurent_per_key (valid fields: burst, max_concurrent_per_key, max_wait, time_per_second)"},
		{id: component.NewIDWithName(metadata.Type, "evaluator_limits_negative"),
			wantErr: "evaluator_limits: values must not be negative (0 disables a limit), got max_concurrent_per_key 2, time_per_second 200ms, burst 1s, max_wait -1s"},
		{id: component.NewIDWithName(metadata.Type, "evaluator_limits_too_much_time"),
			wantErr: "evaluator_limits.time_per_second: at most 1s (the evaluation time of one second), got 2s; set 0 to disable the limit"},
		{id: component.NewIDWithName(metadata.Type, "full"), check: func(t *testing.T, c *Config) {
			if c.ServerConfig.NetAddr.Endpoint != "0.0.0.0:9090" || c.ServerConfig.MaxRequestBodySize != 2<<20 || c.ServerConfig.ReadTimeout != 5*time.Second {
				t.Errorf("server = %+v", c.ServerConfig)
			}
			if c.Warehouse.Path != "/var/lib/evalcol/evalcol.db" || c.SetupPollInterval != 2*time.Second || c.OTLPProxyEndpoint != "http://127.0.0.1:4318" {
				t.Errorf("warehouse %+v, poll %s", c.Warehouse, c.SetupPollInterval)
			}
			if want := (RetentionConfig{Spans: 720 * time.Hour, MetricPoints: 2160 * time.Hour, Interval: 5 * time.Minute}); c.Warehouse.Retention != want {
				t.Errorf("retention = %+v, want %+v", c.Warehouse.Retention, want)
			}
			want := []APIKeyConfig{
				{Key: "secret-key-1", Environment: "production", OrganizationID: "acme", ProjectID: "web"},
				{Key: "secret-key-2", Environment: "staging", OrganizationID: "acme", ProjectID: "web"},
				{Key: "admin-key-3", Environment: "ops", Role: "admin"},
			}
			if len(c.APIKeys) != 3 || c.APIKeys[0] != want[0] || c.APIKeys[1] != want[1] || c.APIKeys[2] != want[2] {
				t.Errorf("api_keys = %+v, want %+v", c.APIKeys, want)
			}
			if c.MaxSetupsPerEnvironment != 50 {
				t.Errorf("max_setups_per_environment = %d, want 50", c.MaxSetupsPerEnvironment)
			}
		}},
		{id: component.NewIDWithName(metadata.Type, "clickhouse"), check: func(t *testing.T, c *Config) {
			w := c.Warehouse
			if w.Backend != "clickhouse" || w.Endpoint != "10.0.0.5:9000,10.0.0.6:9000" || w.Database != "evalcol_prod" ||
				w.Username != "evalcol" || w.Password != "s3cret" || w.Cluster != "main" {
				t.Errorf("warehouse = %+v", w)
			}
		}},
		{id: component.NewIDWithName(metadata.Type, "clickhouse_no_endpoint"), wantErr: "warehouse.endpoint: must be set for the clickhouse backend"},
		{id: component.NewIDWithName(metadata.Type, "clickhouse_search_index"), wantErr: "warehouse.search_index: applies to the sqlite backend only"},
		{id: component.NewIDWithName(metadata.Type, "no_keys"), wantErr: "api_keys: at least one API key is required"},
		{id: component.NewIDWithName(metadata.Type, "empty_key"), wantErr: "api_keys[0].key: must not be empty"},
		{id: component.NewIDWithName(metadata.Type, "short_key"), wantErr: "api_keys[0].key: must be at least 8 characters"},
		{id: component.NewIDWithName(metadata.Type, "duplicate_key"), wantErr: "api_keys[1].key: same key as api_keys[0]"},
		{id: component.NewIDWithName(metadata.Type, "no_environment"), wantErr: "api_keys[0].environment: must not be empty"},
		{id: component.NewIDWithName(metadata.Type, "bad_backend"), wantErr: `warehouse.backend: unknown backend "postgres"`},
		{id: component.NewIDWithName(metadata.Type, "empty_path"), wantErr: "warehouse.path: must not be empty"},
		{id: component.NewIDWithName(metadata.Type, "empty_endpoint"), wantErr: "endpoint: must not be empty"},
		{id: component.NewIDWithName(metadata.Type, "negative_poll"), wantErr: "setup_poll_interval: must not be negative"},
		{id: component.NewIDWithName(metadata.Type, "unknown_field"), wantErr: "api_keyz"},
		{id: component.NewIDWithName(metadata.Type, "key_typo"), wantErr: "api_keys[1]: unknown field(s) enviroment (valid fields: environment, key, organization_id, project_id, role)"},
		{id: component.NewIDWithName(metadata.Type, "warehouse_typo"), wantErr: "warehouse: unknown field(s) bakend"},
		{id: component.NewIDWithName(metadata.Type, "bad_role"), wantErr: `api_keys[0].role: "root" is not a role`},
		{id: component.NewIDWithName(metadata.Type, "zero_setups"), wantErr: "max_setups_per_environment: must be at least 1, got 0"},
		{id: component.NewIDWithName(metadata.Type, "tiny_setup_bytes"), wantErr: "max_setup_bytes_per_environment: must be at least 65536 (64 KiB), got 1000"},
		{id: component.NewIDWithName(metadata.Type, "bad_proxy"), wantErr: `otlp_proxy_endpoint: "127.0.0.1:4318" is not an http(s) URL`},
		{id: component.NewIDWithName(metadata.Type, "short_retention"), wantErr: "warehouse.retention.spans: must be 0 (keep forever) or at least 1m0s, got 30s"},
		{id: component.NewIDWithName(metadata.Type, "negative_retention_interval"), wantErr: "warehouse.retention.interval: must not be negative, got -1s"},
		{id: component.NewIDWithName(metadata.Type, "unknown_retention_field"), wantErr: "span"},
		{id: component.NewIDWithName(metadata.Type, "judge"), check: func(t *testing.T, c *Config) {
			got := c.Judge.judgeProviders(func(string) string { return "from-the-environment" })
			want := []judge.ProviderConfig{
				{Name: "azure", Type: "openai", BaseURL: "https://acme.openai.azure.com/openai/v1", MaxRetries: 2, Headers: map[string]string{"api-key": "azure-secret"}},
				{Name: "claude", Type: "anthropic", APIKey: "sk-ant-test", MaxRetries: 2, MaxRetryWait: 30 * time.Second, MaxResponseBytes: 65536},
				{Name: "local", Type: "openai", BaseURL: "http://localhost:11434/v1", MaxConcurrency: 2, Timeout: 90 * time.Second},
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("providers = %+v, want %+v (the YAML's only, not the environment's)", got, want)
			}
		}},
		{id: component.NewIDWithName(metadata.Type, "judge_bad"), wantErr: "judge.providers.Local: the name must match"},
		{id: component.NewIDWithName(metadata.Type, "judge_bad"), wantErr: `judge.providers.Local.type: unknown type "gemini"`},
		{id: component.NewIDWithName(metadata.Type, "judge_bad"), wantErr: `judge.providers.Local.base_url: "localhost:11434" is not an http(s) URL`},
		{id: component.NewIDWithName(metadata.Type, "judge_bad"), wantErr: "judge.providers.Local.timeout: must be between 0 (default 60s) and 10m0s, got -1s"},
		{id: component.NewIDWithName(metadata.Type, "judge_bad"), wantErr: "judge.providers.Local.max_concurrency: must be between 0 (default 4) and 1024, got -1"},
		{id: component.NewIDWithName(metadata.Type, "judge_bad"), wantErr: "judge.providers.Local.max_retries: must be between 0 and 10, got 11"},
		{id: component.NewIDWithName(metadata.Type, "judge_bad"), wantErr: `judge.providers.Local.headers: "Content-Type" is not a header name that may be set`},
		{id: component.NewIDWithName(metadata.Type, "judge_queue_bad"), wantErr: "judge.providers.local.requests_per_minute: must not be negative (0: no limit), got -5"},
		{id: component.NewIDWithName(metadata.Type, "judge_queue_bad"), wantErr: "judge.providers.local.tokens_per_minute: must not be negative (0: no limit), got -1"},
		{id: component.NewIDWithName(metadata.Type, "judge_queue_bad"), wantErr: "judge.queue.workers: must be between 0 (default 4) and 1024, got -1"},
		{id: component.NewIDWithName(metadata.Type, "judge_queue_bad"), wantErr: "judge.queue.lease: must be between 1s and 1h (0: default 2m0s), got 10ms"},
		{id: component.NewIDWithName(metadata.Type, "judge_queue_bad"), wantErr: "judge.queue.max_attempts: must be between 0 (default 5) and 100, got 101"},
		{id: component.NewIDWithName(metadata.Type, "judge_queue_bad"), wantErr: "judge.queue.span_wait: must be between 0 (default 2m0s) and 1h, got 2h0m0s"},
		{id: component.NewIDWithName(metadata.Type, "judge_queue_bad"), wantErr: "judge.budget.daily_calls_per_environment: must not be negative (0: no limit), got -1"},
		{id: component.NewIDWithName(metadata.Type, "judge_queue_bad"), wantErr: "judge.budget.daily_tokens_per_environment: must not be negative (0: no limit), got -2"},
		{id: component.NewIDWithName(metadata.Type, "pricing"), check: func(t *testing.T, c *Config) {
			tab, err := c.Pricing.priceTable()
			if err != nil {
				t.Fatal(err)
			}
			if cost, ok := tab.Cost("my-model", 2_000_000, 1_000_000); !ok || cost != 2.5 {
				t.Errorf("an added model costs %v, %v; want 2.5", cost, ok)
			}
			if p, _ := tab.Lookup("gpt-4o-2024-08-06"); p != (pricing.Price{InputPerMillion: 1, OutputPerMillion: 4}) {
				t.Errorf("an overridden model is priced %+v", p)
			}
			if _, ok := tab.Lookup("claude-3-5-haiku"); !ok {
				t.Error("the shipped prices are gone")
			}
		}},
		{id: component.NewIDWithName(metadata.Type, "pricing_negative"), wantErr: "pricing.models: my-model: input_per_million: must not be negative, got -0.5"},
		{id: component.NewIDWithName(metadata.Type, "pricing_unknown_field"),
			wantErr: "pricing.models.my-model: unknown field(s) input (valid fields: input_per_million, output_per_million)"},
		{id: component.NewIDWithName(metadata.Type, "judge_unknown_field"),
			wantErr: "judge.providers.local: unknown field(s) base_ur (valid fields: api_key, base_url, headers, max_concurrency, max_response_bytes, max_retries, max_retry_wait, requests_per_minute, timeout, tokens_per_minute, type)"},
	}
	for _, tt := range tests {
		t.Run(tt.id.String(), func(t *testing.T) {
			cfg := NewFactory().CreateDefaultConfig()
			sub, err := cm.Sub(tt.id.String())
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

// TestJudgeProvidersFromEnvironment: without judge.providers, openai and
// anthropic come from the environment variables the official SDKs read.
func TestJudgeProvidersFromEnvironment(t *testing.T) {
	env := map[string]string{"OPENAI_BASE_URL": "http://127.0.0.1:8000/v1", "OPENAI_API_KEY": "sk-1", "ANTHROPIC_API_KEY": "sk-ant"}
	got := JudgeConfig{}.judgeProviders(func(k string) string { return env[k] })
	want := []judge.ProviderConfig{
		{Name: "openai", Type: "openai", BaseURL: "http://127.0.0.1:8000/v1", APIKey: "sk-1", MaxRetries: 2},
		{Name: "anthropic", Type: "anthropic", APIKey: "sk-ant", MaxRetries: 2},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("providers = %+v, want %+v", got, want)
	}
	if got := (JudgeConfig{}).judgeProviders(func(string) string { return "" }); len(got) != 0 {
		t.Errorf("no environment: %+v, want none", got)
	}
}
