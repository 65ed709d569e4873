package spanconv

import (
	"strconv"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/pmetric"

	"github.com/evalcol/evalcol/internal/warehouse"
)

// Metrics converts OTLP metrics into points with metric_source "otlp".
//
// Mapping: a gauge or sum data point is one point named after the metric
// with numeric_value. A histogram data point becomes <name>.count,
// <name>.sum and one <name>.bucket point per bucket (numeric_value = the
// bucket's count, label le = its upper bound, "+Inf" for the last). An
// exponential histogram becomes <name>.count and <name>.sum; a summary
// becomes <name>.count, <name>.sum and <name>.quantile points (label
// quantile). Data point attributes are the points' attributes; labels are
// metric_source, service_name, environment and unit. A data point whose
// time or start time is past MaxSpanTime is left out (see MetricPoints).
func Metrics(md pmetric.Metrics, opts Options) []warehouse.MetricPoint {
	pts, _ := MetricPoints(md, opts)
	return pts
}

// MetricPoints is Metrics, and also returns how many OTLP data points it
// left out because their time_unix_nano or start_time_unix_nano is past
// MaxSpanTime: stored in milliseconds of a signed 64-bit count of
// nanoseconds, such a time used to wrap (near 1715, or 0 for a uint64-max
// time), where no query reached the point.
func MetricPoints(md pmetric.Metrics, opts Options) (_ []warehouse.MetricPoint, late int) {
	var out []warehouse.MetricPoint
	rms := md.ResourceMetrics()
	for i := 0; i < rms.Len(); i++ {
		rm := rms.At(i)
		res := rm.Resource().Attributes()
		env := opts.environment(res)
		service := str(res, attrServiceName)
		org := opts.organization(env)
		sms := rm.ScopeMetrics()
		for j := 0; j < sms.Len(); j++ {
			ms := sms.At(j).Metrics()
			for k := 0; k < ms.Len(); k++ {
				m := ms.At(k)
				b := pointBuilder{env: env, org: org, service: service, unit: m.Unit(), out: &out, late: &late}
				b.metric(m)
			}
		}
	}
	return out, late
}

type pointBuilder struct {
	env, org, service, unit string
	out                     *[]warehouse.MetricPoint
	late                    *int // data points left out: time past MaxSpanTime
}

// skip reports whether a data point of these times is left out, and
// counts it.
func (b pointBuilder) skip(start, ts pcommon.Timestamp) bool {
	if ValidSpanTime(start) && ValidSpanTime(ts) {
		return false
	}
	*b.late++
	return true
}

func (b pointBuilder) add(name string, ts pcommon.Timestamp, attrs pcommon.Map, v float64, extra ...string) {
	labels := map[string]string{metricSourceLabel: warehouse.SourceOTLP, defaultServiceLabel: b.service, "environment": b.env}
	if b.unit != "" {
		labels["unit"] = b.unit
	}
	for i := 0; i+1 < len(extra); i += 2 {
		labels[extra[i]] = extra[i+1]
	}
	*b.out = append(*b.out, warehouse.MetricPoint{
		Environment: b.env, OrganizationID: b.org, MetricName: name, Source: warehouse.SourceOTLP,
		EventTime: int64(ts) / 1e6, NumericValue: &v, Labels: labels, Attributes: stringMap(attrs),
	})
}

func (b pointBuilder) metric(m pmetric.Metric) {
	name := m.Name()
	switch m.Type() {
	case pmetric.MetricTypeGauge:
		b.numbers(name, m.Gauge().DataPoints())
	case pmetric.MetricTypeSum:
		b.numbers(name, m.Sum().DataPoints())
	case pmetric.MetricTypeHistogram:
		dps := m.Histogram().DataPoints()
		for i := 0; i < dps.Len(); i++ {
			dp := dps.At(i)
			if b.skip(dp.StartTimestamp(), dp.Timestamp()) {
				continue
			}
			b.add(name+".count", dp.Timestamp(), dp.Attributes(), float64(dp.Count()))
			if dp.HasSum() {
				b.add(name+".sum", dp.Timestamp(), dp.Attributes(), dp.Sum())
			}
			bounds, counts := dp.ExplicitBounds(), dp.BucketCounts()
			for bi := 0; bi < counts.Len(); bi++ {
				le := "+Inf"
				if bi < bounds.Len() {
					le = strconv.FormatFloat(bounds.At(bi), 'g', -1, 64)
				}
				b.add(name+".bucket", dp.Timestamp(), dp.Attributes(), float64(counts.At(bi)), "le", le)
			}
		}
	case pmetric.MetricTypeExponentialHistogram:
		dps := m.ExponentialHistogram().DataPoints()
		for i := 0; i < dps.Len(); i++ {
			dp := dps.At(i)
			if b.skip(dp.StartTimestamp(), dp.Timestamp()) {
				continue
			}
			b.add(name+".count", dp.Timestamp(), dp.Attributes(), float64(dp.Count()))
			if dp.HasSum() {
				b.add(name+".sum", dp.Timestamp(), dp.Attributes(), dp.Sum())
			}
		}
	case pmetric.MetricTypeSummary:
		dps := m.Summary().DataPoints()
		for i := 0; i < dps.Len(); i++ {
			dp := dps.At(i)
			if b.skip(dp.StartTimestamp(), dp.Timestamp()) {
				continue
			}
			b.add(name+".count", dp.Timestamp(), dp.Attributes(), float64(dp.Count()))
			b.add(name+".sum", dp.Timestamp(), dp.Attributes(), dp.Sum())
			qs := dp.QuantileValues()
			for qi := 0; qi < qs.Len(); qi++ {
				q := qs.At(qi)
				b.add(name+".quantile", dp.Timestamp(), dp.Attributes(), q.Value(), "quantile", strconv.FormatFloat(q.Quantile(), 'g', -1, 64))
			}
		}
	}
}

func (b pointBuilder) numbers(name string, dps pmetric.NumberDataPointSlice) {
	for i := 0; i < dps.Len(); i++ {
		dp := dps.At(i)
		if b.skip(dp.StartTimestamp(), dp.Timestamp()) {
			continue
		}
		v := dp.DoubleValue()
		if dp.ValueType() == pmetric.NumberDataPointValueTypeInt {
			v = float64(dp.IntValue())
		}
		b.add(name, dp.Timestamp(), dp.Attributes(), v)
	}
}
