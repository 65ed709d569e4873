package judgequeue

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"go.opentelemetry.io/collector/pdata/pcommon"

	"github.com/evalcol/evalcol/extension/evalapiextension/internal/customevaluators"
	"github.com/evalcol/evalcol/internal/engine"
	"github.com/evalcol/evalcol/internal/judge"
	"github.com/evalcol/evalcol/internal/judge/judgetest"
	"github.com/evalcol/evalcol/internal/monitor"
	"github.com/evalcol/evalcol/internal/tenant"
	"github.com/evalcol/evalcol/internal/warehouse"
	"github.com/evalcol/evalcol/internal/warehouse/sqlite"
)

var (
	acme  = tenant.Tenant{Environment: "prod", OrganizationID: "acme", ProjectID: "shop"}
	start = time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)
)

const refundJudge = `{"name": "No refund promises", "slug": "no-refund-promise", "provider": "local", "model": "judge-1",
	"messages": [{"role": "system", "content": "You check support answers."},
		{"role": "user", "content": "Question: {{question}}\nAnswer: {{completion}}\nDoes the answer avoid promising a refund?"}],
	"input_schema": [{"name": "question", "type": "string"}, {"name": "completion", "type": "string"}],
	"output_schema": [{"name": "passed", "type": "boolean"}, {"name": "reason", "type": "string"}]}`

// fixture is a SQLite warehouse, a fake judge server, the custom
// evaluators API with one evaluator, and a worker.
type fixture struct {
	store  *sqlite.Store
	server *judgetest.Server
	custom *customevaluators.API
	opts   Options
}

func newFixture(t *testing.T, h judgetest.Handler, evaluator string) *fixture {
	t.Helper()
	st, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "w.db"), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	srv := judgetest.New(t, h)
	jc, err := judge.New([]judge.ProviderConfig{{Name: "local", Type: judge.TypeOpenAI, BaseURL: srv.OpenAIBaseURL(), MaxRetries: 0, Timeout: 5 * time.Second}})
	if err != nil {
		t.Fatal(err)
	}
	custom := customevaluators.New(customevaluators.Options{Store: st, Judge: jc})
	r := httptest.NewRequest(http.MethodPost, "/v2/evaluators", strings.NewReader(evaluator))
	r = r.WithContext(tenant.NewContext(r.Context(), acme))
	w := httptest.NewRecorder()
	custom.Create(w, r)
	if w.Code != http.StatusCreated {
		t.Fatalf("create evaluator: %d %s", w.Code, w.Body)
	}
	return &fixture{store: st, server: srv, custom: custom, opts: Options{
		Store: st, Evaluators: custom, Judge: jc, Holder: "test", Poll: 10 * time.Millisecond,
		RetryBase: 20 * time.Millisecond, SpanWait: 5 * time.Second,
	}}
}

// span is a stored chat span of the prod environment.
func (f *fixture) span(t *testing.T, n int) warehouse.Span {
	t.Helper()
	sp := warehouse.Span{
		Environment: "prod", Timestamp: start.UnixMilli() + int64(n), TraceID: fmt.Sprintf("%032x", n+1), SpanID: fmt.Sprintf("%016x", n+1),
		SpanName: "openai.chat", SpanKind: "SPAN_KIND_CLIENT", ServiceName: "support",
		SpanAttributes: map[string]string{
			"gen_ai.prompt.0.role": "user", "gen_ai.prompt.0.content": fmt.Sprintf("Can I return order %d?", n),
			"gen_ai.completion.0.role": "assistant", "gen_ai.completion.0.content": "Yes, we will refund you in full.",
		},
		StatusCode: "STATUS_CODE_UNSET",
	}
	if err := f.store.WriteSpans(context.Background(), []warehouse.Span{sp}); err != nil {
		t.Fatal(err)
	}
	return sp
}

func deferred(sp warehouse.Span, inputs map[string]string) engine.Deferred {
	var tid pcommon.TraceID
	var sid pcommon.SpanID
	_, _ = hex.Decode(tid[:], []byte(sp.TraceID))
	_, _ = hex.Decode(sid[:], []byte(sp.SpanID))
	return engine.Deferred{Environment: sp.Environment, TraceID: tid, SpanID: sid, Start: time.UnixMilli(sp.Timestamp),
		MonitorID: "refunds", MonitorName: "refunds", Slug: "no-refund-promise", Inputs: inputs, Custom: true}
}

// enqueue queues work as the OTLP request of acme's key does.
func (f *fixture) enqueue(t *testing.T, work ...engine.Deferred) {
	t.Helper()
	ctx := tenant.NewClientContext(context.Background(), acme)
	if err := Enqueue(ctx, f.store, nil, work, time.Now()); err != nil {
		t.Fatal(err)
	}
}

// drain runs a worker until the queue is empty.
func (f *fixture) drain(t *testing.T, opts Options) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	w := NewWorker(opts)
	go func() { defer close(done); w.Run(ctx) }()
	defer func() { cancel(); <-done }()
	deadline := time.Now().Add(20 * time.Second)
	for {
		b, err := Pending(context.Background(), f.store, "prod")
		if err != nil {
			t.Fatal(err)
		}
		if b.Items == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the queue still holds %d items", b.Items)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// evaluations returns the stored evaluations of sp.
func (f *fixture) evaluations(t *testing.T, sp warehouse.Span) []warehouse.Evaluation {
	t.Helper()
	page, err := f.store.QuerySpans(context.Background(), warehouse.SpanQuery{Environments: []string{"prod"},
		Filters: []warehouse.Filter{{Field: "span_id", Operator: warehouse.OpEquals, Value: sp.SpanID}}})
	if err != nil || len(page.Spans) != 1 {
		t.Fatalf("read span %s: %v (%d spans)", sp.SpanID, err, len(page.Spans))
	}
	return page.Spans[0].Evaluations
}

func answer(passed bool, reason string) judgetest.Reply {
	b, _ := json.Marshal(map[string]any{"passed": passed, "reason": reason})
	return judgetest.OpenAIText(string(b))
}

func TestQueuedWorkJudgedOnceAndAppended(t *testing.T) {
	f := newFixture(t, func(judgetest.Request) judgetest.Reply { return answer(false, "promises a full refund") }, refundJudge)
	sp := f.span(t, 1)
	w := deferred(sp, nil)
	f.enqueue(t, w)
	f.enqueue(t, w) // a resent request queues the work once
	if b, err := Pending(context.Background(), f.store, "prod"); err != nil || b.Items != 1 {
		t.Fatalf("pending = %+v, %v; want 1 item", b, err)
	}
	f.drain(t, f.opts)

	evals := f.evaluations(t, sp)
	if len(evals) != 1 {
		t.Fatalf("evaluations = %+v, want one", evals)
	}
	e := evals[0]
	if e.Name != "no-refund-promise" || e.MonitorID != "refunds" || e.Verdict != warehouse.VerdictFail || e.Error != "" {
		t.Errorf("evaluation = %+v, want a fail of no-refund-promise by monitor refunds", e)
	}
	if e.Output["reason"] != "promises a full refund" || e.Output["passed"] != false {
		t.Errorf("output = %v, want the judge's answer", e.Output)
	}
	if e.Explanation == nil || !strings.Contains(e.Explanation.Summary, "judge-1") || !strings.Contains(e.Explanation.Summary, "version 1") {
		t.Errorf("explanation = %+v, want the model and version", e.Explanation)
	}
	reqs := f.server.Requests()
	if len(reqs) != 1 {
		t.Fatalf("judge calls = %d, want 1", len(reqs))
	}
	// The span's text went into the template as data.
	body, _ := json.Marshal(reqs[0].Body)
	if !strings.Contains(string(body), "Can I return order 1?") || !strings.Contains(string(body), "we will refund you in full") {
		t.Errorf("the judge was not asked about the span's question and answer: %s", body)
	}
	u, err := DayUsage(context.Background(), f.store, "prod", time.Now())
	if err != nil || u.Calls != 1 || u.ByEvaluator["no-refund-promise"].Calls != 1 {
		t.Errorf("usage = %+v, %v; want 1 call of no-refund-promise", u, err)
	}
}

func TestMonitorInputsOverrideTheSpan(t *testing.T) {
	f := newFixture(t, func(judgetest.Request) judgetest.Reply { return answer(true, "fine") }, refundJudge)
	sp := f.span(t, 2)
	f.enqueue(t, deferred(sp, map[string]string{"completion": "We cannot refund digital goods."}))
	f.drain(t, f.opts)
	body, _ := json.Marshal(f.server.Requests()[0].Body)
	if !strings.Contains(string(body), "We cannot refund digital goods.") || strings.Contains(string(body), "refund you in full") {
		t.Errorf("the monitor's input expression did not replace the span's completion: %s", body)
	}
	if e := f.evaluations(t, sp); len(e) != 1 || e[0].Verdict != warehouse.VerdictPass {
		t.Errorf("evaluations = %+v, want one pass", e)
	}
}

func TestFailingProviderRetriedThenJudged(t *testing.T) {
	var n atomic.Int32
	f := newFixture(t, func(judgetest.Request) judgetest.Reply {
		switch n.Add(1) {
		case 1:
			return judgetest.OpenAIError(http.StatusInternalServerError, "overloaded")
		case 2:
			return judgetest.RateLimited(0)
		}
		return answer(true, "no promise")
	}, refundJudge)
	sp := f.span(t, 3)
	f.enqueue(t, deferred(sp, nil))
	f.drain(t, f.opts)
	if got := n.Load(); got != 3 {
		t.Errorf("judge calls = %d, want 3 (two failures retried, one answer)", got)
	}
	if e := f.evaluations(t, sp); len(e) != 1 || e[0].Verdict != warehouse.VerdictPass {
		t.Errorf("evaluations = %+v, want one pass", e)
	}
}

func TestAttemptsRunOutIntoAnError(t *testing.T) {
	f := newFixture(t, func(judgetest.Request) judgetest.Reply {
		return judgetest.OpenAIError(http.StatusBadGateway, "upstream down")
	}, refundJudge)
	sp := f.span(t, 4)
	f.enqueue(t, deferred(sp, nil))
	opts := f.opts
	opts.MaxAttempts = 3
	f.drain(t, opts)
	if got := len(f.server.Requests()); got != 3 {
		t.Errorf("judge calls = %d, want max_attempts 3", got)
	}
	e := f.evaluations(t, sp)
	if len(e) != 1 || e[0].Verdict != warehouse.VerdictError || !strings.HasPrefix(e[0].Error, ErrorJudge+": ") || !strings.Contains(e[0].Error, "502") {
		t.Errorf("evaluations = %+v, want one error naming the provider's 502", e)
	}
}

func TestDailyBudgetSkipsWithTheReason(t *testing.T) {
	f := newFixture(t, func(judgetest.Request) judgetest.Reply { return answer(true, "ok") }, refundJudge)
	a, b := f.span(t, 5), f.span(t, 6)
	opts := f.opts
	opts.Budget = Budget{DailyCalls: 1}
	f.enqueue(t, deferred(a, nil))
	f.drain(t, opts)
	f.enqueue(t, deferred(b, nil))
	f.drain(t, opts)
	if got := len(f.server.Requests()); got != 1 {
		t.Errorf("judge calls = %d, want 1 (the budget)", got)
	}
	if e := f.evaluations(t, a); len(e) != 1 || e[0].Verdict != warehouse.VerdictPass {
		t.Errorf("first span: %+v, want a pass", e)
	}
	e := f.evaluations(t, b)
	if len(e) != 1 || e[0].Verdict != "" || !strings.HasPrefix(e[0].Error, ErrorSkipped+": ") || !strings.Contains(e[0].Error, "1 of 1 calls") {
		t.Errorf("second span: %+v, want skipped with the budget named", e)
	}
}

func TestMissingInputRecordedNamingIt(t *testing.T) {
	policy := strings.Replace(refundJudge, `{"name": "question", "type": "string"}`, `{"name": "policy", "type": "string"}`, 1)
	policy = strings.Replace(policy, "{{question}}", "{{policy}}", 1)
	f := newFixture(t, func(judgetest.Request) judgetest.Reply { return answer(true, "ok") }, policy)
	sp := f.span(t, 7)
	f.enqueue(t, deferred(sp, nil))
	f.drain(t, f.opts)
	if got := len(f.server.Requests()); got != 0 {
		t.Errorf("judge calls = %d, want none", got)
	}
	e := f.evaluations(t, sp)
	if len(e) != 1 || e[0].Verdict != warehouse.VerdictError || !strings.HasPrefix(e[0].Error, ErrorInput+": ") || !strings.Contains(e[0].Error, "policy") {
		t.Errorf("evaluations = %+v, want an invalid_input error naming policy", e)
	}
}

func TestUnknownEvaluatorRecorded(t *testing.T) {
	f := newFixture(t, func(judgetest.Request) judgetest.Reply { return answer(true, "ok") }, refundJudge)
	sp := f.span(t, 8)
	w := deferred(sp, nil)
	w.Slug = "gone"
	f.enqueue(t, w)
	f.drain(t, f.opts)
	e := f.evaluations(t, sp)
	if len(e) != 1 || !strings.HasPrefix(e[0].Error, ErrorNotFound+": ") || !strings.Contains(e[0].Error, `"gone"`) {
		t.Errorf("evaluations = %+v, want not_found naming gone", e)
	}
}

// TestKeptOutcomeNotJudgedAgain is the crash after a call: the item holds
// the judge's answer but was not appended; the next worker appends it
// without calling the judge.
func TestKeptOutcomeNotJudgedAgain(t *testing.T) {
	f := newFixture(t, func(judgetest.Request) judgetest.Reply { return answer(true, "must not be asked") }, refundJudge)
	sp := f.span(t, 9)
	w := deferred(sp, nil)
	f.enqueue(t, w)
	id := itemID("prod", sp.TraceID, sp.SpanID, "refunds", "no-refund-promise")
	d, err := f.store.GetDocument(context.Background(), Kind, "prod", id)
	if err != nil {
		t.Fatal(err)
	}
	var it Item
	if err := json.Unmarshal(d.Body, &it); err != nil {
		t.Fatal(err)
	}
	it.Holder, it.LeaseUntil = "crashed-collector", time.Now().Add(-time.Second) // its lease ran out
	it.Outcome = &Outcome{Output: map[string]any{"passed": false, "reason": "kept"}, Verdict: "fail", Model: "judge-1", Version: 1, At: time.Now()}
	d.Body, _ = json.Marshal(it)
	d.Version++
	if err := f.store.UpdateDocument(context.Background(), d); err != nil {
		t.Fatal(err)
	}
	f.drain(t, f.opts)
	if got := len(f.server.Requests()); got != 0 {
		t.Errorf("judge calls = %d, want none: the kept answer is appended", got)
	}
	if e := f.evaluations(t, sp); len(e) != 1 || e[0].Output["reason"] != "kept" {
		t.Errorf("evaluations = %+v, want the kept answer", e)
	}
}

func TestLeasedItemWaitsForItsLease(t *testing.T) {
	f := newFixture(t, func(judgetest.Request) judgetest.Reply { return answer(true, "ok") }, refundJudge)
	sp := f.span(t, 10)
	f.enqueue(t, deferred(sp, nil))
	id := itemID("prod", sp.TraceID, sp.SpanID, "refunds", "no-refund-promise")
	d, _ := f.store.GetDocument(context.Background(), Kind, "prod", id)
	var it Item
	_ = json.Unmarshal(d.Body, &it)
	it.Holder, it.LeaseUntil = "other-collector", time.Now().Add(400*time.Millisecond)
	d.Body, _ = json.Marshal(it)
	d.Version++
	if err := f.store.UpdateDocument(context.Background(), d); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); NewWorker(f.opts).Run(ctx) }()
	time.Sleep(200 * time.Millisecond)
	if got := len(f.server.Requests()); got != 0 {
		t.Errorf("judge calls within the other collector's lease = %d, want 0", got)
	}
	cancel()
	<-done
	f.drain(t, f.opts)
	if got := len(f.server.Requests()); got != 1 {
		t.Errorf("judge calls after the lease = %d, want 1", got)
	}
}

func TestSpanNeverStoredGivesUp(t *testing.T) {
	f := newFixture(t, func(judgetest.Request) judgetest.Reply { return answer(true, "ok") }, refundJudge)
	sp := warehouse.Span{Environment: "prod", Timestamp: start.UnixMilli(), TraceID: fmt.Sprintf("%032x", 99), SpanID: fmt.Sprintf("%016x", 99)}
	f.enqueue(t, deferred(sp, nil))
	opts := f.opts
	opts.SpanWait = 100 * time.Millisecond
	f.drain(t, opts)
	if got := len(f.server.Requests()); got != 0 {
		t.Errorf("judge calls = %d, want none for a span never stored", got)
	}
}

func TestWorkOfOtherTenantsStaysApart(t *testing.T) {
	f := newFixture(t, func(judgetest.Request) judgetest.Reply { return answer(true, "ok") }, refundJudge)
	sp := f.span(t, 11)
	// Another organization's key sends a span of its own environment
	// naming the slug: acme's evaluator is not its to run.
	other := tenant.Tenant{Environment: "prod", OrganizationID: "globex", ProjectID: "shop"}
	ctx := tenant.NewClientContext(context.Background(), other)
	if err := Enqueue(ctx, f.store, nil, []engine.Deferred{deferred(sp, nil)}, time.Now()); err != nil {
		t.Fatal(err)
	}
	f.drain(t, f.opts)
	if got := len(f.server.Requests()); got != 0 {
		t.Errorf("judge calls = %d: another organization's evaluator ran", got)
	}
	if e := f.evaluations(t, sp); len(e) != 1 || !strings.HasPrefix(e[0].Error, ErrorNotFound) {
		t.Errorf("evaluations = %+v, want not_found", e)
	}
}

func TestPrebuiltEvaluatorThroughAJudge(t *testing.T) {
	var asked judgetest.Request
	f := newFixture(t, func(r judgetest.Request) judgetest.Reply {
		asked = r
		return judgetest.OpenAIText(`{"tone": "joy", "score": 0.3}`)
	}, refundJudge)
	sp := f.span(t, 12)
	w := deferred(sp, nil)
	w.Custom, w.Slug, w.Judge = false, "tone-detection", &monitor.JudgeRef{Provider: "local", Model: "judge-2"}
	f.enqueue(t, w)
	f.drain(t, f.opts)
	e := f.evaluations(t, sp)
	// The catalogue decides the verdict from the judge's answer: a score
	// under 0.5 fails tone-detection.
	if len(e) != 1 || e[0].Name != "tone-detection" || e[0].Verdict != warehouse.VerdictFail || e[0].Output["tone"] != "joy" || e[0].ScoreValue != 0.3 {
		t.Fatalf("evaluations = %+v, want tone-detection failing on the judge's score 0.3", e)
	}
	if e[0].Explanation == nil || !strings.Contains(e[0].Explanation.Summary, "judged by judge-2 (provider local) instead of the offline model") {
		t.Errorf("explanation = %+v", e[0].Explanation)
	}
	body, _ := json.Marshal(asked.Body)
	for _, want := range []string{"we will refund you in full", "score (number)", "tone (string: one of", asked.Body["model"].(string)} {
		if !strings.Contains(string(body), want) {
			t.Errorf("the judge's request lacks %q: %s", want, body)
		}
	}
	if u, _ := DayUsage(context.Background(), f.store, "prod", time.Now()); u.Calls != 1 || u.ByEvaluator["tone-detection"].Calls != 1 {
		t.Errorf("usage = %+v, want the call counted against the budget", u)
	}
}
