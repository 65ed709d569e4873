package configcheck

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.opentelemetry.io/collector/confmap"
	"go.yaml.in/yaml/v3"
)

// config is a collector configuration with an authenticated OTLP receiver
// (unless auth is false), the given traces processors and warehouse
// exporter settings.
func config(t *testing.T, auth bool, processors, exporter string) *confmap.Conf {
	t.Helper()
	authLine := ""
	if auth {
		authLine = ", auth: {authenticator: evalapi}"
	}
	text := `
extensions:
  evalapi: {endpoint: 127.0.0.1:0}
receivers:
  otlp:
    protocols:
      grpc: {endpoint: 127.0.0.1:0` + authLine + `}
processors:
  batch: {}
  tenant: {}
  evaluator: {}
  memory_limiter: {}
  transform: {}
exporters:
  warehouse: ` + exporter + `
  debug: {}
service:
  extensions: [evalapi]
  pipelines:
    traces: {receivers: [otlp], processors: ` + processors + `, exporters: [warehouse]}
    traces/debug: {receivers: [otlp], processors: [batch], exporters: [debug]}
`
	var m map[string]any
	if err := yaml.Unmarshal([]byte(text), &m); err != nil {
		t.Fatal(err)
	}
	return confmap.NewFromStringMap(m)
}

func TestCheck(t *testing.T) {
	tests := []struct {
		name       string
		auth       bool
		processors string
		exporter   string
		want       []string // substrings of the error; none: no error
	}{
		{name: "default shape", auth: true, processors: "[memory_limiter, tenant, evaluator]", exporter: "{api: evalapi}"},
		{name: "no tenant, nothing between receiver and exporter loses the key", auth: true,
			processors: "[memory_limiter, evaluator]", exporter: "{api: evalapi}"},
		{name: "unauthenticated batch with a queue", auth: false, processors: "[batch]", exporter: "{sending_queue: {num_consumers: 2}}"},
		{name: "tenant before batch, queue", auth: true, processors: "[tenant, evaluator, batch]", exporter: "{sending_queue: {enabled: true}}"},
		{name: "batch without queue", auth: false, processors: "[evaluator, batch]", exporter: "{api: evalapi}",
			want: []string{`service::pipelines::traces: processor "batch" acknowledges each request before exporter "warehouse" has stored it`,
				`remove "batch" from the pipeline`, "or enable exporters::warehouse::sending_queue"}},
		{name: "batch with the queue disabled", auth: false, processors: "[batch]", exporter: "{sending_queue: {enabled: false}}",
			want: []string{`processor "batch" acknowledges each request before`}},
		{name: "batch with a null queue", auth: false, processors: "[batch]", exporter: "{sending_queue: null}",
			want: []string{`processor "batch" acknowledges each request before`}},
		{name: "authenticated, batch, no tenant", auth: true, processors: "[memory_limiter, evaluator, batch]",
			exporter: "{sending_queue: {enabled: true}}",
			want: []string{`service::pipelines::traces: receiver "otlp" authenticates with "evalapi", but processor "batch" may not pass each request's API key on`,
				`exporter "warehouse" would file every span and point under its default_environment`,
				`add the tenant processor before "batch"`}},
		{name: "authenticated, tenant after batch", auth: true, processors: "[batch, tenant]", exporter: "{sending_queue: {}}",
			want: []string{`put the tenant processor before "batch"`}},
		{name: "authenticated, unknown processor, no tenant", auth: true, processors: "[transform]", exporter: "{api: evalapi}",
			want: []string{`processor "transform" may not pass each request's API key on`}},
		{name: "authenticated, queue, no tenant", auth: true, processors: "[evaluator]", exporter: "{sending_queue: {num_consumers: 2}}",
			want: []string{`exporter "warehouse" has a sending_queue, which may not keep each request's API key`, "add the tenant processor"}},
		{name: "authenticated, batch, no tenant, no queue: both problems", auth: true, processors: "[batch]", exporter: "{api: evalapi}",
			want: []string{`processor "batch" acknowledges each request`, `add the tenant processor before "batch"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := Check(config(t, tt.auth, tt.processors, tt.exporter))
			if len(tt.want) == 0 {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("no error, want one saying %q", tt.want)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
		})
	}
}

// TestExamplesPass: the shipped configurations start.
func TestExamplesPass(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "..", "examples", "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no example configs: %v", err)
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		if err := yaml.Unmarshal(data, &m); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if err := Check(confmap.NewFromStringMap(m)); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
}
