package telemetrytest

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
)

const scope = "example.com/sample"

// instruments records what the sample component of testdata/component
// declares, with the changes a case applies.
type emit struct {
	itemsName, itemsUnit, outcome string
	itemsFloat                    bool
	extraAttr, noAttrs            bool
	buckets                       []float64
	skipQueue                     bool
	extraMetric                   bool
}

func record(t *testing.T, e emit) *sdkmetric.ManualReader {
	t.Helper()
	reader := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	t.Cleanup(func() { _ = mp.Shutdown(context.Background()) })
	meter := mp.Meter(scope)
	ctx := context.Background()
	attrs := []attribute.KeyValue{attribute.String("outcome", e.outcome)}
	if e.extraAttr {
		attrs = append(attrs, attribute.String("tenant", "a"))
	}
	if e.noAttrs {
		attrs = nil
	}
	if e.itemsFloat {
		c, _ := meter.Float64Counter(e.itemsName, metric.WithDescription("Items seen, by outcome."), metric.WithUnit(e.itemsUnit))
		c.Add(ctx, 1, metric.WithAttributes(attrs...))
	} else {
		c, _ := meter.Int64Counter(e.itemsName, metric.WithDescription("Items seen, by outcome."), metric.WithUnit(e.itemsUnit))
		c.Add(ctx, 1, metric.WithAttributes(attrs...))
	}
	h, _ := meter.Float64Histogram("otelcol_processor_sample_duration", metric.WithDescription("Time per item."), metric.WithUnit("s"),
		metric.WithExplicitBucketBoundaries(e.buckets...))
	h.Record(ctx, 0.5)
	if !e.skipQueue {
		_, _ = meter.Int64ObservableGauge("otelcol_processor_sample_queue", metric.WithDescription("Items waiting."), metric.WithUnit("{item}"),
			metric.WithInt64Callback(func(_ context.Context, o metric.Int64Observer) error { o.Observe(3); return nil }))
	}
	if e.extraMetric {
		c, _ := meter.Int64Counter("otelcol_processor_sample_secret")
		c.Add(ctx, 1)
	}
	// The same metric under another scope (a helper's) is not the
	// component's and must be ignored.
	other, _ := mp.Meter("go.opentelemetry.io/collector/processor/processorhelper").Int64Counter("otelcol_processor_incoming_items")
	other.Add(ctx, 1)
	return reader
}

func TestCompare(t *testing.T) {
	md, err := Load(filepath.Join("testdata", "component"))
	if err != nil {
		t.Fatal(err)
	}
	good := emit{itemsName: "otelcol_processor_sample_items", itemsUnit: "{item}", outcome: "ok", buckets: []float64{0.1, 1}}
	tests := []struct {
		name    string
		change  func(*emit)
		wantErr []string
	}{
		{"as declared", func(*emit) {}, nil},
		{"undeclared metric", func(e *emit) { e.extraMetric = true },
			[]string{"otelcol_processor_sample_secret: recorded but not declared"}},
		{"declared metric not recorded", func(e *emit) { e.skipQueue = true },
			[]string{"otelcol_processor_sample_queue: declared in metadata.yaml but not recorded by the run"}},
		{"renamed metric", func(e *emit) { e.itemsName = "otelcol_processor_sample_item" }, []string{
			"otelcol_processor_sample_item: recorded but not declared",
			"otelcol_processor_sample_items: declared in metadata.yaml but not recorded"}},
		{"other unit", func(e *emit) { e.itemsUnit = "1" }, []string{`unit "1", metadata.yaml says "{item}"`}},
		{"other value type", func(e *emit) { e.itemsFloat = true }, []string{"recorded as Sum of double, metadata.yaml says Sum of int"}},
		{"undeclared attribute", func(e *emit) { e.extraAttr = true }, []string{`data point attribute "tenant" is not declared`}},
		{"declared attribute never set", func(e *emit) { e.noAttrs = true }, []string{`declared attribute "outcome" is on no recorded data point`}},
		{"value outside the enum", func(e *emit) { e.outcome = "lost" }, []string{`attribute outcome="lost" is not one of the declared values [ok failed]`}},
		{"other buckets", func(e *emit) { e.buckets = []float64{1, 2} }, []string{"bucket boundaries [1 2], metadata.yaml says [0.1 1]"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := good
			tt.change(&e)
			recorded, err := Collect(context.Background(), record(t, e), scope)
			if err != nil {
				t.Fatal(err)
			}
			err = Compare(md, recorded)
			if len(tt.wantErr) == 0 {
				if err != nil {
					t.Fatalf("Compare() = %v, want nil", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("Compare() = nil, want errors %q", tt.wantErr)
			}
			for _, w := range tt.wantErr {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("Compare() = %v\nwant it to contain %q", err, w)
				}
			}
		})
	}
}

func TestLoadRejects(t *testing.T) {
	tests := []struct {
		name, yaml, wantErr string
	}{
		{"two kinds", "telemetry:\n  metrics:\n    m:\n      enabled: true\n      description: d\n      unit: '1'\n      sum: {value_type: int}\n      gauge: {value_type: int}\n",
			"telemetry.metrics.m: must have exactly one of sum, gauge, histogram"},
		{"bad value type", "telemetry:\n  metrics:\n    m:\n      enabled: true\n      description: d\n      unit: '1'\n      sum: {value_type: long}\n",
			`telemetry.metrics.m: value_type "long"`},
		{"undeclared attribute", "telemetry:\n  metrics:\n    m:\n      enabled: true\n      description: d\n      unit: '1'\n      sum: {value_type: int}\n      attributes: [a]\n",
			`telemetry.metrics.m: attribute "a" is not declared under attributes`},
		{"unknown field", "telemetry:\n  metrics:\n    m:\n      enabled: true\n      descripton: d\n      unit: '1'\n      sum: {value_type: int}\n",
			"descripton"},
		{"missing description", "telemetry:\n  metrics:\n    m:\n      enabled: true\n      unit: '1'\n      sum: {value_type: int}\n",
			"telemetry.metrics.m: description and unit are required"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "metadata.yaml"), []byte("type: x\n"+tt.yaml), 0o600); err != nil {
				t.Fatal(err)
			}
			_, err := Load(dir)
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("Load() = %v, want an error containing %q", err, tt.wantErr)
			}
		})
	}
}

// TestRender compares the rendering with a documentation.md written by
// hand in mdatagen's format.
func TestRender(t *testing.T) {
	dir := filepath.Join("testdata", "component")
	md, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := CheckDocumentation(dir, md, false); err != nil {
		got := Render(md)
		t.Fatalf("%v\nrendered:\n%s", err, got)
	}
}

func TestCheckDocumentation(t *testing.T) {
	md, err := Load(filepath.Join("testdata", "component"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := CheckDocumentation(dir, md, false); err == nil || !strings.Contains(err.Error(), "documentation.md is missing") {
		t.Fatalf("missing file: %v", err)
	}
	if err := CheckDocumentation(dir, md, true); err != nil {
		t.Fatal(err)
	}
	if err := CheckDocumentation(dir, md, false); err != nil {
		t.Fatalf("after update: %v", err)
	}
	stale := md
	stale.Metrics = map[string]Metric{}
	for k, v := range md.Metrics {
		stale.Metrics[k] = v
	}
	m := stale.Metrics["otelcol_processor_sample_queue"]
	m.Description = "Items queued."
	stale.Metrics["otelcol_processor_sample_queue"] = m
	if err := CheckDocumentation(dir, stale, false); err == nil || !strings.Contains(err.Error(), "out of date with metadata.yaml") {
		t.Fatalf("stale file: %v", err)
	}
	if err := CheckDocumentation(dir, Metadata{Type: "x"}, false); err == nil || !strings.Contains(err.Error(), "declares none") {
		t.Fatalf("file without metrics: %v", err)
	}
	if err := CheckDocumentation(t.TempDir(), Metadata{Type: "x"}, false); err != nil {
		t.Fatalf("no metrics, no file: %v", err)
	}
}
