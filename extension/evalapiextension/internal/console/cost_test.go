package console

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/evalcol/evalcol/internal/pricing"
	"github.com/evalcol/evalcol/internal/warehouse"
)

// TestCostOnTracePageAndList: a trace's tokens are priced per model at
// read time (a dated response model priced as its base name, an
// operator's own model), shown on the trace page, per span and in the
// traces list; a trace of an unknown model shows no cost; a partly
// priced trace says so.
func TestCostOnTracePageAndList(t *testing.T) {
	s := newTestServer(t, false, func(o *Options) {
		base, err := pricing.Default()
		if err != nil {
			t.Fatal(err)
		}
		o.Prices = base.With(map[string]pricing.Price{"acme-small": {InputPerMillion: 1, OutputPerMillion: 2}})
	})
	now := time.Now().UnixMilli()
	const priced, unknown, partial = "cccc0000000000000000000000000001", "cccc0000000000000000000000000002", "cccc0000000000000000000000000003"
	withUsage := func(sp warehouse.Span, model string, in, out string) warehouse.Span {
		sp.RequestModel, sp.ResponseModel = "", model
		sp.SpanAttributes = map[string]string{"gen_ai.usage.input_tokens": in, "gen_ai.usage.output_tokens": out}
		return sp
	}
	root := chatSpan("env-a", priced, "p1", "", now-3000, "svc")
	root.SpanAttributes, root.RequestModel, root.TotalTokens = nil, "", 0
	spans := []warehouse.Span{
		root,
		// 20 000 in, 2 000 out of gpt-4o ($2.50, $10): $0.05 + $0.02.
		withUsage(chatSpan("env-a", priced, "p2", "p1", now-2900, "svc"), "gpt-4o-2024-08-06", "20000", "2000"),
		// 1M in, 0.5M out of the operator's model ($1, $2): $2.
		withUsage(chatSpan("env-a", priced, "p3", "p1", now-2800, "svc"), "acme-small", "1000000", "500000"),
		withUsage(chatSpan("env-a", unknown, "u1", "", now-2000, "svc"), "my-finetune", "500", "100"),
		withUsage(chatSpan("env-a", partial, "q1", "", now-1000, "svc"), "openai/gpt-4o-mini", "1000000", "0"),
		withUsage(chatSpan("env-a", partial, "q2", "q1", now-900, "svc"), "my-finetune", "10", "10"),
	}
	if err := s.store.WriteSpans(context.Background(), spans); err != nil {
		t.Fatal(err)
	}
	c := s.client(t)
	s.login(t, c, keyA)

	page := do(t, c, "GET", s.URL+"/ui/traces/"+priced+"?span=p2", nil)
	if page.status != 200 {
		t.Fatalf("trace page: %d", page.status)
	}
	for _, want := range []string{
		`id="trace-cost" title="gpt-4o-2024-08-06: 20000 in, 2000 out, acme-small: 1000000 in, 500000 out">$2.07</span>`,
		`<span class="hint" id="span-usage">(20000 in, 2000 out)</span>`,
		`<dd id="span-cost">$0.07</dd>`,
	} {
		if !strings.Contains(page.body, want) {
			t.Errorf("the trace page lacks %s", want)
		}
	}
	page = do(t, c, "GET", s.URL+"/ui/traces/"+unknown, nil)
	if page.status != 200 || strings.Contains(page.body, `id="trace-cost"`) || strings.Contains(page.body, `id="span-cost"`) {
		t.Errorf("a trace of an unknown model shows a cost (%d)", page.status)
	}

	list := do(t, c, "GET", s.URL+"/ui/traces", nil)
	if list.status != 200 {
		t.Fatalf("traces list: %d", list.status)
	}
	for _, want := range []string{`<td class="num nowrap cost">$2.07</td>`, `<td class="num nowrap cost">≥ $0.15</td>`, `<td class="num nowrap cost"></td>`} {
		if !strings.Contains(list.body, want) {
			t.Errorf("the traces list lacks %s", want)
		}
	}
}
