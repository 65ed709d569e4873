// Package metadata holds the component type and stability of the evalapi
// extension (what mdatagen would generate from metadata.yaml).
package metadata

import "go.opentelemetry.io/collector/component"

// Type is the component type of the extension.
var Type = component.MustNewType("evalapi")

// ScopeName is the instrumentation scope of the extension's own telemetry.
const ScopeName = "github.com/evalcol/evalcol/extension/evalapiextension"

// ExtensionStability is the stability level of the extension.
const ExtensionStability = component.StabilityLevelAlpha
