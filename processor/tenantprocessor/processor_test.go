package tenantprocessor

import (
	"context"
	"testing"

	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/collector/consumer/consumertest"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/collector/processor/processortest"

	"github.com/evalcol/evalcol/internal/tenant"
)

func traces(resourceEnv map[string]string) ptrace.Traces {
	td := ptrace.NewTraces()
	rs := td.ResourceSpans().AppendEmpty()
	for k, v := range resourceEnv {
		rs.Resource().Attributes().PutStr(k, v)
	}
	rs.ScopeSpans().AppendEmpty().Spans().AppendEmpty().SetName("span")
	return td
}

func getStr(m pcommon.Map, k string) string {
	if v, ok := m.Get(k); ok {
		return v.AsString()
	}
	return ""
}

func TestStampsTraces(t *testing.T) {
	authed := tenant.NewClientContext(context.Background(), tenant.Tenant{Environment: "staging"})
	tests := []struct {
		name    string
		ctx     context.Context
		attrs   map[string]string
		wantEnv string
		wantOld string
	}{
		{"stamped when absent", authed, nil, "staging", ""},
		{"app's environment kept", authed, map[string]string{"deployment.environment.name": "prod-app"}, "prod-app", ""},
		{"legacy attribute kept", authed, map[string]string{"deployment.environment": "legacy"}, "", "legacy"},
		{"unauthenticated untouched", context.Background(), nil, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sink := &consumertest.TracesSink{}
			p, err := NewFactory().CreateTraces(context.Background(), processortest.NewNopSettings(NewFactory().Type()), &Config{}, sink)
			if err != nil {
				t.Fatal(err)
			}
			if err := p.Start(context.Background(), componenttest.NewNopHost()); err != nil {
				t.Fatal(err)
			}
			defer func() { _ = p.Shutdown(context.Background()) }()
			if err := p.ConsumeTraces(tt.ctx, traces(tt.attrs)); err != nil {
				t.Fatal(err)
			}
			got := sink.AllTraces()
			if len(got) != 1 || got[0].SpanCount() != 1 {
				t.Fatalf("got %d batches, want 1 with 1 span", len(got))
			}
			attrs := got[0].ResourceSpans().At(0).Resource().Attributes()
			env, old := getStr(attrs, "deployment.environment.name"), getStr(attrs, "deployment.environment")
			if env != tt.wantEnv || old != tt.wantOld {
				t.Errorf("deployment.environment.name = %q, deployment.environment = %q; want %q, %q", env, old, tt.wantEnv, tt.wantOld)
			}
		})
	}
}

func TestStampsMetrics(t *testing.T) {
	sink := &consumertest.MetricsSink{}
	p, err := NewFactory().CreateMetrics(context.Background(), processortest.NewNopSettings(NewFactory().Type()), &Config{}, sink)
	if err != nil {
		t.Fatal(err)
	}
	md := pmetric.NewMetrics()
	md.ResourceMetrics().AppendEmpty().ScopeMetrics().AppendEmpty().Metrics().AppendEmpty().SetEmptyGauge().DataPoints().AppendEmpty().SetIntValue(1)
	ctx := tenant.NewClientContext(context.Background(), tenant.Tenant{Environment: "dev"})
	if err := p.ConsumeMetrics(ctx, md); err != nil {
		t.Fatal(err)
	}
	if env := getStr(sink.AllMetrics()[0].ResourceMetrics().At(0).Resource().Attributes(), "deployment.environment.name"); env != "dev" {
		t.Errorf("deployment.environment.name = %q, want dev", env)
	}
}
