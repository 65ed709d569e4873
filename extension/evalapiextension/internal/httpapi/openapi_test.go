package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/legacy"

	"github.com/evalcol/evalcol/evaluators"
	"github.com/evalcol/evalcol/extension/evalapiextension/internal/alertapi"
	"github.com/evalcol/evalcol/extension/evalapiextension/internal/annotationapi"
	"github.com/evalcol/evalcol/extension/evalapiextension/internal/datasetapi"
	"github.com/evalcol/evalcol/extension/evalapiextension/internal/experimentapi"
)

// openAPIRouter loads the served document once, validated.
var openAPIRouter = sync.OnceValues(func() (routers.Router, error) {
	// JSONL bodies are checked as text (their schema is a string).
	openapi3filter.RegisterBodyDecoder("application/x-ndjson", openapi3filter.PlainBodyDecoder)
	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromData(OpenAPI())
	if err != nil {
		return nil, err
	}
	if err := doc.Validate(loader.Context); err != nil {
		return nil, err
	}
	return legacy.NewRouter(doc)
})

// validating wraps the API so that every answer a test gets is checked
// against the OpenAPI document: a documented operation's status, headers
// and body must fit it; an undocumented path or method must be a 404 or
// 405 with the error body.
func validating(t testing.TB, h http.Handler) http.Handler {
	router, err := openAPIRouter()
	if err != nil {
		t.Fatalf("the OpenAPI document does not load: %v", err)
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, r)
		for k, v := range rec.Header() {
			w.Header()[k] = v
		}
		w.WriteHeader(rec.Code)
		_, _ = w.Write(rec.Body.Bytes())
		if r.Method == http.MethodHead || strings.HasPrefix(r.URL.Path, "/v1/") {
			return
		}
		if err := validateAnswer(router, r, rec); err != nil {
			t.Errorf("%s %s answered %d, which the OpenAPI document does not allow: %v\nbody: %.500s", r.Method, r.URL.Path, rec.Code, err, rec.Body.Bytes())
		}
	})
}

func validateAnswer(router routers.Router, r *http.Request, rec *httptest.ResponseRecorder) error {
	route, params, err := router.FindRoute(r)
	if err != nil {
		if rec.Code != http.StatusNotFound && rec.Code != http.StatusMethodNotAllowed {
			return errors.New("no documented operation, yet not a 404 or 405")
		}
		var body map[string]any
		if json.Unmarshal(rec.Body.Bytes(), &body) != nil || len(body) != 1 || body["error"] == nil {
			return errors.New("undocumented path answered without the error body")
		}
		return nil
	}
	return openapi3filter.ValidateResponse(context.Background(), &openapi3filter.ResponseValidationInput{
		RequestValidationInput: &openapi3filter.RequestValidationInput{Request: r, PathParams: params, Route: route},
		Status:                 rec.Code,
		Header:                 rec.Header(),
		Body:                   io.NopCloser(bytes.NewReader(rec.Body.Bytes())),
		Options:                &openapi3filter.Options{IncludeResponseStatus: true},
	})
}

// TestOpenAPIDocument: GET /v2/openapi.json serves a valid OpenAPI 3.1
// document that covers every registered route and method (and nothing
// else), with the API key scheme and the bodies of all 35 evaluators.
func TestOpenAPIDocument(t *testing.T) {
	s, _ := newSetupServer(t)
	st, header, body := s.send(t, "GET", "/v2/openapi.json", authA, nil)
	if st != 200 || header.Get("Content-Type") != "application/json" || !bytes.Equal(body, OpenAPI()) {
		t.Fatalf("GET /v2/openapi.json = %d %s", st, header.Get("Content-Type"))
	}
	if st, _, _ := s.send(t, "GET", "/v2/openapi.json", "", nil); st != 401 {
		t.Errorf("the document without a key = %d, want 401", st)
	}
	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromData(body)
	if err != nil {
		t.Fatal(err)
	}
	if err := doc.Validate(loader.Context); err != nil {
		t.Fatalf("invalid OpenAPI document: %v", err)
	}
	if doc.OpenAPI != "3.1.0" || doc.Components.SecuritySchemes["ApiKey"] == nil || doc.Components.SecuritySchemes["ApiKey"].Value.Name != "Authorization" {
		t.Errorf("openapi %s, security schemes %v", doc.OpenAPI, doc.Components.SecuritySchemes)
	}

	// Every route of the API is documented, with its methods, and every
	// documented operation is a route.
	api := New(Options{Setups: &setupsStub{}, Organizations: &orgsStub{}, MonitoringStatus: statusStub{}, Mounts: []Mount{annotationapi.New(nil), alertapi.New(nil, nil), datasetapi.New(nil), experimentapi.New(nil, nil)}, CustomEvaluators: customStub{}})
	type op struct{ path, method string }
	documented := map[op]bool{}
	for path, item := range doc.Paths.Map() {
		for method := range item.Operations() {
			documented[op{path, method}] = true
		}
	}
	served := map[op]bool{}
	for pattern, methods := range api.Routes() {
		re := patternRegexp(pattern)
		for _, m := range methods {
			matched := false
			for d := range documented {
				if d.method == m && re.MatchString(concretePath(d.path)) {
					matched, served[d] = true, true
				}
			}
			if !matched {
				t.Errorf("route %s %s is not in the OpenAPI document", m, pattern)
			}
		}
	}
	var extra []string
	for d := range documented {
		if !served[d] {
			extra = append(extra, d.method+" "+d.path)
		}
	}
	sort.Strings(extra)
	if len(extra) > 0 {
		t.Errorf("documented operations the API does not serve: %v", extra)
	}
	for _, d := range evaluators.Catalogue() {
		for _, p := range []string{"/v2/evaluators/execute/" + d.Slug, "/v2/evaluators/" + d.Slug + "/execute", "/v2/guardrails/" + d.Slug + "/execute"} {
			if doc.Paths.Find(p) == nil || doc.Paths.Find(p).Post == nil {
				t.Errorf("%s is not documented", p)
			}
		}
		name := camel(d.Slug)
		req := doc.Components.Schemas[name+"Request"]
		if req == nil || len(req.Value.Properties["input"].Value.Properties) != len(d.Inputs) {
			t.Errorf("%sRequest does not list the %d inputs of %s", name, len(d.Inputs), d.Slug)
		}
		outputs := len(d.Outputs)
		if d.Explains() {
			outputs++ // the explanation of explain=true
		}
		if resp := doc.Components.Schemas[name+"Response"]; resp == nil || len(resp.Value.Properties) != outputs {
			t.Errorf("%sResponse does not list the %d outputs of %s", name, len(d.Outputs), d.Slug)
		}
	}
}

// TestOpenAPIRejectsWrongAnswers: the validation of the API tests does
// fail on an answer that breaks the document.
func TestOpenAPIRejectsWrongAnswers(t *testing.T) {
	router, err := openAPIRouter()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		path, body string
		status     int
	}{
		{"/v2/evaluators/execute/toxicity-detector", `{"is_safe":true}`, 200},                          // the evaluator path answers "safe"/"unsafe"
		{"/v2/guardrails/toxicity-detector/execute", `{"result":{"is_safe":"safe"},"pass":true}`, 200}, // the guardrail path answers booleans
		{"/v2/evaluators/execute/char-count", `{"char_count":3,"extra":1}`, 200},
		{"/v2/evaluators/execute/char-count", `{"message":"bad"}`, 400},
	} {
		r := httptest.NewRequest("POST", tc.path, nil)
		rec := httptest.NewRecorder()
		rec.Header().Set("Content-Type", "application/json")
		rec.WriteHeader(tc.status)
		rec.WriteString(tc.body)
		if err := validateAnswer(router, r, rec); err == nil {
			t.Errorf("%s answering %d %s passed validation", tc.path, tc.status, tc.body)
		}
	}
}

// patternRegexp matches the paths of a ServeMux pattern.
func patternRegexp(pattern string) *regexp.Regexp {
	parts := strings.Split(pattern, "/")
	for i, p := range parts {
		if strings.HasPrefix(p, "{") {
			parts[i] = "[^/]+"
		} else {
			parts[i] = regexp.QuoteMeta(p)
		}
	}
	return regexp.MustCompile("^" + strings.Join(parts, "/") + "$")
}

// concretePath fills a documented path's parameters.
func concretePath(path string) string {
	return regexp.MustCompile(`\{[^}]+\}`).ReplaceAllString(path, "x")
}

// Stubs that only make New register every route.
type setupsStub struct{ SetupService }
type orgsStub struct{ OrganizationService }
type statusStub struct{ StatusService }
type customStub struct{ CustomEvaluatorService }

// TestEveryEvaluatorAnswersItsSchema runs all 35 evaluators through their
// three paths with inputs built from the catalogue; the validating server
// checks each answer against the generated request and response schemas.
// The monitoring status is checked the same way.
func TestEveryEvaluatorAnswersItsSchema(t *testing.T) {
	s := newTestServer(t, nil)
	special := map[string]string{
		"prompts": `["Hello, how can I help?"]`, "completions": `["Hi! Happy to help."]`,
		"logprobs": `[-0.5, -1.25, -0.1]`, "placeholder_value": `\d+`, "html1": "<p>a</p>", "html2": "<p>b</p>",
		"trajectory_prompts": `["Find user info"]`, "trajectory_completions": `["User found"]`,
		"executed_tool_calls": `[{"name": "search", "arguments": {"q": "x"}}]`, "expected_tool_calls": `["search"]`,
	}
	for _, d := range evaluators.Catalogue() {
		input := map[string]any{}
		for _, f := range d.Inputs {
			input[f.Name] = "Paris is the capital of France, said Jane in 2024."
			if v, ok := special[f.Name]; ok {
				input[f.Name] = v
			}
		}
		req := map[string]any{"input": input}
		if d.Slug == "regex-validator" {
			req["config"] = map[string]any{"regex": `\d+`}
		}
		body, _ := json.Marshal(req)
		for _, p := range []string{"/v2/evaluators/execute/" + d.Slug, "/v2/evaluators/" + d.Slug + "/execute", "/v2/guardrails/" + d.Slug + "/execute"} {
			if st, got := s.do(t, "POST", p, authA, body); st != 200 {
				t.Errorf("POST %s = %d %v", p, st, got)
			}
		}
	}
	if st, got := s.do(t, "GET", "/v2/monitoring/status", authA, nil); st != 200 || got["status"] != "OK" || got["environment"] != "env-a" {
		t.Errorf("GET /v2/monitoring/status = %d %v", st, got)
	}
}
