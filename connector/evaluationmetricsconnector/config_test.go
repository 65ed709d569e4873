package evaluationmetricsconnector

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/confmap"
	"go.opentelemetry.io/collector/confmap/confmaptest"

	"github.com/evalcol/evalcol/connector/evaluationmetricsconnector/internal/metadata"
)

// TestLoadConfig loads each configuration of testdata/config.yaml as the
// collector does (unmarshal over the defaults, then Validate): valid ones
// give the expected Config, invalid ones an error that names the field.
func TestLoadConfig(t *testing.T) {
	cm, err := confmaptest.LoadConf(filepath.Join("testdata", "config.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	id := func(name string) component.ID { return component.NewIDWithName(metadata.Type, name) }
	tests := []struct {
		id           component.ID
		want         *Config // nil when invalid
		wantErr      []string
		unmarshalErr bool // the error comes from unmarshalling (an unknown field)
	}{
		{id: component.NewID(metadata.Type), want: &Config{
			Dimensions: []string{"verdict", "monitor", "workflow", "agent", "service", "environment"},
			MaxSeries:  1000, MetricsFlushInterval: 15 * time.Second,
			Histogram: HistogramConfig{Buckets: []float64{0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1, 2, 5, 10, 100, 1000}},
		}},
		{id: id("full"), want: &Config{
			Dimensions: []string{"verdict", "workflow", "environment"}, MaxSeries: 50,
			MetricsFlushInterval: 5 * time.Second, MetricsExpiration: time.Hour,
			Histogram: HistogramConfig{Buckets: []float64{0, 0.25, 0.5, 0.75, 1}},
		}},
		{id: id("no_dimensions"), want: &Config{
			Dimensions: []string{}, MaxSeries: 1000, MetricsFlushInterval: 15 * time.Second,
			Histogram: HistogramConfig{Buckets: []float64{0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1, 2, 5, 10, 100, 1000}},
		}},
		{id: id("unknown_dimension"), wantErr: []string{`dimensions[1]: unknown dimension "model" (known: verdict, monitor, workflow, agent, service, environment)`}},
		{id: id("duplicate_dimension"), wantErr: []string{`dimensions[2]: "monitor" is already dimensions[0]`}},
		{id: id("zero_max_series"), wantErr: []string{"max_series: must be positive, got 0"}},
		{id: id("zero_flush_interval"), wantErr: []string{"metrics_flush_interval: must be positive, got 0s"}},
		{id: id("negative_expiration"), wantErr: []string{"metrics_expiration: must not be negative, got -1m0s"}},
		{id: id("empty_buckets"), wantErr: []string{"histogram.buckets: must not be empty"}},
		{id: id("unsorted_buckets"), wantErr: []string{
			"histogram.buckets[2]: must be greater than the bound before it (0.5), got 0.5",
			"histogram.buckets[3]: must be greater than the bound before it (0.5), got 0.2",
		}},
		{id: id("unknown_field"), unmarshalErr: true, wantErr: []string{"max_serie"}},
		{id: id("unknown_histogram_field"), unmarshalErr: true, wantErr: []string{"bucket"}},
	}
	for _, tt := range tests {
		t.Run(tt.id.String(), func(t *testing.T) {
			cfg := createDefaultConfig().(*Config)
			sub, err := cm.Sub(tt.id.String())
			if err != nil {
				t.Fatal(err)
			}
			err = sub.Unmarshal(cfg)
			if tt.unmarshalErr {
				if err == nil {
					t.Fatalf("Unmarshal = nil, want an error naming %q", tt.wantErr)
				}
				for _, w := range tt.wantErr {
					if !strings.Contains(err.Error(), w) {
						t.Errorf("Unmarshal = %v\nwant it to contain %q", err, w)
					}
				}
				return
			}
			if err != nil {
				t.Fatalf("Unmarshal: %v", err)
			}
			err = confmap.Validate(cfg)
			if tt.want == nil {
				if err == nil {
					t.Fatalf("Validate() = nil, want an error containing %q", tt.wantErr)
				}
				for _, w := range tt.wantErr {
					if !strings.Contains(err.Error(), w) {
						t.Errorf("Validate() = %v\nwant it to contain %q", err, w)
					}
				}
				return
			}
			if err != nil {
				t.Fatalf("Validate() = %v", err)
			}
			if !reflect.DeepEqual(cfg, tt.want) {
				t.Errorf("config =\n%+v\nwant\n%+v", cfg, tt.want)
			}
		})
	}
}
