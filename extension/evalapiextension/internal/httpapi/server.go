// Package httpapi is the /v2 REST API of evalcol: routing, authentication,
// body limits, JSON errors and the handlers. It depends only on the
// evaluator library, the warehouse and the tenant keyring, so it is tested
// with a real HTTP server and a real store, without a collector.
package httpapi

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"go.uber.org/zap"

	"github.com/evalcol/evalcol/evaluators"
	"github.com/evalcol/evalcol/extension/evalapiextension/internal/httpjson"
	"github.com/evalcol/evalcol/internal/cursorseal"
	"github.com/evalcol/evalcol/internal/tenant"
	"github.com/evalcol/evalcol/internal/warehouse"
)

// Options configures the API.
type Options struct {
	Keys   *tenant.Keyring
	Store  warehouse.Store
	Logger *zap.Logger
	// MaxBodyBytes limits request bodies; larger ones get 413.
	MaxBodyBytes int64
	// Setups serves the auto monitor setup endpoints; nil disables them.
	Setups SetupService
	// Organizations serves /v2/organizations (admin keys only); nil
	// disables it.
	Organizations OrganizationService
	// MonitoringStatus serves /v2/monitoring/status; nil disables it.
	MonitoringStatus StatusService
	// Health reports the health of the warehouse for /healthz.
	Health func(r *http.Request) error
	// OTLPProxy, when set, receives POST /v1/traces, /v1/metrics and
	// /v1/logs (forwarded to the OTLP/HTTP receiver, which authenticates
	// them itself) without this API's body limit.
	OTLPProxy http.Handler
	// EvaluatorLimits bound the evaluator work of each API key (zero: no
	// limit).
	EvaluatorLimits EvaluatorLimits
	// Cursors seals the cursors the API hands out to the environment of
	// the key (cursorseal); nil means a sealer of a random secret of this
	// process (the cursors of one collector only).
	Cursors *cursorseal.Sealer
	// Mounts are the routes of feature packages (annotations, ...),
	// served behind the API's authentication and body limit.
	Mounts []Mount
	// CustomEvaluators serves the custom (LLM judge) evaluators: POST
	// /v2/evaluators, /v2/evaluators/{id|slug} and the execute paths of
	// slugs that are not prebuilt; nil disables them.
	CustomEvaluators CustomEvaluatorService
	// RunEvaluator runs a validated evaluator request; nil means
	// (*evaluators.Definition).Run. Tests use it to inject faults.
	RunEvaluator func(ctx context.Context, def *evaluators.Definition, req evaluators.Request) (evaluators.Result, error)
}

// Mount is a feature package's part of the API.
type Mount interface {
	Routes() []httpjson.Route
}

// API serves the /v2 routes.
type API struct {
	opts Options
	mux  *http.ServeMux
	// table lists the registered routes (pattern → methods), which the
	// OpenAPI document must cover.
	table   map[string][]string
	limiter *keyLimiter // nil without limits
}

// New returns the API handler.
func New(opts Options) *API {
	if opts.Logger == nil {
		opts.Logger = zap.NewNop()
	}
	if opts.RunEvaluator == nil {
		opts.RunEvaluator = func(ctx context.Context, def *evaluators.Definition, req evaluators.Request) (evaluators.Result, error) {
			return def.Run(ctx, req)
		}
	}
	if opts.Cursors == nil {
		secret := make([]byte, 32)
		_, _ = rand.Read(secret) // never fails (crypto/rand)
		opts.Cursors = cursorseal.New(cursorseal.StaticKeys(secret))
	}
	a := &API{opts: opts, mux: http.NewServeMux(), table: map[string][]string{}, limiter: newKeyLimiter(opts.EvaluatorLimits)}
	a.routes()
	return a
}

// route registers h for pattern (a path, optionally with {wildcards}) and
// the allowed methods; other methods get 405 with a JSON body.
func (a *API) route(pattern string, authenticated bool, handlers map[string]http.HandlerFunc) {
	allowed := make([]string, 0, len(handlers))
	for m := range handlers {
		allowed = append(allowed, m)
	}
	allow := strings.Join(sortedStrings(allowed), ", ")
	a.table[pattern] = allowed
	a.mux.HandleFunc(pattern, func(w http.ResponseWriter, r *http.Request) {
		h, ok := handlers[r.Method]
		if !ok && r.Method == http.MethodHead {
			h, ok = handlers[http.MethodGet]
		}
		if !ok {
			w.Header().Set("Allow", allow)
			writeError(w, http.StatusMethodNotAllowed, fmt.Sprintf("method %s is not allowed on %s (allowed: %s)", r.Method, r.URL.Path, allow))
			return
		}
		if authenticated {
			t, ok := a.opts.Keys.Lookup(tenant.SecretFromAuthorization(r.Header.Get("Authorization")))
			if !ok {
				w.Header().Set("WWW-Authenticate", `Bearer realm="evalcol"`)
				msg := "missing API key: send Authorization: Bearer <key>"
				if r.Header.Get("Authorization") != "" {
					msg = "invalid API key"
				}
				writeError(w, http.StatusUnauthorized, msg)
				return
			}
			r = r.WithContext(tenant.NewContext(r.Context(), t))
		}
		h(w, r)
	})
}

func (a *API) routes() {
	a.route("/healthz", false, map[string]http.HandlerFunc{http.MethodGet: a.healthz})
	a.route("/v2/openapi.json", true, map[string]http.HandlerFunc{http.MethodGet: a.openAPI})
	if a.opts.CustomEvaluators != nil {
		a.route("/v2/evaluators", true, map[string]http.HandlerFunc{http.MethodGet: a.listEvaluators, http.MethodPost: a.opts.CustomEvaluators.Create})
		a.route("/v2/evaluators/{ref}", true, map[string]http.HandlerFunc{
			http.MethodGet: a.evaluator(http.MethodGet), http.MethodPatch: a.evaluator(http.MethodPatch), http.MethodDelete: a.evaluator(http.MethodDelete)})
	} else {
		a.route("/v2/evaluators", true, map[string]http.HandlerFunc{http.MethodGet: a.listEvaluators})
	}
	// /v2/evaluators/execute/<slug> and the newer /v2/evaluators/<slug>/execute
	// (of a prebuilt slug, else of a custom evaluator's id or slug).
	a.route("/v2/evaluators/{first}/{second}", true, map[string]http.HandlerFunc{http.MethodPost: a.execute(false)})
	a.route("/v2/guardrails/{slug}/execute", true, map[string]http.HandlerFunc{http.MethodPost: a.execute(true)})
	a.route("/v2/warehouse/spans", true, map[string]http.HandlerFunc{http.MethodGet: a.querySpans})
	a.route("/v2/metrics", true, map[string]http.HandlerFunc{http.MethodGet: a.queryMetricsGET, http.MethodPost: a.queryMetricsPOST})
	// The project-scoped path of Traceloop's metrics client.
	a.route("/v2/projects/{project_id}/metrics", true, map[string]http.HandlerFunc{
		http.MethodGet: a.inProject(a.queryMetricsGET), http.MethodPost: a.inProject(a.queryMetricsPOST)})
	if a.opts.Setups != nil {
		a.route("/v2/auto-monitor-setups", true, map[string]http.HandlerFunc{http.MethodGet: a.listSetups, http.MethodPost: a.createSetup})
		a.route("/v2/auto-monitor-setups/{id}", true, map[string]http.HandlerFunc{http.MethodGet: a.getSetup, http.MethodPut: a.updateSetup, http.MethodDelete: a.deleteSetup})
	}
	if a.opts.MonitoringStatus != nil {
		a.route("/v2/monitoring/status", true, map[string]http.HandlerFunc{http.MethodGet: a.monitoringStatus})
	}
	if a.opts.Organizations != nil {
		a.route("/v2/organizations", true, map[string]http.HandlerFunc{http.MethodGet: adminOnly(a.listOrganizations), http.MethodPost: adminOnly(a.createOrganization)})
		a.route("/v2/organizations/{org_id}", true, map[string]http.HandlerFunc{http.MethodGet: adminOnly(a.getOrganization)})
		a.route("/v2/organizations/{org_id}/environments", true, map[string]http.HandlerFunc{http.MethodPost: adminOnly(a.addEnvironment)})
		a.route("/v2/organizations/{org_id}/environments/{slug}/keys", true, map[string]http.HandlerFunc{http.MethodPost: adminOnly(a.issueKey)})
		a.route("/v2/organizations/{org_id}/keys/{key_id}", true, map[string]http.HandlerFunc{http.MethodDelete: adminOnly(a.revokeKey)})
		a.route("/v2/organizations/{org_id}/keys/{key_id}/rotate", true, map[string]http.HandlerFunc{http.MethodPost: adminOnly(a.rotateKey)})
	}
	for _, m := range a.opts.Mounts {
		for _, rt := range m.Routes() {
			a.route(rt.Pattern, !rt.Public, rt.Handlers)
		}
	}
	a.mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		writeError(w, http.StatusNotFound, fmt.Sprintf("no such endpoint: %s %s", r.Method, r.URL.Path))
	})
}

// Routes returns the registered route patterns and their methods.
func (a *API) Routes() map[string][]string {
	out := make(map[string][]string, len(a.table))
	for p, ms := range a.table {
		out[p] = append([]string(nil), ms...)
	}
	return out
}

// ServeHTTP serves a request, recovering a panic into a 500.
func (a *API) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	defer func() {
		if p := recover(); p != nil {
			if p == http.ErrAbortHandler {
				panic(p)
			}
			a.opts.Logger.Error("panic in /v2 handler", zap.String("path", r.URL.Path), zap.Any("panic", p), zap.Stack("stack"))
			writeError(w, http.StatusInternalServerError, "internal error")
		}
	}()
	if a.opts.OTLPProxy != nil && r.Method == http.MethodPost && isOTLPPath(r.URL.Path) {
		a.opts.OTLPProxy.ServeHTTP(w, r)
		return
	}
	if a.opts.MaxBodyBytes > 0 && r.Body != nil {
		r.Body = http.MaxBytesReader(w, r.Body, a.opts.MaxBodyBytes)
	}
	w.Header().Set("Cache-Control", "no-store")
	a.mux.ServeHTTP(w, r)
}

func isOTLPPath(p string) bool {
	return p == "/v1/traces" || p == "/v1/metrics" || p == "/v1/logs"
}

func (a *API) healthz(w http.ResponseWriter, r *http.Request) {
	status := map[string]string{"status": "ok", "warehouse": "ok"}
	code := http.StatusOK
	if a.opts.Health != nil {
		if err := a.opts.Health(r); err != nil {
			status["status"] = "degraded"
			status["warehouse"] = "unavailable"
			if errors.Is(err, warehouse.ErrWritesFailing) {
				status["warehouse"] = "writes_failing"
			}
			code = http.StatusServiceUnavailable
			a.opts.Logger.Warn("health check: warehouse degraded", zap.Error(err))
		}
	}
	writeJSON(w, code, status)
}

func writeError(w http.ResponseWriter, status int, msg string) { httpjson.WriteError(w, status, msg) }

func writeJSON(w http.ResponseWriter, status int, v any) { httpjson.WriteJSON(w, status, v) }

func readBody(w http.ResponseWriter, r *http.Request) ([]byte, bool) { return httpjson.ReadBody(w, r) }

func decodeObject(body []byte, v any) error { return httpjson.DecodeObject(body, v) }
