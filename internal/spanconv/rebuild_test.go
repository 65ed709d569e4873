package spanconv

import (
	"reflect"
	"testing"

	"github.com/evalcol/evalcol/internal/warehouse"
)

// TestToTracesRoundTrip converts ingested pdata to warehouse spans, rebuilds
// pdata from them and converts again: every stored field must survive.
func TestToTracesRoundTrip(t *testing.T) {
	tests := []struct {
		name  string
		attrs map[string]string
		// wantEnvAttr is the rebuilt resource's deployment.environment.name.
		wantEnvAttr string
	}{
		{"environment attribute", map[string]string{"service.name": "jokes-svc", "deployment.environment.name": "prod"}, "prod"},
		{"old environment attribute", map[string]string{"service.name": "jokes-svc", "deployment.environment": "staging"}, ""},
		{"default environment", map[string]string{"service.name": "jokes-svc"}, "fallback"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			first := Traces(chatTraces(tt.attrs), Options{DefaultEnvironment: "fallback"}).Spans
			td := ToTraces(first)
			if td.ResourceSpans().Len() != 1 || td.SpanCount() != 1 {
				t.Fatalf("rebuilt %d resources, %d spans; want 1, 1", td.ResourceSpans().Len(), td.SpanCount())
			}
			env := ""
			if v, ok := td.ResourceSpans().At(0).Resource().Attributes().Get("deployment.environment.name"); ok {
				env = v.AsString()
			}
			if env != tt.wantEnvAttr {
				t.Errorf("deployment.environment.name = %q, want %q", env, tt.wantEnvAttr)
			}
			again := Traces(td, Options{DefaultEnvironment: "other"}).Spans
			if len(again) != 1 {
				t.Fatalf("got %d spans", len(again))
			}
			want, got := first[0], again[0]
			want.Evaluations, got.Evaluations = nil, nil
			delete(got.ResourceAttributes, "deployment.environment.name")
			delete(want.ResourceAttributes, "deployment.environment.name")
			// Integers come back as text; genai reads token counts of either.
			if !reflect.DeepEqual(got, want) {
				t.Errorf("round trip changed the span:\n got %+v\nwant %+v", got, want)
			}
		})
	}
}

func TestToTracesGroupsByResourceAndScope(t *testing.T) {
	span := func(id, service, scope string) warehouse.Span {
		return warehouse.Span{Environment: "prod", TraceID: "0102030405060708090a0b0c0d0e0f10", SpanID: id,
			ResourceAttributes: map[string]string{"service.name": service}, ScopeName: scope, SpanKind: "SPAN_KIND_SERVER", StatusCode: "STATUS_CODE_ERROR"}
	}
	td := ToTraces([]warehouse.Span{
		span("0000000000000001", "a", "s1"), span("0000000000000002", "a", "s1"),
		span("0000000000000003", "a", "s2"), span("0000000000000004", "b", "s1"),
	})
	if n := td.ResourceSpans().Len(); n != 2 {
		t.Fatalf("resources = %d, want 2", n)
	}
	if n := td.ResourceSpans().At(0).ScopeSpans().Len(); n != 2 {
		t.Errorf("scopes of resource a = %d, want 2", n)
	}
	if n := td.ResourceSpans().At(0).ScopeSpans().At(0).Spans().Len(); n != 2 {
		t.Errorf("spans of resource a, scope s1 = %d, want 2", n)
	}
	sp := td.ResourceSpans().At(1).ScopeSpans().At(0).Spans().At(0)
	if sp.SpanID().String() != "0000000000000004" || sp.Kind().String() != "Server" || sp.Status().Code().String() != "Error" {
		t.Errorf("span 4 = id %s kind %s status %s", sp.SpanID(), sp.Kind(), sp.Status().Code())
	}
}
