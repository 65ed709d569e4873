package spanconv

import (
	"encoding/hex"
	"slices"
	"strings"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/evalcol/evalcol/internal/warehouse"
)

// ToTraces rebuilds pdata from stored spans, for evaluating them again (the
// backfill of auto monitor setups): ids, name, kind, status, trace state,
// start and end time (millisecond precision), span attributes, resource
// attributes and scope. Attribute values come back as strings, as they are
// stored; OTTL conditions and internal/genai read them as they read the
// ingested spans. A span whose resource names no environment gets
// deployment.environment.name = its stored environment, so that monitors
// scoped to the environment match it. Spans sharing resource attributes and
// scope share one ResourceSpans and ScopeSpans. Evaluations are not
// rebuilt as events.
func ToTraces(spans []warehouse.Span) ptrace.Traces {
	td := ptrace.NewTraces()
	resources := map[string]ptrace.ResourceSpans{}
	scopes := map[string]ptrace.ScopeSpans{}
	for i := range spans {
		s := &spans[i]
		resKey := mapKey(s.ResourceAttributes) + "\x01" + s.Environment
		rs, ok := resources[resKey]
		if !ok {
			rs = td.ResourceSpans().AppendEmpty()
			putStrings(rs.Resource().Attributes(), s.ResourceAttributes)
			if Environment(rs.Resource().Attributes(), "") == "" && s.Environment != "" {
				rs.Resource().Attributes().PutStr(attrEnvironment, s.Environment)
			}
			resources[resKey] = rs
		}
		scopeKey := resKey + "\x02" + s.ScopeName + "\x00" + s.ScopeVersion
		ss, ok := scopes[scopeKey]
		if !ok {
			ss = rs.ScopeSpans().AppendEmpty()
			ss.Scope().SetName(s.ScopeName)
			ss.Scope().SetVersion(s.ScopeVersion)
			scopes[scopeKey] = ss
		}
		rebuildSpan(ss.Spans().AppendEmpty(), s)
	}
	return td
}

func rebuildSpan(sp ptrace.Span, s *warehouse.Span) {
	var traceID pcommon.TraceID
	var spanID, parentID pcommon.SpanID
	decodeID(traceID[:], s.TraceID)
	decodeID(spanID[:], s.SpanID)
	decodeID(parentID[:], s.ParentSpanID)
	sp.SetTraceID(traceID)
	sp.SetSpanID(spanID)
	sp.SetParentSpanID(parentID)
	sp.TraceState().FromRaw(s.TraceState)
	sp.SetName(s.SpanName)
	sp.SetKind(parseSpanKind(s.SpanKind))
	start := s.Timestamp * 1e6
	sp.SetStartTimestamp(pcommon.Timestamp(start))
	sp.SetEndTimestamp(pcommon.Timestamp(start + s.Duration*1e6))
	sp.Status().SetCode(parseStatusCode(s.StatusCode))
	sp.Status().SetMessage(s.StatusMessage)
	putStrings(sp.Attributes(), s.SpanAttributes)
}

// decodeID parses a hex id into dst; a malformed one leaves it zero.
func decodeID(dst []byte, s string) {
	if hex.DecodedLen(len(s)) != len(dst) {
		return
	}
	if _, err := hex.Decode(dst, []byte(s)); err != nil {
		clear(dst)
	}
}

func parseSpanKind(k string) ptrace.SpanKind {
	switch k {
	case "SPAN_KIND_INTERNAL":
		return ptrace.SpanKindInternal
	case "SPAN_KIND_SERVER":
		return ptrace.SpanKindServer
	case "SPAN_KIND_CLIENT":
		return ptrace.SpanKindClient
	case "SPAN_KIND_PRODUCER":
		return ptrace.SpanKindProducer
	case "SPAN_KIND_CONSUMER":
		return ptrace.SpanKindConsumer
	default:
		return ptrace.SpanKindUnspecified
	}
}

func parseStatusCode(c string) ptrace.StatusCode {
	switch c {
	case "STATUS_CODE_OK":
		return ptrace.StatusCodeOk
	case "STATUS_CODE_ERROR":
		return ptrace.StatusCodeError
	default:
		return ptrace.StatusCodeUnset
	}
}

// putStrings copies m into attrs as string values.
func putStrings(attrs pcommon.Map, m map[string]string) {
	attrs.EnsureCapacity(len(m))
	for k, v := range m {
		attrs.PutStr(k, v)
	}
}

// mapKey is a text that equal maps share: the sorted key/value pairs.
func mapKey(m map[string]string) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var b strings.Builder
	for _, k := range keys {
		b.WriteString(k)
		b.WriteByte(0)
		b.WriteString(m[k])
		b.WriteByte(0)
	}
	return b.String()
}
