package console

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/collector/pdata/pcommon"

	"github.com/evalcol/evalcol/extension/evalapiextension/internal/customevaluators"
	"github.com/evalcol/evalcol/extension/evalapiextension/internal/judgequeue"
	"github.com/evalcol/evalcol/internal/engine"
	"github.com/evalcol/evalcol/internal/judge"
	"github.com/evalcol/evalcol/internal/judge/judgetest"
	"github.com/evalcol/evalcol/internal/tenant"
	"github.com/evalcol/evalcol/internal/warehouse"
)

// providerOnly has the provider "local" and never runs.
type providerOnly struct{}

func (providerOnly) Run(context.Context, judge.Spec, map[string]any) (judge.Result, error) {
	return judge.Result{}, nil
}
func (providerOnly) Has(p string) bool   { return p == "local" }
func (providerOnly) Providers() []string { return []string{"local"} }

func TestEvaluatorsPageShowsJudgesQueueAndUsage(t *testing.T) {
	srv := judgetest.New(t, func(r judgetest.Request) judgetest.Reply {
		b, _ := json.Marshal(r.Body)
		if strings.Contains(string(b), "refund") {
			return judgetest.OpenAIText(`{"passed": false}`)
		}
		return judgetest.OpenAIText(`{"passed": true}`)
	})
	jc, err := judge.New([]judge.ProviderConfig{{Name: "local", Type: judge.TypeOpenAI, BaseURL: srv.OpenAIBaseURL()}})
	if err != nil {
		t.Fatal(err)
	}
	var custom *customevaluators.API
	s := newTestServer(t, false, func(o *Options) {
		custom = customevaluators.New(customevaluators.Options{Store: o.Store, Judge: jc})
		o.Judges = custom
	})
	tenantA := tenant.Tenant{Environment: "env-a", OrganizationID: "org-a", ProjectID: "p-a"}
	r := httptest.NewRequest(http.MethodPost, "/v2/evaluators", strings.NewReader(`{"name": "<b>Refund</b> judge", "slug": "no-refund-promise",
		"provider": "local", "model": "llama3.1:8b", "messages": [{"role": "user", "content": "{{completion}}"}],
		"input_schema": [{"name": "completion", "type": "string"}], "output_schema": [{"name": "passed", "type": "boolean"}]}`))
	r = r.WithContext(tenant.NewContext(r.Context(), tenantA))
	w := httptest.NewRecorder()
	custom.Create(w, r)
	if w.Code != http.StatusCreated {
		t.Fatalf("create: %d %s", w.Code, w.Body)
	}
	ctx := tenant.NewClientContext(context.Background(), tenantA)
	work := []engine.Deferred{{Environment: "env-a", TraceID: pcommon.TraceID{1}, SpanID: pcommon.SpanID{1}, Start: time.Now(), MonitorID: "m", Slug: "no-refund-promise", Custom: true}}
	if err := judgequeue.Enqueue(ctx, s.store, nil, work, time.Now()); err != nil {
		t.Fatal(err)
	}
	usage, _ := json.Marshal(judgequeue.Usage{Day: time.Now().UTC().Format(time.DateOnly), Calls: 4, InputTokens: 1200000, OutputTokens: 100045,
		ByEvaluator: map[string]judgequeue.EvaluatorUsage{"no-refund-promise": {Calls: 4, InputTokens: 1200000, OutputTokens: 100045,
			ByModel: map[string]judgequeue.ModelUsage{
				"gpt-4o-mini-2024-07-18": {Calls: 3, InputTokens: 1200000, OutputTokens: 100000}, // $0.18 + $0.06
				"llama3.1:8b":            {Calls: 1, OutputTokens: 45},                           // a local model: no price
			}}}})
	if err := s.store.CreateDocument(context.Background(), warehouse.Document{Kind: judgequeue.UsageKind, Scope: "env-a",
		ID: time.Now().UTC().Format(time.DateOnly), Body: usage}); err != nil {
		t.Fatal(err)
	}

	c := s.client(t)
	s.login(t, c, keyA)
	page := do(t, c, "GET", s.URL+"/ui/evaluators", nil)
	if page.status != http.StatusOK {
		t.Fatalf("evaluators page: %d", page.status)
	}
	for _, want := range []string{`id="judges"`, "no-refund-promise", "llama3.1:8b", "&lt;b&gt;Refund&lt;/b&gt; judge",
		"<strong>1</strong> judgements queued", `<td class="num">1200000</td>`, `<td class="num">100045</td>`, `<td class="num">≥ 0.2400</td>`} {
		if !strings.Contains(page.body, want) {
			t.Errorf("evaluators page lacks %q", want)
		}
	}
	if strings.Contains(page.body, "<b>Refund</b>") {
		t.Error("an evaluator's name reached the page unescaped")
	}

	// The judge's playground: the input schema as a form, a run with its
	// verdict, model and tokens.
	pg := do(t, c, "GET", s.URL+"/ui/evaluators/no-refund-promise", nil)
	if pg.status != http.StatusOK || !strings.Contains(pg.body, `name="input.completion"`) || !strings.Contains(pg.body, "LLM judge (custom evaluator, version 1)") {
		t.Fatalf("judge playground: %d\n%s", pg.status, pg.body)
	}
	run := do(t, c, "POST", s.URL+"/ui/evaluators/no-refund-promise", url.Values{"csrf": {csrf(t, pg.body)}, "input.completion": {"We will refund you."}})
	if run.status != http.StatusOK || !strings.Contains(run.body, `id="verdict">fail`) || !strings.Contains(run.body, "judged by llama3.1:8b (provider local), version 1") {
		t.Errorf("judge playground run: %d\n%s", run.status, run.body)
	}
	if got := len(srv.Requests()); got != 1 {
		t.Errorf("judge calls = %d, want 1", got)
	}

	// Another environment's key sees neither the evaluator nor the queue.
	other := s.client(t)
	s.login(t, other, keyB)
	page = do(t, other, "GET", s.URL+"/ui/evaluators", nil)
	if strings.Contains(page.body, "no-refund-promise") || !strings.Contains(page.body, "Nothing queued") || strings.Contains(page.body, "1200000") {
		t.Errorf("environment b's evaluators page shows environment a's judges, queue or usage")
	}
	if pg := do(t, other, "GET", s.URL+"/ui/evaluators/no-refund-promise", nil); pg.status != http.StatusNotFound {
		t.Errorf("environment b opened environment a's judge playground: %d", pg.status)
	}
}

func TestScoresPageShowsJudgedEvaluations(t *testing.T) {
	s := newTestServer(t, false, nil)
	now := time.Now()
	var spans []warehouse.Span
	for i := range 4 {
		spans = append(spans, warehouse.Span{Environment: "env-a", Timestamp: now.Add(-time.Duration(i) * time.Minute).UnixMilli(),
			TraceID: strings.Repeat("ab", 15) + "0" + string(rune('1'+i)), SpanID: "00000000000000a" + string(rune('1'+i)), SpanName: "openai.chat",
			WorkflowName: "support", StatusCode: "STATUS_CODE_UNSET",
			Evaluations: []warehouse.Evaluation{{Name: "no-refund-promise", MonitorID: "refunds", Verdict: []string{"pass", "fail"}[i%2],
				Output: map[string]any{"passed": i%2 == 0}, ScoreLabel: []string{"pass", "fail"}[i%2]}}})
	}
	if err := s.store.WriteSpans(context.Background(), spans); err != nil {
		t.Fatal(err)
	}
	c := s.client(t)
	s.login(t, c, keyA)
	page := do(t, c, "GET", s.URL+"/ui/scores", nil)
	if page.status != http.StatusOK || !strings.Contains(page.body, "no-refund-promise") {
		t.Fatalf("scores page: %d; want the custom evaluator's results\n%s", page.status, page.body)
	}
}
