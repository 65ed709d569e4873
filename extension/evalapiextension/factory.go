package evalapiextension

import (
	"context"
	"time"

	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/config/confighttp"
	"go.opentelemetry.io/collector/extension"

	"github.com/evalcol/evalcol/extension/evalapiextension/internal/metadata"
	"github.com/evalcol/evalcol/extension/evalapiextension/internal/setups"
)

const (
	defaultEndpoint          = "127.0.0.1:8080"
	defaultMaxBodySize       = 1 << 20
	defaultSetupPollInterval = 5 * time.Second
	defaultSessionTTL        = 12 * time.Hour
)

// NewFactory returns the factory of the evalapi extension.
func NewFactory() extension.Factory {
	return extension.NewFactory(metadata.Type, createDefaultConfig, create, metadata.ExtensionStability)
}

func createDefaultConfig() component.Config {
	srv := confighttp.NewDefaultServerConfig()
	srv.NetAddr.Endpoint = defaultEndpoint
	srv.MaxRequestBodySize = defaultMaxBodySize
	return &Config{
		ServerConfig:                srv,
		Warehouse:                   WarehouseConfig{Backend: "sqlite", Path: "./data/evalcol.db", IntegrityCheck: true},
		SetupPollInterval:           defaultSetupPollInterval,
		MaxSetupsPerEnvironment:     setups.DefaultMaxPerEnvironment,
		MaxSetupBytesPerEnvironment: setups.DefaultMaxBytesPerEnvironment,
		UI:                          UIConfig{Enabled: true, SessionTTL: defaultSessionTTL},

		OTLPProxyMaxRequestBodySize: defaultReceiverMaxBodySize,
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
