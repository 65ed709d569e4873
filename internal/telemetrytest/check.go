package telemetrytest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"

	"go.opentelemetry.io/otel/attribute"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
)

// Collect returns the metrics the reader holds under the instrumentation
// scope (the component's own; the helpers' and the HTTP server's metrics
// are under other scopes and not the component's to declare).
func Collect(ctx context.Context, reader sdkmetric.Reader, scope string) ([]metricdata.Metrics, error) {
	var rm metricdata.ResourceMetrics
	if err := reader.Collect(ctx, &rm); err != nil {
		return nil, fmt.Errorf("collect metrics: %w", err)
	}
	var out []metricdata.Metrics
	for _, sm := range rm.ScopeMetrics {
		if sm.Scope.Name == scope {
			out = append(out, sm.Metrics...)
		}
	}
	return out, nil
}

// Compare checks the metrics a run recorded against the declared ones:
// every enabled declared metric was recorded and nothing undeclared was;
// each recorded metric has the declared kind, value type, monotonicity,
// unit, description and histogram buckets; its data points carry only
// declared attributes, enum attributes only declared values, and every
// declared attribute shows on some data point. The run must exercise every
// metric, so that a declaration cannot outlive the code that recorded it.
func Compare(md Metadata, recorded []metricdata.Metrics) error {
	var errs []error
	seen := map[string]bool{}
	for _, m := range recorded {
		seen[m.Name] = true
		decl, ok := md.Metrics[m.Name]
		if !ok || !decl.Enabled {
			errs = append(errs, fmt.Errorf("%s: recorded but not declared (enabled) in metadata.yaml telemetry.metrics", m.Name))
			continue
		}
		if err := compareOne(md, decl, m); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", m.Name, err))
		}
	}
	var missing []string
	for name, decl := range md.Metrics {
		if decl.Enabled && !seen[name] {
			missing = append(missing, name)
		}
	}
	sort.Strings(missing)
	for _, name := range missing {
		errs = append(errs, fmt.Errorf("%s: declared in metadata.yaml but not recorded by the run", name))
	}
	return errors.Join(errs...)
}

func compareOne(md Metadata, decl Metric, m metricdata.Metrics) error {
	var errs []error
	if m.Description != decl.Description {
		errs = append(errs, fmt.Errorf("description %q, metadata.yaml says %q", m.Description, decl.Description))
	}
	if m.Unit != decl.Unit {
		errs = append(errs, fmt.Errorf("unit %q, metadata.yaml says %q", m.Unit, decl.Unit))
	}
	kind, valueType, _ := decl.kind() // checked by Load
	gotKind, gotType, points := describe(m.Data)
	if gotKind != kind || gotType != valueType {
		errs = append(errs, fmt.Errorf("recorded as %s of %s, metadata.yaml says %s of %s", gotKind, gotType, kind, valueType))
	}
	if decl.Sum != nil {
		if mono, ok := monotonic(m.Data); ok && mono != decl.Sum.Monotonic {
			errs = append(errs, fmt.Errorf("monotonic %v, metadata.yaml says %v", mono, decl.Sum.Monotonic))
		}
	}
	if decl.Histogram != nil && len(decl.Histogram.BucketBoundaries) > 0 {
		for _, b := range bounds(m.Data) {
			if !slices.Equal(b, decl.Histogram.BucketBoundaries) {
				errs = append(errs, fmt.Errorf("bucket boundaries %v, metadata.yaml says %v", b, decl.Histogram.BucketBoundaries))
				break
			}
		}
	}
	allowed := map[string]Attribute{}
	for _, key := range decl.Attributes {
		a := md.Attributes[key]
		allowed[a.Name(key)] = a
	}
	shown, undeclared, badValues := map[string]bool{}, map[string]bool{}, map[string]bool{}
	for _, set := range points {
		for _, kv := range set {
			name := string(kv.Key)
			a, ok := allowed[name]
			switch {
			case !ok:
				undeclared[name] = true
			case len(a.Enum) > 0 && !slices.Contains(a.Enum, kv.Value.Emit()):
				badValues[fmt.Sprintf("%s=%q is not one of the declared values %v", name, kv.Value.Emit(), a.Enum)] = true
			}
			shown[name] = true
		}
	}
	for _, name := range sortedKeys(undeclared) {
		errs = append(errs, fmt.Errorf("data point attribute %q is not declared for this metric", name))
	}
	for _, v := range sortedKeys(badValues) {
		errs = append(errs, fmt.Errorf("attribute %s", v))
	}
	for _, name := range sortedKeys(allowed) {
		if !shown[name] {
			errs = append(errs, fmt.Errorf("declared attribute %q is on no recorded data point", name))
		}
	}
	return errors.Join(errs...)
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// describe returns the kind, value type and data point attributes of a
// recorded aggregation.
func describe(data metricdata.Aggregation) (kind, valueType string, points [][]attribute.KeyValue) {
	switch d := data.(type) {
	case metricdata.Sum[int64]:
		return "Sum", "int", attrsOf(d.DataPoints, func(p metricdata.DataPoint[int64]) attribute.Set { return p.Attributes })
	case metricdata.Sum[float64]:
		return "Sum", "double", attrsOf(d.DataPoints, func(p metricdata.DataPoint[float64]) attribute.Set { return p.Attributes })
	case metricdata.Gauge[int64]:
		return "Gauge", "int", attrsOf(d.DataPoints, func(p metricdata.DataPoint[int64]) attribute.Set { return p.Attributes })
	case metricdata.Gauge[float64]:
		return "Gauge", "double", attrsOf(d.DataPoints, func(p metricdata.DataPoint[float64]) attribute.Set { return p.Attributes })
	case metricdata.Histogram[int64]:
		return "Histogram", "int", attrsOf(d.DataPoints, func(p metricdata.HistogramDataPoint[int64]) attribute.Set { return p.Attributes })
	case metricdata.Histogram[float64]:
		return "Histogram", "double", attrsOf(d.DataPoints, func(p metricdata.HistogramDataPoint[float64]) attribute.Set { return p.Attributes })
	default:
		return fmt.Sprintf("%T", data), "", nil
	}
}

func attrsOf[P any](points []P, set func(P) attribute.Set) [][]attribute.KeyValue {
	out := make([][]attribute.KeyValue, len(points))
	for i, p := range points {
		s := set(p)
		out[i] = s.ToSlice()
	}
	return out
}

func monotonic(data metricdata.Aggregation) (mono, ok bool) {
	switch d := data.(type) {
	case metricdata.Sum[int64]:
		return d.IsMonotonic, true
	case metricdata.Sum[float64]:
		return d.IsMonotonic, true
	}
	return false, false
}

func bounds(data metricdata.Aggregation) [][]float64 {
	var out [][]float64
	switch d := data.(type) {
	case metricdata.Histogram[int64]:
		for _, p := range d.DataPoints {
			out = append(out, p.Bounds)
		}
	case metricdata.Histogram[float64]:
		for _, p := range d.DataPoints {
			out = append(out, p.Bounds)
		}
	}
	return out
}
