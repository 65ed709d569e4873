// Package telemetrytest keeps a component's own metrics, its metadata.yaml
// and its documentation.md in agreement, as mdatagen's generated code does
// for contrib components (mdatagen is not served here): it reads the
// telemetry.metrics of metadata.yaml in mdatagen's schema, compares them
// with the metrics a real run of the component recorded, and renders
// documentation.md from them in mdatagen's format.
package telemetrytest

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"

	"go.opentelemetry.io/collector/confmap/confmaptest"
)

// Prefix is what the collector puts before the names in metadata.yaml:
// a metric declared as processor_x is emitted as otelcol_processor_x.
const Prefix = "otelcol_"

// Metadata is the part of a component's metadata.yaml that describes its
// own telemetry.
type Metadata struct {
	// Type is the component type.
	Type string
	// Metrics are keyed by the emitted name (Prefix + the key in
	// metadata.yaml).
	Metrics map[string]Metric
	// Attributes are keyed by their key in metadata.yaml.
	Attributes map[string]Attribute
}

// Metric is one entry of telemetry.metrics.
type Metric struct {
	Enabled     bool       `mapstructure:"enabled"`
	Stability   string     `mapstructure:"stability"`
	Description string     `mapstructure:"description"`
	Unit        string     `mapstructure:"unit"`
	Sum         *Sum       `mapstructure:"sum"`
	Gauge       *Gauge     `mapstructure:"gauge"`
	Histogram   *Histogram `mapstructure:"histogram"`
	// Attributes are keys of the top-level attributes section.
	Attributes []string `mapstructure:"attributes"`
}

// Sum is a counter (monotonic) or up-down counter.
type Sum struct {
	ValueType string `mapstructure:"value_type"`
	Monotonic bool   `mapstructure:"monotonic"`
	Async     bool   `mapstructure:"async"`
}

// Gauge is a last-value instrument.
type Gauge struct {
	ValueType string `mapstructure:"value_type"`
	Async     bool   `mapstructure:"async"`
}

// Histogram is a distribution.
type Histogram struct {
	ValueType        string    `mapstructure:"value_type"`
	BucketBoundaries []float64 `mapstructure:"bucket_boundaries"`
}

// Attribute is one entry of the top-level attributes section.
type Attribute struct {
	Description  string   `mapstructure:"description"`
	Type         string   `mapstructure:"type"`
	Enum         []string `mapstructure:"enum"`
	NameOverride string   `mapstructure:"name_override"`
}

// Name is the attribute's name on data points.
func (a Attribute) Name(key string) string {
	if a.NameOverride != "" {
		return a.NameOverride
	}
	return key
}

// kind returns the instrument kind and value type of m.
func (m Metric) kind() (kind, valueType string, err error) {
	n := 0
	if m.Sum != nil {
		n, kind, valueType = n+1, "Sum", m.Sum.ValueType
	}
	if m.Gauge != nil {
		n, kind, valueType = n+1, "Gauge", m.Gauge.ValueType
	}
	if m.Histogram != nil {
		n, kind, valueType = n+1, "Histogram", m.Histogram.ValueType
	}
	if n != 1 {
		return "", "", errors.New("must have exactly one of sum, gauge, histogram")
	}
	if valueType != "int" && valueType != "double" {
		return "", "", fmt.Errorf("value_type %q: must be int or double", valueType)
	}
	return kind, valueType, nil
}

// Load reads dir/metadata.yaml. Unknown fields under telemetry and
// attributes are errors, as are metrics of no or several kinds and
// references to undeclared attributes.
func Load(dir string) (Metadata, error) {
	path := filepath.Join(dir, "metadata.yaml")
	cm, err := confmaptest.LoadConf(path)
	if err != nil {
		return Metadata{}, fmt.Errorf("read %s: %w", path, err)
	}
	md := Metadata{Metrics: map[string]Metric{}, Attributes: map[string]Attribute{}}
	if t, ok := cm.Get("type").(string); ok {
		md.Type = t
	}
	var telemetry struct {
		Metrics map[string]Metric `mapstructure:"metrics"`
	}
	sub, err := cm.Sub("telemetry")
	if err != nil {
		return Metadata{}, fmt.Errorf("%s: telemetry: %w", path, err)
	}
	if err := sub.Unmarshal(&telemetry); err != nil {
		return Metadata{}, fmt.Errorf("%s: telemetry: %w", path, err)
	}
	if sub, err = cm.Sub("attributes"); err != nil {
		return Metadata{}, fmt.Errorf("%s: attributes: %w", path, err)
	}
	if err := sub.Unmarshal(&md.Attributes); err != nil {
		return Metadata{}, fmt.Errorf("%s: attributes: %w", path, err)
	}
	var errs []error
	for key, m := range telemetry.Metrics {
		if _, _, err := m.kind(); err != nil {
			errs = append(errs, fmt.Errorf("telemetry.metrics.%s: %w", key, err))
		}
		if m.Description == "" || m.Unit == "" {
			errs = append(errs, fmt.Errorf("telemetry.metrics.%s: description and unit are required", key))
		}
		for _, a := range m.Attributes {
			if _, ok := md.Attributes[a]; !ok {
				errs = append(errs, fmt.Errorf("telemetry.metrics.%s: attribute %q is not declared under attributes", key, a))
			}
		}
		md.Metrics[Prefix+key] = m
	}
	for key, a := range md.Attributes {
		if !slices.Contains([]string{"string", "int", "double", "bool"}, a.Type) {
			errs = append(errs, fmt.Errorf("attributes.%s: type %q: must be string, int, double or bool", key, a.Type))
		}
	}
	if len(errs) > 0 {
		return Metadata{}, fmt.Errorf("%s: %w", path, errors.Join(errs...))
	}
	return md, nil
}
