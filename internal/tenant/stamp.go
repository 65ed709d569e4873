package tenant

import (
	"context"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.opentelemetry.io/collector/pdata/ptrace"
)

// EnvironmentAttribute is the resource attribute that names a span's
// environment (OTel semantic conventions).
const EnvironmentAttribute = "deployment.environment.name"

// legacyEnvironmentAttribute is the attribute's pre-1.27 name.
const legacyEnvironmentAttribute = "deployment.environment"

// StampTraces sets deployment.environment.name on every resource of td
// that names no environment, to the environment of the tenant that
// authenticated the request (from ctx). Without an authenticated tenant it
// does nothing.
func StampTraces(ctx context.Context, td ptrace.Traces) {
	t, ok := FromContext(ctx)
	if !ok {
		return
	}
	rs := td.ResourceSpans()
	for i := 0; i < rs.Len(); i++ {
		stamp(rs.At(i).Resource().Attributes(), t.Environment)
	}
}

// StampMetrics is StampTraces for metrics.
func StampMetrics(ctx context.Context, md pmetric.Metrics) {
	t, ok := FromContext(ctx)
	if !ok {
		return
	}
	rm := md.ResourceMetrics()
	for i := 0; i < rm.Len(); i++ {
		stamp(rm.At(i).Resource().Attributes(), t.Environment)
	}
}

func stamp(attrs pcommon.Map, env string) {
	for _, k := range []string{EnvironmentAttribute, legacyEnvironmentAttribute} {
		if v, ok := attrs.Get(k); ok && v.AsString() != "" {
			return
		}
	}
	attrs.PutStr(EnvironmentAttribute, env)
}
