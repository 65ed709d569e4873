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

// LegacyEnvironmentAttribute is the attribute's pre-1.27 name.
const LegacyEnvironmentAttribute = "deployment.environment"

// DeclaredPrefix prefixes the resource attributes that keep, for the
// record, an environment the application declared when it disagreed with
// its API key's: evalcol.declared.deployment.environment.name and
// evalcol.declared.deployment.environment. They are never used for filing.
const DeclaredPrefix = "evalcol.declared."

// EnvironmentOf is the one rule that decides a resource's environment,
// read by everything downstream of the tenant processor (the evaluation
// engine's monitor index, the warehouse exporter, the metrics connector):
// deployment.environment.name when it is a non-empty string; else, when
// that attribute is absent or empty, deployment.environment when it is a
// non-empty string; else "" (none). The tenant processor stamps the
// first, so with it every span's environment is its API key's.
func EnvironmentOf(res pcommon.Map) string {
	v, ok := res.Get(EnvironmentAttribute)
	if ok && v.Type() == pcommon.ValueTypeStr && v.Str() != "" {
		return v.Str()
	}
	if ok && !(v.Type() == pcommon.ValueTypeStr || v.Type() == pcommon.ValueTypeEmpty) {
		return "" // present but not text: no environment
	}
	if l, ok := res.Get(LegacyEnvironmentAttribute); ok && l.Type() == pcommon.ValueTypeStr {
		return l.Str()
	}
	return ""
}

// Declared attribute names.
const (
	DeclaredEnvironmentAttribute       = DeclaredPrefix + EnvironmentAttribute
	DeclaredLegacyEnvironmentAttribute = DeclaredPrefix + LegacyEnvironmentAttribute
)

// Override is a resource whose declared environment disagreed with the
// environment of the API key that sent it.
type Override struct {
	// Attribute is the attribute that disagreed.
	Attribute string
	// Declared is its value as sent.
	Declared string
}

// StampTraces files every resource of td under the environment of the
// tenant that authenticated the request (from ctx): the key decides,
// always. See Stamp. Without an authenticated tenant it does nothing and
// reports ok false.
func StampTraces(ctx context.Context, td ptrace.Traces) (t Tenant, overrides []Override, ok bool) {
	t, ok = FromContext(ctx)
	if !ok {
		return t, nil, false
	}
	rs := td.ResourceSpans()
	for i := 0; i < rs.Len(); i++ {
		overrides = Stamp(rs.At(i).Resource().Attributes(), t.Environment, overrides)
	}
	return t, overrides, true
}

// StampMetrics is StampTraces for metrics.
func StampMetrics(ctx context.Context, md pmetric.Metrics) (t Tenant, overrides []Override, ok bool) {
	t, ok = FromContext(ctx)
	if !ok {
		return t, nil, false
	}
	rm := md.ResourceMetrics()
	for i := 0; i < rm.Len(); i++ {
		overrides = Stamp(rm.At(i).Resource().Attributes(), t.Environment, overrides)
	}
	return t, overrides, true
}

// Stamp sets deployment.environment.name of a resource to env, and
// deployment.environment too when the resource has it. A value that
// disagreed with env is kept as evalcol.declared.<attribute> and appended
// to overrides. evalcol.declared.* attributes the application sent itself
// are removed, so that they always mean what this function recorded.
func Stamp(attrs pcommon.Map, env string, overrides []Override) []Override {
	attrs.Remove(DeclaredEnvironmentAttribute)
	attrs.Remove(DeclaredLegacyEnvironmentAttribute)
	if v, ok := attrs.Get(EnvironmentAttribute); ok {
		if s := v.AsString(); s != env {
			attrs.PutStr(DeclaredEnvironmentAttribute, s)
			overrides = append(overrides, Override{Attribute: EnvironmentAttribute, Declared: s})
		}
	}
	attrs.PutStr(EnvironmentAttribute, env)
	if v, ok := attrs.Get(LegacyEnvironmentAttribute); ok {
		if s := v.AsString(); s != env {
			attrs.PutStr(DeclaredLegacyEnvironmentAttribute, s)
			overrides = append(overrides, Override{Attribute: LegacyEnvironmentAttribute, Declared: s})
		}
		attrs.PutStr(LegacyEnvironmentAttribute, env)
	}
	return overrides
}
