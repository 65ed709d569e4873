// Package metadata holds the component type and stability of the evaluator
// processor (what mdatagen would generate from metadata.yaml).
package metadata

import "go.opentelemetry.io/collector/component"

// Type is the component type of the processor.
var Type = component.MustNewType("evaluator")

// ScopeName is the instrumentation scope of the processor's own telemetry.
const ScopeName = "github.com/evalcol/evalcol/processor/evaluatorprocessor"

// TracesStability is the stability level of the traces processor.
const TracesStability = component.StabilityLevelAlpha
