// Package metadata holds the component type and stability of the warehouse
// exporter (what mdatagen would generate from metadata.yaml).
package metadata

import "go.opentelemetry.io/collector/component"

// Type is the component type of the exporter.
var Type = component.MustNewType("warehouse")

// ScopeName is the instrumentation scope of the exporter's own telemetry.
const ScopeName = "github.com/evalcol/evalcol/exporter/warehouseexporter"

// Stability levels per signal.
const (
	TracesStability  = component.StabilityLevelAlpha
	MetricsStability = component.StabilityLevelAlpha
)
