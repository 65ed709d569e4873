package evalapiextension

import (
	"context"
	"time"

	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/config/confighttp"
	"go.opentelemetry.io/collector/config/configoptional"
	"go.opentelemetry.io/collector/extension"

	"github.com/evalcol/evalcol/extension/evalapiextension/internal/metadata"
	"github.com/evalcol/evalcol/extension/evalapiextension/internal/otlpproxy"
	"github.com/evalcol/evalcol/extension/evalapiextension/internal/setups"
)

const (
	defaultEndpoint          = "127.0.0.1:8080"
	defaultMaxBodySize       = 1 << 20
	defaultSetupPollInterval = 5 * time.Second
	defaultSessionTTL        = 12 * time.Hour

	// Slow-client bounds of the API server: a client must send its request
	// line and headers within defaultReadHeaderTimeout and its whole
	// request (the body too) within defaultReadTimeout, or the connection
	// is closed; an idle keep-alive connection is closed after
	// defaultIdleTimeout. Without them a client dribbling header lines or
	// body bytes holds a connection (and its goroutine) for as long as it
	// likes, login page included. Configurable as read_header_timeout,
	// read_timeout and keepalive.idle_timeout.
	defaultReadHeaderTimeout = 10 * time.Second
	defaultReadTimeout       = 30 * time.Second
	defaultIdleTimeout       = 60 * time.Second
)

// NewFactory returns the factory of the evalapi extension.
func NewFactory() extension.Factory {
	return extension.NewFactory(metadata.Type, createDefaultConfig, create, metadata.ExtensionStability)
}

func createDefaultConfig() component.Config {
	srv := confighttp.NewDefaultServerConfig()
	srv.NetAddr.Endpoint = defaultEndpoint
	srv.MaxRequestBodySize = defaultMaxBodySize
	srv.ReadHeaderTimeout = defaultReadHeaderTimeout
	srv.ReadTimeout = defaultReadTimeout
	// Keep-alives stay on (the confighttp default); idle connections
	// close after defaultIdleTimeout.
	ka := confighttp.NewDefaultKeepaliveServerConfig()
	ka.IdleTimeout = defaultIdleTimeout
	srv.Keepalive = configoptional.Some(ka)
	return &Config{
		ServerConfig:                srv,
		Warehouse:                   WarehouseConfig{Backend: "sqlite", Path: "./data/evalcol.db", IntegrityCheck: true, SearchIndex: true},
		SetupPollInterval:           defaultSetupPollInterval,
		MaxSetupsPerEnvironment:     setups.DefaultMaxPerEnvironment,
		MaxSetupBytesPerEnvironment: setups.DefaultMaxBytesPerEnvironment,
		UI:                          UIConfig{Enabled: true, SessionTTL: defaultSessionTTL},
		Alerts:                      AlertsConfig{EvaluationInterval: time.Minute},

		OTLPProxyMaxRequestBodySize: otlpproxy.DefaultReceiverMaxBodySize,
		EvaluatorLimits: EvaluatorLimitsConfig{
			MaxConcurrentPerKey: 2,
			TimePerSecond:       200 * time.Millisecond,
			Burst:               time.Second,
			MaxWait:             time.Second,
		},
	}
}

func create(_ context.Context, set extension.Settings, cfg component.Config) (extension.Extension, error) {
	return newExtension(cfg.(*Config), set), nil
}
