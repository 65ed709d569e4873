// Package metadata holds the component type and stability of the
// evaluationmetrics connector (what mdatagen would generate from
// metadata.yaml).
package metadata

import "go.opentelemetry.io/collector/component"

// Type is the component type of the connector.
var Type = component.MustNewType("evaluationmetrics")

// ScopeName is the instrumentation scope of the metrics the connector
// emits.
const ScopeName = "github.com/evalcol/evalcol/connector/evaluationmetricsconnector"

// TracesToMetricsStability is the stability level of the traces to
// metrics connector.
const TracesToMetricsStability = component.StabilityLevelAlpha
