package evalapiextension

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"strings"
	"time"

	"go.opentelemetry.io/collector/config/confighttp"
	"go.opentelemetry.io/collector/config/configopaque"
	"go.opentelemetry.io/collector/confmap"

	"github.com/evalcol/evalcol/internal/configkeys"
	"github.com/evalcol/evalcol/internal/pricing"
)

// Config is the configuration of the evalapi extension.
type Config struct {
	// ServerConfig is the HTTP server of the /v2 API (endpoint, TLS, CORS,
	// max_request_body_size, timeouts, ...).
	ServerConfig confighttp.ServerConfig `mapstructure:",squash"`
	// Warehouse selects and configures the store.
	Warehouse WarehouseConfig `mapstructure:"warehouse"`
	// APIKeys are the keys the API and the OTLP receivers accept.
	APIKeys []APIKeyConfig `mapstructure:"api_keys"`
	// OTLPProxyEndpoint, when set, is the base URL of the OTLP/HTTP
	// receiver (e.g. http://127.0.0.1:4318) to which the API server
	// forwards POST /v1/traces, /v1/metrics and /v1/logs, so that SDKs
	// with one base URL (Traceloop's TRACELOOP_BASE_URL) reach both.
	OTLPProxyEndpoint string `mapstructure:"otlp_proxy_endpoint"`
	// OTLPProxyMaxRequestBodySize is the largest OTLP body forwarded, in
	// bytes; larger ones are answered 413. The proxy also never forwards
	// more than the receiver's own max_request_body_size, read from the
	// collector's configuration. Default 20 MiB (the receiver's default).
	OTLPProxyMaxRequestBodySize int64 `mapstructure:"otlp_proxy_max_request_body_size"`
	// SetupPollInterval is how often this collector syncs with the
	// warehouse: monitor setups and runtime API keys are re-read (to see
	// changes made through other collectors) and the monitoring status
	// counters are written.
	SetupPollInterval time.Duration `mapstructure:"setup_poll_interval"`
	// MaxSetupsPerEnvironment caps the auto monitor setups of one
	// environment (default 1000).
	MaxSetupsPerEnvironment int `mapstructure:"max_setups_per_environment"`
	// MaxSetupBytesPerEnvironment caps the bytes (JSON) all auto monitor
	// setups of one environment hold together (default 8 MiB).
	MaxSetupBytesPerEnvironment int64 `mapstructure:"max_setup_bytes_per_environment"`
	// UI configures the web console served under /ui/ on the API port.
	UI UIConfig `mapstructure:"ui"`
	// Alerts configures the evaluation of alert rules and the webhooks
	// they may notify.
	Alerts AlertsConfig `mapstructure:"alerts"`
	// EvaluatorLimits bound the evaluator work of each API key on the
	// execute endpoints.
	EvaluatorLimits EvaluatorLimitsConfig `mapstructure:"evaluator_limits"`
	// TrustedProxies are the networks (CIDRs, or single addresses) of the
	// reverse proxies in front of the API port. Only a request whose peer
	// address is in one of them may name the public host in
	// X-Forwarded-Host for the console's same-site check; anyone else's
	// X-Forwarded-Host is ignored. Empty (the default) trusts no one.
	TrustedProxies []string `mapstructure:"trusted_proxies"`
	// Judge configures the LLM judge providers of custom evaluators.
	Judge JudgeConfig `mapstructure:"judge"`
	// Pricing extends or overrides the shipped model prices the console
	// computes costs with (internal/pricing).
	Pricing PricingConfig `mapstructure:"pricing"`

	// prevent unkeyed literal initialization
	_ struct{}
}

// WarehouseConfig configures the store.
type WarehouseConfig struct {
	// Backend is "sqlite" (embedded, the default) or "clickhouse".
	Backend string `mapstructure:"backend"`
	// Path is the SQLite database file (backend sqlite).
	Path string `mapstructure:"path"`
	// Endpoint is the ClickHouse native-protocol address, host:port
	// (several comma-separated; backend clickhouse).
	Endpoint string `mapstructure:"endpoint"`
	// Database holds evalcol's tables (backend clickhouse; default evalcol).
	Database string `mapstructure:"database"`
	// Username and Password authenticate to ClickHouse.
	Username string              `mapstructure:"username"`
	Password configopaque.String `mapstructure:"password"`
	// Cluster, when set, creates the ClickHouse tables ON CLUSTER, as
	// Replicated tables behind Distributed ones.
	Cluster string `mapstructure:"cluster"`
	// IntegrityCheck runs PRAGMA quick_check on the SQLite file at start
	// and refuses a corrupt one (backend sqlite; default true).
	IntegrityCheck bool `mapstructure:"integrity_check"`
	// SearchIndex keeps SQLite's full-text index of prompts and
	// completions (backend sqlite; default true). Off, the writer stores
	// about 1.5-1.7x the spans per CPU-second and searches (q) are refused;
	// the spans stored meanwhile are indexed in the background once it is
	// on again.
	SearchIndex bool `mapstructure:"search_index"`
	// Retention deletes old spans and metric points (default: keep
	// everything).
	Retention RetentionConfig `mapstructure:"retention"`
}

// RetentionConfig is how long the warehouse keeps data; 0 keeps it
// forever.
type RetentionConfig struct {
	// Spans is the age (by span start time) after which spans are deleted.
	Spans time.Duration `mapstructure:"spans"`
	// MetricPoints is the age (by event time) after which metric points
	// are deleted.
	MetricPoints time.Duration `mapstructure:"metric_points"`
	// Interval is how often the pruning job runs (default 1m).
	Interval time.Duration `mapstructure:"interval"`
}

// minRetention is the shortest retention accepted: shorter ones are
// almost certainly a unit mistake (30 instead of 30d).
const minRetention = time.Minute

func (r RetentionConfig) validate() []error {
	var errs []error
	for _, d := range []struct {
		name string
		v    time.Duration
	}{{"spans", r.Spans}, {"metric_points", r.MetricPoints}} {
		if d.v != 0 && d.v < minRetention {
			errs = append(errs, fmt.Errorf("warehouse.retention.%s: must be 0 (keep forever) or at least %s, got %s (durations take a unit, e.g. 720h)", d.name, minRetention, d.v))
		}
	}
	if r.Interval < 0 {
		errs = append(errs, fmt.Errorf("warehouse.retention.interval: must not be negative, got %s", r.Interval))
	}
	return errs
}

// AlertsConfig configures alerting (/v2/alerts).
type AlertsConfig struct {
	// EvaluationInterval is the time between evaluations of the rules
	// (default 1m).
	EvaluationInterval time.Duration `mapstructure:"evaluation_interval"`
	// Webhooks are the only addresses alerts may notify, by name; rules
	// name them, so that no API call can make the collector reach an
	// address of its choosing.
	Webhooks map[string]WebhookConfig `mapstructure:"webhooks"`
	// ConsoleURL, when set, is linked from notifications (e.g.
	// https://evalcol.example.com).
	ConsoleURL string `mapstructure:"console_url"`
}

// WebhookConfig is one notification target.
type WebhookConfig struct {
	// URL is an http(s) address; a secret in it never shows in the API
	// or the console.
	URL string `mapstructure:"url"`
	// Secret signs JSON notifications (X-Evalcol-Signature).
	Secret configopaque.String `mapstructure:"secret"`
	// Format is json (default) or slack (a Slack-compatible incoming
	// webhook payload).
	Format string `mapstructure:"format"`
	// Timeout bounds one delivery attempt (default 10s).
	Timeout time.Duration `mapstructure:"timeout"`
}

func (a AlertsConfig) validate() []error {
	var errs []error
	if a.EvaluationInterval < time.Second {
		errs = append(errs, fmt.Errorf("alerts.evaluation_interval: must be at least 1s, got %s", a.EvaluationInterval))
	}
	for name, w := range a.Webhooks {
		u, err := url.Parse(w.URL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			errs = append(errs, fmt.Errorf("alerts.webhooks.%s.url: must be an http(s) URL", name))
		}
		if w.Format != "" && w.Format != "json" && w.Format != "slack" {
			errs = append(errs, fmt.Errorf("alerts.webhooks.%s.format: %q is not json or slack", name, w.Format))
		}
		if w.Timeout < 0 {
			errs = append(errs, fmt.Errorf("alerts.webhooks.%s.timeout: must not be negative", name))
		}
	}
	if a.ConsoleURL != "" {
		if u, err := url.Parse(a.ConsoleURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			errs = append(errs, fmt.Errorf("alerts.console_url: %q is not an http(s) URL", a.ConsoleURL))
		}
	}
	return errs
}

// UIConfig configures the web console.
type UIConfig struct {
	// Enabled serves the console under /ui/ (and redirects / there).
	Enabled bool `mapstructure:"enabled"`
	// SessionTTL is how long a console login lasts (default 12h).
	SessionTTL time.Duration `mapstructure:"session_ttl"`
	// SessionSecret signs session cookies. When empty, a random secret is
	// generated once and kept in the warehouse, so that sessions survive
	// restarts and every collector sharing the warehouse accepts them.
	SessionSecret configopaque.String `mapstructure:"session_secret"`
}

// Limits of the console settings.
const (
	maxSessionTTL          = 30 * 24 * time.Hour
	minSessionSecretLength = 32
)

// EvaluatorLimitsConfig bounds the evaluator work of each API key, so that
// one key's expensive calls cannot starve the others. A request over a
// limit waits up to max_wait, then gets 429 with Retry-After. 0 disables a
// limit.
type EvaluatorLimitsConfig struct {
	// MaxConcurrentPerKey bounds the evaluations of one key running at
	// once.
	MaxConcurrentPerKey int `mapstructure:"max_concurrent_per_key"`
	// TimePerSecond is the evaluation time one key may use per second on
	// average (a token bucket's refill rate).
	TimePerSecond time.Duration `mapstructure:"time_per_second"`
	// Burst is the evaluation time a key may use at once after being idle.
	Burst time.Duration `mapstructure:"burst"`
	// MaxWait is how long a request over a limit waits for capacity.
	MaxWait time.Duration `mapstructure:"max_wait"`
}

// APIKeyConfig is one API key and the tenant it grants access to.
type APIKeyConfig struct {
	Key            configopaque.String `mapstructure:"key"`
	Environment    string              `mapstructure:"environment"`
	OrganizationID string              `mapstructure:"organization_id"`
	ProjectID      string              `mapstructure:"project_id"`
	// Role is "" (a tenant key) or "admin": an admin key also manages
	// organizations and their keys (/v2/organizations).
	Role string `mapstructure:"role"`
}

// trustedProxies parses TrustedProxies: CIDRs (10.0.0.0/8) or single
// addresses (127.0.0.1, a /32 or /128).
func (c *Config) trustedProxies() ([]netip.Prefix, error) {
	out := make([]netip.Prefix, 0, len(c.TrustedProxies))
	for i, s := range c.TrustedProxies {
		s = strings.TrimSpace(s)
		p, err := netip.ParsePrefix(s)
		if err != nil {
			a, aerr := netip.ParseAddr(s)
			if aerr != nil {
				return nil, fmt.Errorf("trusted_proxies[%d]: %q is not a CIDR (10.0.0.0/8) or an IP address", i, c.TrustedProxies[i])
			}
			p = netip.PrefixFrom(a.Unmap(), a.Unmap().BitLen())
		}
		out = append(out, p.Masked())
	}
	return out, nil
}

// RoleAdmin is the role of keys that manage organizations.
const RoleAdmin = "admin"

// Validate checks the configuration before any port is opened.
func (c *Config) Validate() error {
	var errs []error
	if c.ServerConfig.NetAddr.Endpoint == "" {
		errs = append(errs, errors.New("endpoint: must not be empty"))
	} else if c.ServerConfig.NetAddr.Transport != "unix" {
		if _, _, err := net.SplitHostPort(c.ServerConfig.NetAddr.Endpoint); err != nil {
			errs = append(errs, fmt.Errorf("endpoint: %q is not host:port", c.ServerConfig.NetAddr.Endpoint))
		}
	}
	if c.ServerConfig.MaxRequestBodySize < 0 {
		errs = append(errs, fmt.Errorf("max_request_body_size: must not be negative, got %d", c.ServerConfig.MaxRequestBodySize))
	}
	switch c.Warehouse.Backend {
	case "sqlite":
		if c.Warehouse.Path == "" {
			errs = append(errs, errors.New("warehouse.path: must not be empty for the sqlite backend"))
		}
	case "clickhouse":
		if !c.Warehouse.SearchIndex {
			errs = append(errs, errors.New("warehouse.search_index: applies to the sqlite backend only (ClickHouse searches without an index)"))
		}
		if c.Warehouse.Endpoint == "" {
			errs = append(errs, errors.New("warehouse.endpoint: must be set for the clickhouse backend (host:port of the native protocol, e.g. 127.0.0.1:9000)"))
		}
		for _, ep := range strings.Split(c.Warehouse.Endpoint, ",") {
			if _, _, err := net.SplitHostPort(strings.TrimSpace(ep)); c.Warehouse.Endpoint != "" && err != nil {
				errs = append(errs, fmt.Errorf("warehouse.endpoint: %q is not host:port", ep))
			}
		}
	case "":
		errs = append(errs, errors.New("warehouse.backend: must be set (sqlite or clickhouse)"))
	default:
		errs = append(errs, fmt.Errorf("warehouse.backend: unknown backend %q (supported: sqlite, clickhouse)", c.Warehouse.Backend))
	}
	errs = append(errs, c.Warehouse.Retention.validate()...)
	errs = append(errs, c.Alerts.validate()...)
	errs = append(errs, c.Judge.validate()...)
	if err := pricing.ValidateModels(c.Pricing.prices()); err != nil {
		errs = append(errs, fmt.Errorf("pricing.models: %w", err))
	}
	if len(c.APIKeys) == 0 {
		errs = append(errs, errors.New("api_keys: at least one API key is required"))
	}
	seen := map[configopaque.String]int{}
	for i, k := range c.APIKeys {
		switch {
		case k.Key == "":
			errs = append(errs, fmt.Errorf("api_keys[%d].key: must not be empty (is the environment variable it reads set?)", i))
		case len(k.Key) < 8:
			errs = append(errs, fmt.Errorf("api_keys[%d].key: must be at least 8 characters", i))
		}
		if j, dup := seen[k.Key]; dup && k.Key != "" {
			errs = append(errs, fmt.Errorf("api_keys[%d].key: same key as api_keys[%d]", i, j))
		}
		seen[k.Key] = i
		if k.Environment == "" {
			errs = append(errs, fmt.Errorf("api_keys[%d].environment: must not be empty", i))
		}
		if k.Role != "" && k.Role != RoleAdmin {
			errs = append(errs, fmt.Errorf("api_keys[%d].role: %q is not a role (use admin, or leave it out for a tenant key)", i, k.Role))
		}
	}
	if c.OTLPProxyEndpoint != "" {
		u, err := url.Parse(c.OTLPProxyEndpoint)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			errs = append(errs, fmt.Errorf("otlp_proxy_endpoint: %q is not an http(s) URL such as http://127.0.0.1:4318", c.OTLPProxyEndpoint))
		}
	}
	if _, err := c.trustedProxies(); err != nil {
		errs = append(errs, err)
	}
	if c.OTLPProxyMaxRequestBodySize < 0 {
		errs = append(errs, fmt.Errorf("otlp_proxy_max_request_body_size: must not be negative, got %d", c.OTLPProxyMaxRequestBodySize))
	}
	if l := c.EvaluatorLimits; l.MaxConcurrentPerKey < 0 || l.TimePerSecond < 0 || l.Burst < 0 || l.MaxWait < 0 {
		errs = append(errs, fmt.Errorf("evaluator_limits: values must not be negative (0 disables a limit), got max_concurrent_per_key %d, time_per_second %s, burst %s, max_wait %s",
			l.MaxConcurrentPerKey, l.TimePerSecond, l.Burst, l.MaxWait))
	} else if l.TimePerSecond > time.Second {
		errs = append(errs, fmt.Errorf("evaluator_limits.time_per_second: at most 1s (the evaluation time of one second), got %s; set 0 to disable the limit", l.TimePerSecond))
	} else if l.TimePerSecond > 0 && l.Burst > 0 && l.Burst < l.TimePerSecond {
		errs = append(errs, fmt.Errorf("evaluator_limits.burst: must be at least time_per_second (%s), got %s", l.TimePerSecond, l.Burst))
	}
	if c.SetupPollInterval < 0 {
		errs = append(errs, fmt.Errorf("setup_poll_interval: must not be negative, got %s", c.SetupPollInterval))
	}
	if c.MaxSetupBytesPerEnvironment < 64<<10 {
		errs = append(errs, fmt.Errorf("max_setup_bytes_per_environment: must be at least 65536 (64 KiB), got %d", c.MaxSetupBytesPerEnvironment))
	}
	if c.MaxSetupsPerEnvironment < 1 {
		errs = append(errs, fmt.Errorf("max_setups_per_environment: must be at least 1, got %d", c.MaxSetupsPerEnvironment))
	}
	if c.UI.SessionTTL <= 0 || c.UI.SessionTTL > maxSessionTTL {
		errs = append(errs, fmt.Errorf("ui.session_ttl: must be between 1s and %s, got %s (e.g. 12h)", maxSessionTTL, c.UI.SessionTTL))
	}
	if n := len(c.UI.SessionSecret); n > 0 && n < minSessionSecretLength {
		errs = append(errs, fmt.Errorf("ui.session_secret: must be at least %d characters, got %d (generate one with: openssl rand -hex 32), or leave it empty to keep a generated secret in the warehouse", minSessionSecretLength, n))
	}
	return errors.Join(errs...)
}

// Unmarshal decodes the configuration, rejecting unknown fields (the
// squashed HTTP server settings would otherwise let a typo pass).
func (c *Config) Unmarshal(conf *confmap.Conf) error {
	if err := configkeys.Check(conf, c); err != nil {
		return err
	}
	return conf.Unmarshal(c)
}

// PricingConfig extends the shipped price table (internal/pricing's
// prices.yaml: list prices of common OpenAI, Anthropic, Google, Mistral
// and Meta models, dated) with the operator's own.
type PricingConfig struct {
	// Models prices models by name (matched case-insensitively, as the
	// shipped names are); a name of the shipped table overrides its
	// price.
	Models map[string]ModelPriceConfig `mapstructure:"models"`
}

// ModelPriceConfig is one model's price in USD per million tokens.
type ModelPriceConfig struct {
	InputPerMillion  float64 `mapstructure:"input_per_million"`
	OutputPerMillion float64 `mapstructure:"output_per_million"`
}

// prices is the operator's prices in pricing's form.
func (p PricingConfig) prices() map[string]pricing.Price {
	out := make(map[string]pricing.Price, len(p.Models))
	for k, m := range p.Models {
		out[k] = pricing.Price{InputPerMillion: m.InputPerMillion, OutputPerMillion: m.OutputPerMillion}
	}
	return out
}

// priceTable is the shipped table with the operator's prices.
func (p PricingConfig) priceTable() (*pricing.Table, error) {
	t, err := pricing.Default()
	if err != nil {
		return nil, err
	}
	return t.With(p.prices()), nil
}
