package telemetrytest

import (
	"testing"

	"go.opentelemetry.io/otel/sdk/metric/metricdata"
)

// Documentation fails t when dir/documentation.md is not the rendering of
// dir/metadata.yaml; with update it rewrites the file instead. A
// component's TestDocumentation calls it with its -update flag.
func Documentation(t testing.TB, dir string, update bool) {
	t.Helper()
	md, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := CheckDocumentation(dir, md, update); err != nil {
		t.Fatal(err)
	}
}

// Verify fails t when the metrics a run recorded (see Collect) disagree
// with the telemetry.metrics of dir/metadata.yaml (see Compare).
func Verify(t testing.TB, dir string, recorded []metricdata.Metrics) {
	t.Helper()
	md, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := Compare(md, recorded); err != nil {
		t.Fatal(err)
	}
}
