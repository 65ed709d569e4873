// Package metadata holds the component type and stability of the tenant
// processor (what mdatagen would generate from metadata.yaml).
package metadata

import "go.opentelemetry.io/collector/component"

// Type is the component type of the processor.
var Type = component.MustNewType("tenant")

// ScopeName is the instrumentation scope of the processor's own telemetry.
const ScopeName = "github.com/evalcol/evalcol/processor/tenantprocessor"

// Stability levels per signal.
const (
	TracesStability  = component.StabilityLevelAlpha
	MetricsStability = component.StabilityLevelAlpha
)
