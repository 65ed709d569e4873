// Package evalapitest starts a real evalapi extension, created by its
// factory on a temporary SQLite warehouse and a free loopback port, as the
// host of components under test that look it up by id (the evaluator
// processor and the warehouse exporter), and for the extension's own
// lifecycle tests.
package evalapitest

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"path/filepath"
	"testing"
	"time"

	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/collector/extension"
	"go.opentelemetry.io/collector/extension/extensiontest"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/evalcol/evalcol/extension/evalapiextension"
	"github.com/evalcol/evalcol/internal/warehouse"
)

// APIKey and Environment are the one key the extension accepts and the
// environment (tenant) it files under.
const (
	APIKey      = "evalapitest-key-1"
	Environment = "test"
)

// NewConfig returns a valid configuration on a free loopback port with
// the SQLite warehouse at path and the one key APIKey.
func NewConfig(path string) *evalapiextension.Config {
	cfg := evalapiextension.NewFactory().CreateDefaultConfig().(*evalapiextension.Config)
	cfg.ServerConfig.NetAddr.Endpoint = "127.0.0.1:0"
	cfg.Warehouse = evalapiextension.WarehouseConfig{Backend: "sqlite", Path: path}
	cfg.APIKeys = []evalapiextension.APIKeyConfig{{Key: APIKey, Environment: Environment, OrganizationID: "org-test"}}
	return cfg
}

// Listener reads the address an extension listens on from its log (port
// 0 picks a free one).
type Listener struct {
	logs *observer.ObservedLogs
}

// NewSettings returns extension settings with telemetry (nil: nop) whose
// logger feeds the returned Listener.
func NewSettings(telemetry *component.TelemetrySettings) (extension.Settings, *Listener) {
	set := extensiontest.NewNopSettings(evalapiextension.NewFactory().Type())
	if telemetry != nil {
		set.TelemetrySettings = *telemetry
	}
	core, logs := observer.New(zapcore.InfoLevel)
	set.Logger = zap.New(zapcore.NewTee(set.Logger.Core(), core))
	return set, &Listener{logs: logs}
}

// URL is the base URL of the /v2 API of the last start, e.g.
// http://127.0.0.1:43121; "" before a start.
func (l *Listener) URL() string {
	url := ""
	for _, e := range l.logs.FilterMessage("evalcol /v2 API listening").All() {
		if ep, ok := e.ContextMap()["endpoint"].(string); ok {
			url = "http://" + ep
		}
	}
	return url
}

// Options configure the extension Start starts.
type Options struct {
	// Telemetry is the extension's telemetry (default: nop).
	Telemetry *component.TelemetrySettings
	// SetupPollInterval is how often setups are re-read (default: the
	// extension's).
	SetupPollInterval time.Duration
}

// API is a started evalapi extension and a host that holds it.
type API struct {
	ID        component.ID
	Extension extension.Extension
	// URL is the base URL of the /v2 API, e.g. http://127.0.0.1:43121.
	URL string
}

// GetExtensions makes API a component.Host holding the extension.
func (a *API) GetExtensions() map[component.ID]component.Component {
	return map[component.ID]component.Component{a.ID: a.Extension}
}

// Warehouse is the extension's store.
func (a *API) Warehouse() warehouse.Store {
	return a.Extension.(warehouse.Provider).Warehouse()
}

// Start creates the extension with its factory, starts it and shuts it
// down when the test ends (after the cleanups the test registers later,
// so after the components using it).
func Start(t testing.TB, o Options) *API {
	t.Helper()
	f := evalapiextension.NewFactory()
	cfg := NewConfig(filepath.Join(t.TempDir(), "evalcol.db"))
	if o.SetupPollInterval > 0 {
		cfg.SetupPollInterval = o.SetupPollInterval
	}
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	set, listener := NewSettings(o.Telemetry)
	ext, err := f.Create(context.Background(), set, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := ext.Start(context.Background(), componenttest.NewNopHost()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := ext.Shutdown(context.Background()); err != nil {
			t.Errorf("shut down the evalapi extension: %v", err)
		}
	})
	api := &API{ID: component.NewID(f.Type()), Extension: ext, URL: listener.URL()}
	if api.URL == "" {
		t.Fatal("the evalapi extension did not log the address it listens on")
	}
	return api
}

// Call sends a request to url with the API key and a JSON body (nil for
// none) and returns the status and body of the answer.
func Call(t testing.TB, method, url string, body any) (int, []byte) {
	t.Helper()
	var r io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			t.Fatal(err)
		}
		r = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(context.Background(), method, url, r)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+APIKey)
	req.Header.Set("Content-Type", "application/json")
	req.Close = true // no idle connection outlives the test (goleak)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, out
}

// Call sends a request to the extension's API (see Call).
func (a *API) Call(t testing.TB, method, path string, body any) (int, []byte) {
	t.Helper()
	return Call(t, method, a.URL+path, body)
}
