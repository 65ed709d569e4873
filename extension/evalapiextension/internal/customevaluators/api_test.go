package customevaluators

import (
	"context"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evalcol/evalcol/internal/judge"
	"github.com/evalcol/evalcol/internal/tenant"
	"github.com/evalcol/evalcol/internal/warehouse/sqlite"
)

// judgeStub has the providers names and answers nothing (runs fail with
// KindConfig, as for a provider removed from the configuration).
type judgeStub struct{ names []string }

func (j judgeStub) Run(context.Context, judge.Spec, map[string]any) (judge.Result, error) {
	return judge.Result{}, &judge.Error{Kind: judge.KindConfig, Msg: `provider "local" is not configured on this collector (configured: )`}
}

func (j judgeStub) Has(name string) bool {
	for _, n := range j.names {
		if n == name {
			return true
		}
	}
	return false
}

func (j judgeStub) Providers() []string { return j.names }

func newAPI(t *testing.T, max int) *API {
	t.Helper()
	st, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "w.db"), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	return New(Options{Store: st, Judge: judgeStub{names: []string{"local"}}, MaxPerProject: max})
}

func call(a *API, h func(w http.ResponseWriter, r *http.Request), method, body string) *httptest.ResponseRecorder {
	r := httptest.NewRequest(method, "/v2/evaluators", strings.NewReader(body))
	r = r.WithContext(tenant.NewContext(r.Context(), tenant.Tenant{OrganizationID: "o", ProjectID: "p", Environment: "e"}))
	w := httptest.NewRecorder()
	h(w, r)
	return w
}

const minimal = `{"name": %q, "provider": "local", "model": "m", "messages": [{"role": "user", "content": "{{text}}"}],
	"input_schema": [{"name": "text", "type": "string"}], "output_schema": [{"name": "passed", "type": "boolean"}]}`

func TestMaxPerProject(t *testing.T) {
	a := newAPI(t, 2)
	for i, name := range []string{"one", "two", "three"} {
		w := call(a, a.Create, "POST", strings.Replace(minimal, "%q", `"`+name+`"`, 1))
		want := http.StatusCreated
		if i == 2 {
			want = http.StatusConflict
		}
		if w.Code != want {
			t.Fatalf("create %s = %d %s, want %d", name, w.Code, w.Body, want)
		}
		if i == 2 && !strings.Contains(w.Body.String(), "the project holds 2 custom evaluators, the most allowed") {
			t.Errorf("the refusal says %s", w.Body)
		}
	}
}

// TestProviderGone: an evaluator whose provider is no longer configured
// answers 503 naming it.
func TestProviderGone(t *testing.T) {
	a := newAPI(t, 0)
	if w := call(a, a.Create, "POST", strings.Replace(minimal, "%q", `"judge"`, 1)); w.Code != http.StatusCreated {
		t.Fatalf("create = %d %s", w.Code, w.Body)
	}
	w := call(a, func(w http.ResponseWriter, r *http.Request) { a.Execute(w, r, "judge", false) }, "POST", `{"input": {"text": "x"}}`)
	if w.Code != http.StatusServiceUnavailable || !strings.Contains(w.Body.String(), `provider \"local\" is not configured on this collector`) ||
		w.Header().Get(HeaderVersion) != "1" {
		t.Errorf("execute = %d %s %v", w.Code, w.Body, w.Header())
	}
}
