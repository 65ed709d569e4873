package main

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evalcol/evalcol/internal/warehouse"
	"github.com/evalcol/evalcol/internal/warehouse/sqlite"
)

// writeConfig writes yaml to a file and returns its path.
func writeConfig(t *testing.T, yaml string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "config.yaml")
	if err := os.WriteFile(path, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

const validConfig = `
extensions:
  evalapi:
    endpoint: {{API}}
    warehouse: {backend: sqlite, path: {{DIR}}/w.db}
    api_keys:
      - key: ${env:EVALCOL_TEST_KEY:-a-valid-key}
        environment: production
receivers:
  otlp:
    protocols:
      http: {endpoint: {{OTLP}}, auth: {authenticator: evalapi}}
processors:
  evaluator:
    monitors: [{name: m, evaluators: [char-count]}]
exporters:
  warehouse: {api: evalapi}
service:
  telemetry: {metrics: {level: none}} # 127.0.0.1:8888 may be another collector's
  extensions: [evalapi]
  pipelines:
    traces: {receivers: [otlp], processors: [evaluator], exporters: [warehouse]}
`

func TestInvalidConfigExitsWithOneLine(t *testing.T) {
	tests := []struct {
		name, from, to, env, want string
	}{
		{"unknown field", "warehouse: {backend", "wharehouse: {backend", "", "wharehouse"},
		{"bad endpoint", "endpoint: {{API}}", "endpoint: not-a-host-port", "", "endpoint: \"not-a-host-port\" is not host:port"},
		{"missing API key", "", "", "unset", "api_keys[0].key: must not be empty"},
		{"unknown evaluator slug", "evaluators: [char-count]", "evaluators: [char-cuont]", "", "char-cuont"},
		{"unknown processor", "processors: [evaluator]", "processors: [evaluatr]", "", "evaluatr"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			api, otlp := reserve(t), reserve(t)
			cfg := strings.NewReplacer("{{API}}", api.Addr().String(), "{{OTLP}}", otlp.Addr().String(), "{{DIR}}", t.TempDir()).Replace(validConfig)
			if tt.from != "" {
				from := strings.NewReplacer("{{API}}", api.Addr().String(), "{{OTLP}}", otlp.Addr().String()).Replace(tt.from)
				if !strings.Contains(cfg, from) {
					t.Fatalf("test config lacks %q", from)
				}
				cfg = strings.Replace(cfg, from, tt.to, 1)
			}
			if tt.env == "unset" {
				cfg = strings.Replace(cfg, "${env:EVALCOL_TEST_KEY:-a-valid-key}", "${env:EVALCOL_TEST_KEY}", 1)
			}
			// Free the ports only now: had the collector opened one, the
			// invalid config would have got that far.
			api.Close()
			otlp.Close()
			var stderr bytes.Buffer
			code := run([]string{"--config", writeConfig(t, cfg)}, &stderr)
			if code == 0 {
				t.Fatalf("exit code 0 for an invalid config")
			}
			out := stderr.String()
			if strings.Count(out, "\n") != 1 || !strings.HasPrefix(out, "evalcol: ") {
				t.Errorf("stderr is not one line starting with 'evalcol: ': %q", out)
			}
			if !strings.Contains(out, tt.want) {
				t.Errorf("stderr %q does not name %q", out, tt.want)
			}
			for _, l := range []string{api.Addr().String()} {
				if ln, err := net.Listen("tcp", l); err != nil {
					t.Errorf("port %s still in use after the failed start: %v", l, err)
				} else {
					ln.Close()
				}
			}
		})
	}
}

func TestVersion(t *testing.T) {
	var stderr bytes.Buffer
	old := os.Stdout
	r, w, _ := os.Pipe()
	os.Stdout = w
	code := run([]string{"--version"}, &stderr)
	w.Close()
	os.Stdout = old
	var out bytes.Buffer
	_, _ = out.ReadFrom(r)
	if code != 0 || !strings.Contains(out.String(), "evalcol version "+version) {
		t.Fatalf("--version: code %d, stdout %q, stderr %q", code, out.String(), stderr.String())
	}
}

func reserve(t *testing.T) net.Listener {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// TestPipelineThatWouldMisfileRefusesToStart: a receiver authenticating
// with evalapi, and a batch processor (which drops each request's API key)
// without a tenant processor before the warehouse exporter, would file
// every span under the default environment; the collector refuses to
// start, in one line naming the fix, and frees its ports.
func TestPipelineThatWouldMisfileRefusesToStart(t *testing.T) {
	api, otlp := reserve(t), reserve(t)
	cfg := strings.NewReplacer("{{API}}", api.Addr().String(), "{{OTLP}}", otlp.Addr().String(), "{{DIR}}", t.TempDir()).Replace(`
extensions:
  evalapi:
    endpoint: {{API}}
    warehouse: {backend: sqlite, path: {{DIR}}/w.db}
    api_keys: [{key: a-valid-key, environment: production}]
receivers:
  otlp:
    protocols:
      http: {endpoint: {{OTLP}}, auth: {authenticator: evalapi}}
processors:
  batch: {}
exporters:
  warehouse: {api: evalapi, sending_queue: {enabled: true}}
service:
  telemetry: {metrics: {level: none}}
  extensions: [evalapi]
  pipelines:
    traces: {receivers: [otlp], processors: [batch], exporters: [warehouse]}
`)
	api.Close()
	otlp.Close()
	var stderr bytes.Buffer
	if code := run([]string{"--config", writeConfig(t, cfg)}, &stderr); code == 0 {
		t.Fatal("exit code 0 for a pipeline that files every span under the default environment")
	}
	out := stderr.String()
	if strings.Count(out, "\n") != 1 || !strings.HasPrefix(out, "evalcol: ") {
		t.Errorf("stderr is not one line starting with 'evalcol: ': %q", out)
	}
	for _, want := range []string{`service::pipelines::traces: receiver "otlp" authenticates with "evalapi"`,
		`add the tenant processor before "batch"`} {
		if !strings.Contains(out, want) {
			t.Errorf("stderr %q does not say %q", out, want)
		}
	}
	for _, l := range []string{api.Addr().String(), otlp.Addr().String()} {
		if ln, err := net.Listen("tcp", l); err != nil {
			t.Errorf("port %s still in use after the failed start: %v", l, err)
		} else {
			ln.Close()
		}
	}
}

// TestCorruptWarehouseRefusesToStart: a SQLite warehouse with corrupted
// pages stops the collector at start with one line saying so and what to
// do, instead of starting and failing queries and writes later.
func TestCorruptWarehouseRefusesToStart(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "w.db")
	ctx := context.Background()
	st, err := sqlite.Open(ctx, db, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 5000; i += 500 {
		spans := make([]warehouse.Span, 500)
		for j := range spans {
			n := i + j
			spans[j] = warehouse.Span{Environment: "production", Timestamp: int64(n), TraceID: fmt.Sprintf("%032x", n),
				SpanID: fmt.Sprintf("%016x", n), SpanAttributes: map[string]string{"text": strings.Repeat(fmt.Sprint(n), 50)}}
		}
		if err := st.WriteSpans(ctx, spans); err != nil {
			t.Fatal(err)
		}
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(db, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	info, _ := f.Stat()
	for off := int64(8 * 16384); off+16384 <= info.Size(); off += 2 * 16384 {
		if _, err := f.WriteAt(bytes.Repeat([]byte{0xde, 0xad}, 8192), off); err != nil {
			t.Fatal(err)
		}
	}
	f.Close()

	api, otlp := reserve(t), reserve(t)
	cfg := strings.NewReplacer("{{API}}", api.Addr().String(), "{{OTLP}}", otlp.Addr().String(), "{{DIR}}", dir).Replace(validConfig)
	api.Close()
	otlp.Close()
	var stderr bytes.Buffer
	if code := run([]string{"--config", writeConfig(t, cfg)}, &stderr); code == 0 {
		t.Fatal("exit code 0 on a corrupt warehouse")
	}
	out := stderr.String()
	for _, want := range []string{"evalcol: ", "refusing to start on " + db, "sqlite warehouse file is corrupt", "PRAGMA quick_check found",
		"restore the file from a backup, or move it away to start with an empty warehouse"} {
		if !strings.Contains(out, want) {
			t.Errorf("stderr %q does not contain %q", out, want)
		}
	}
	if strings.Count(out, "\n") != 1 {
		t.Errorf("stderr is not one line: %q", out)
	}
}

// TestExamplesValidate: every shipped example configuration is valid.
func TestExamplesValidate(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "..", "examples", "*.yaml"))
	if err != nil || len(files) < 3 {
		t.Fatalf("examples: %v, %v", files, err)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			var stderr bytes.Buffer
			if code := run([]string{"validate", "--config", f}, &stderr); code != 0 {
				t.Errorf("validate %s: exit %d: %s", f, code, stderr.String())
			}
		})
	}
}
