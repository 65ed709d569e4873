// Package customevaluators serves the custom (LLM judge) evaluators of the
// /v2 API: create, list, get, update (a new version), delete and execute,
// as Traceloop's SDK calls them (client.evaluator.create, list, get,
// update, run). A custom evaluator belongs to the organization and project
// of the API key that made it. httpapi authenticates each request, puts
// the tenant in its context and calls these handlers; the judge call
// itself is internal/judge's.
package customevaluators

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"

	"go.uber.org/zap"

	"github.com/evalcol/evalcol/extension/evalapiextension/internal/httpjson"
	"github.com/evalcol/evalcol/internal/judge"
	"github.com/evalcol/evalcol/internal/randid"
	"github.com/evalcol/evalcol/internal/tenant"
	"github.com/evalcol/evalcol/internal/warehouse"
)

// Judge runs judge calls (judge.Client).
type Judge interface {
	Run(ctx context.Context, spec judge.Spec, input map[string]any) (judge.Result, error)
	Has(provider string) bool
	Providers() []string
}

// Options configures the API.
type Options struct {
	// Store keeps the evaluators as warehouse documents.
	Store warehouse.DocumentStore
	Judge Judge
	// IsPrebuilt reports whether a slug is a prebuilt evaluator's: a
	// custom evaluator may not take it.
	IsPrebuilt func(slug string) bool
	// MaxPerProject caps the evaluators of a project (default 1000).
	MaxPerProject int
	Logger        *zap.Logger
}

// DefaultMaxPerProject is the default of Options.MaxPerProject.
const DefaultMaxPerProject = 500

// API serves the custom evaluator endpoints.
type API struct {
	opts  Options
	store store
}

// New returns the API.
func New(opts Options) *API {
	if opts.Logger == nil {
		opts.Logger = zap.NewNop()
	}
	if opts.MaxPerProject <= 0 {
		opts.MaxPerProject = DefaultMaxPerProject
	}
	if opts.IsPrebuilt == nil {
		opts.IsPrebuilt = func(string) bool { return false }
	}
	return &API{opts: opts, store: store{docs: opts.Store}}
}

// Type is the type of every custom evaluator in the API's answers.
const Type = "llm_as_a_judge"

// Evaluator is a custom evaluator as the API answers it: the fields of the
// SDK's EvaluatorData, snake_case (the SDK turns them into camelCase).
type Evaluator struct {
	ID           string        `json:"id"`
	Name         string        `json:"name"`
	Slug         string        `json:"slug"`
	Type         string        `json:"type"`
	Description  string        `json:"description"`
	Version      string        `json:"version"`
	Source       string        `json:"source"`
	InputSchema  []judge.Field `json:"input_schema"`
	OutputSchema []judge.Field `json:"output_schema"`
	Config       Config        `json:"config"`
	CreatedAt    string        `json:"created_at"`
	UpdatedAt    string        `json:"updated_at"`
}

// Config is the LLM configuration of an evaluator, in the SDK's shape.
type Config struct {
	Provider    string          `json:"provider"`
	Messages    []judge.Message `json:"messages"`
	Description string          `json:"description"`
	LLMConfig   LLMConfig       `json:"llm_config"`
}

// LLMConfig is the model and its sampling parameters.
type LLMConfig struct {
	Model string `json:"model"`
	judge.Params
}

// SourceCustom is the source of custom evaluators in listings.
const SourceCustom = "custom"

// object is v as the API answers it.
func (v Version) object() Evaluator {
	d := v.Definition
	return Evaluator{
		ID: v.ID, Name: d.Name, Slug: v.Slug, Type: Type, Description: d.Description, Version: strconv.FormatInt(v.Version, 10),
		Source: SourceCustom, InputSchema: nonNil(d.InputSchema), OutputSchema: nonNil(d.OutputSchema),
		Config:    Config{Provider: d.Provider, Messages: d.Messages, Description: d.Description, LLMConfig: LLMConfig{Model: d.Model, Params: d.Params}},
		CreatedAt: v.CreatedAt.UTC().Format(time.RFC3339), UpdatedAt: v.UpdatedAt.UTC().Format(time.RFC3339),
	}
}

func nonNil(fs []judge.Field) []judge.Field {
	if fs == nil {
		return []judge.Field{}
	}
	return fs
}

// Resolve returns the latest version of the tenant's evaluator whose id or
// slug is ref (warehouse.ErrNotFound when there is none).
func (a *API) Resolve(ctx context.Context, t tenant.Tenant, ref string) (Version, error) {
	return a.store.get(ctx, t.ProjectScope(), ref)
}

// Run runs the latest version of the tenant's evaluator ref on input
// (for experiments), returning the judge's result and the version that
// ran.
func (a *API) Run(ctx context.Context, t tenant.Tenant, ref string, input map[string]any) (judge.Result, Version, error) {
	v, err := a.Resolve(ctx, t, ref)
	if err != nil {
		return judge.Result{}, v, err
	}
	res, err := a.opts.Judge.Run(ctx, v.Definition.Spec(), input)
	return res, v, err
}

// VersionOf returns one version of the tenant's evaluator id, also of a
// deleted one (warehouse.ErrNotFound when there is none).
func (a *API) VersionOf(ctx context.Context, t tenant.Tenant, id string, version int64) (Version, error) {
	return a.store.version(ctx, t.ProjectScope(), id, version)
}

// List returns the tenant's evaluators, as the API answers them.
func (a *API) List(ctx context.Context, t tenant.Tenant) ([]Evaluator, error) {
	vs, err := a.store.list(ctx, t.ProjectScope(), a.opts.MaxPerProject)
	if err != nil {
		return nil, err
	}
	out := make([]Evaluator, 0, len(vs))
	for _, v := range vs {
		out = append(out, v.object())
	}
	return out, nil
}

// idPrefix starts every custom evaluator's id (and no slug).
const idPrefix = "ce_"

// newID returns a new evaluator id: "ce_" and 128 random bits (no slug
// starts so).
func newID() string { return idPrefix + randid.New() }

// IsID reports whether ref has the form of a custom evaluator's id.
func IsID(ref string) bool { return strings.HasPrefix(ref, idPrefix) }

// reservedSlug is the path segment of /v2/evaluators/execute/<slug>, which
// no evaluator may take.
const reservedSlug = "execute"

// createResponse is the answer of POST /v2/evaluators (the SDK reads
// evaluator_id and slug).
type createResponse struct {
	EvaluatorID string `json:"evaluator_id"`
	Slug        string `json:"slug"`
	Version     string `json:"version"`
}

// Create serves POST /v2/evaluators.
func (a *API) Create(w http.ResponseWriter, r *http.Request) {
	t, _ := tenant.FromContext(r.Context())
	body, ok := readBody(w, r)
	if !ok {
		return
	}
	d, slug, err := parseCreate(body)
	if err == nil {
		err = d.validate(a.opts.Judge.Has, a.opts.Judge.Providers())
	}
	if err != nil {
		a.writeError(w, err)
		return
	}
	if slug == "" {
		slug = slugFromName(d.Name)
	}
	if a.opts.IsPrebuilt(slug) {
		writeError(w, http.StatusConflict, fmt.Sprintf("slug: %q is a prebuilt evaluator's slug; choose another", slug))
		return
	}
	if slug == reservedSlug {
		writeError(w, http.StatusConflict, fmt.Sprintf("slug: %q is a path segment of the API (/v2/evaluators/execute/<slug>); choose another", slug))
		return
	}
	existing, err := a.store.list(r.Context(), t.ProjectScope(), a.opts.MaxPerProject)
	if err != nil {
		a.writeError(w, err)
		return
	}
	if len(existing) >= a.opts.MaxPerProject {
		httpjson.WriteError(w, http.StatusConflict, fmt.Sprintf("the project holds %d custom evaluators, the most allowed; delete one first", len(existing)))
		return
	}
	e, err := a.store.create(r.Context(), t.ProjectScope(), newID(), slug, d)
	if a.historyOnly(err) {
		err = nil
	}
	if err != nil {
		if errors.Is(err, warehouse.ErrConflict) {
			httpjson.WriteError(w, http.StatusConflict, fmt.Sprintf("slug: %q is taken by another evaluator of this project", slug))
			return
		}
		a.writeError(w, err)
		return
	}
	w.Header().Set("Location", "/v2/evaluators/"+e.ID)
	writeJSON(w, http.StatusCreated, createResponse{EvaluatorID: e.ID, Slug: slug, Version: "1"})
}

// Get serves GET /v2/evaluators/{ref}.
func (a *API) Get(w http.ResponseWriter, r *http.Request, ref string) {
	t, _ := tenant.FromContext(r.Context())
	v, err := a.Resolve(r.Context(), t, ref)
	if err != nil {
		a.writeError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, v.object())
}

// updateResponse is the answer of PATCH (the SDK reads evaluator.id).
type updateResponse struct {
	Evaluator Evaluator `json:"evaluator"`
}

// Update serves PATCH /v2/evaluators/{ref}: the fields given change, in a
// new version.
func (a *API) Update(w http.ResponseWriter, r *http.Request, ref string) {
	t, _ := tenant.FromContext(r.Context())
	body, ok := readBody(w, r)
	if !ok {
		return
	}
	v, err := a.Resolve(r.Context(), t, ref)
	if err != nil {
		a.writeError(w, err)
		return
	}
	d := v.Definition
	changed, err := applyUpdate(&d, body)
	if err == nil && !changed {
		err = &FieldError{Field: "body", Msg: "names nothing to change (name, description, provider, model, messages, input_schema, output_schema, config, config.llm_config, ...)"}
	}
	if err == nil {
		err = d.validate(a.opts.Judge.Has, a.opts.Judge.Providers())
	}
	if err != nil {
		a.writeError(w, err)
		return
	}
	next := v
	next.Version++
	next.Definition = d
	saved, err := a.store.update(r.Context(), t.ProjectScope(), next)
	if a.historyOnly(err) {
		err = nil
	}
	if err != nil {
		if errors.Is(err, warehouse.ErrConflict) {
			httpjson.WriteError(w, http.StatusConflict, "the evaluator changed meanwhile (another update made version "+strconv.FormatInt(next.Version, 10)+"); read it again and retry")
			return
		}
		a.writeError(w, err)
		return
	}
	httpjson.WriteJSON(w, http.StatusOK, updateResponse{Evaluator: saved.object()})
}

// Delete serves DELETE /v2/evaluators/{ref}.
func (a *API) Delete(w http.ResponseWriter, r *http.Request, ref string) {
	t, _ := tenant.FromContext(r.Context())
	v, err := a.Resolve(r.Context(), t, ref)
	if err == nil {
		err = a.store.remove(r.Context(), t.ProjectScope(), v.ID)
	}
	if err != nil {
		a.writeError(w, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// executeRequest is the body of the execute endpoints.
type executeRequest struct {
	Input json.RawMessage `json:"input"`
}

// guardrailResponse is the answer of /v2/guardrails/{ref}/execute.
type guardrailResponse struct {
	Result map[string]any `json:"result"`
	Pass   bool           `json:"pass"`
}

// Headers of an execute answer: which version ran, and its tokens.
const (
	HeaderEvaluatorID   = "X-Evaluator-Id"
	HeaderVersion       = "X-Evaluator-Version"
	HeaderInputTokens   = "X-Judge-Input-Tokens"
	HeaderOutputTokens  = "X-Judge-Output-Tokens"
	HeaderStructuredVia = "X-Judge-Mode"
)

// Execute serves POST /v2/evaluators/{ref}/execute (and the other execute
// paths): the judge's output object, synchronously. With guardrail it
// answers {result, pass} as for the prebuilt guardrails; the evaluator
// then needs a boolean output named passed or pass.
func (a *API) Execute(w http.ResponseWriter, r *http.Request, ref string, guardrail bool) {
	t, _ := tenant.FromContext(r.Context())
	body, ok := readBody(w, r)
	if !ok {
		return
	}
	v, err := a.Resolve(r.Context(), t, ref)
	if err != nil {
		a.writeError(w, err)
		return
	}
	var req executeRequest
	if err := decodeStrict(body, &req); err != nil {
		a.writeError(w, err)
		return
	}
	if len(req.Input) == 0 || string(req.Input) == "null" {
		a.writeError(w, fieldErrorf("input", "is required: send {\"input\": {...}} with the fields of input_schema"))
		return
	}
	var input map[string]any
	if err := json.Unmarshal(req.Input, &input); err != nil || input == nil {
		a.writeError(w, fieldErrorf("input", "must be a JSON object"))
		return
	}
	res, err := a.opts.Judge.Run(r.Context(), v.Definition.Spec(), input)
	w.Header().Set(HeaderEvaluatorID, v.ID)
	w.Header().Set(HeaderVersion, strconv.FormatInt(v.Version, 10))
	if err != nil {
		a.writeJudgeError(w, v, err)
		return
	}
	w.Header().Set(HeaderInputTokens, strconv.FormatInt(res.Usage.InputTokens, 10))
	w.Header().Set(HeaderOutputTokens, strconv.FormatInt(res.Usage.OutputTokens, 10))
	w.Header().Set(HeaderStructuredVia, res.Mode)
	a.opts.Logger.Debug("custom evaluator ran", zap.String("evaluator", v.ID), zap.Int64("version", v.Version),
		zap.String("provider", v.Definition.Provider), zap.String("mode", res.Mode), zap.Int("attempts", res.Attempts),
		zap.Int64("input_tokens", res.Usage.InputTokens), zap.Int64("output_tokens", res.Usage.OutputTokens), zap.Duration("duration", res.Duration))
	if !guardrail {
		writeJSON(w, http.StatusOK, res.Output)
		return
	}
	if res.Verdict.Passed == nil {
		writeError(w, http.StatusBadRequest, fmt.Sprintf("evaluator %q has no boolean output named passed or pass, so it cannot be a guardrail; use /v2/evaluators/%s/execute", v.Slug, v.Slug))
		return
	}
	writeJSON(w, http.StatusOK, guardrailResponse{Result: res.Output, Pass: *res.Verdict.Passed})
}

// historyOnly reports (and logs) whether err says only that a stored
// version is missing from the version history: the change itself is
// stored.
func (a *API) historyOnly(err error) bool {
	var he *historyError
	if !errors.As(err, &he) {
		return false
	}
	a.opts.Logger.Warn("custom evaluator stored, but not in its version history", zap.Error(err))
	return true
}

// writeJudgeError answers a failed judge call.
func (a *API) writeJudgeError(w http.ResponseWriter, v Version, err error) {
	je, ok := judge.AsError(err)
	if !ok {
		a.writeError(w, err)
		return
	}
	status := http.StatusBadGateway
	switch je.Kind {
	case judge.KindInput:
		status = http.StatusBadRequest
	case judge.KindRateLimited, judge.KindBusy:
		status = http.StatusTooManyRequests
		w.Header().Set("Retry-After", strconv.Itoa(int(max(1, math.Ceil(je.RetryAfter.Seconds())))))
	case judge.KindTimeout:
		status = http.StatusGatewayTimeout
	case judge.KindConfig:
		status = http.StatusServiceUnavailable
	}
	if status != http.StatusBadRequest {
		a.opts.Logger.Warn("custom evaluator failed", zap.String("evaluator", v.ID), zap.Int64("version", v.Version),
			zap.String("kind", je.Kind.String()), zap.Int64("input_tokens", je.Usage.InputTokens), zap.Int64("output_tokens", je.Usage.OutputTokens), zap.Error(err))
	}
	writeError(w, status, je.Error())
}

// writeError answers an error: a *FieldError 400, not found 404, the
// warehouse down 503, anything else 500 (logged, not shown).
func (a *API) writeError(w http.ResponseWriter, err error) {
	var fe *FieldError
	switch {
	case errors.As(err, &fe):
		writeError(w, http.StatusBadRequest, fe.Error())
	case errors.Is(err, warehouse.ErrNotFound):
		writeError(w, http.StatusNotFound, "evaluator not found: no prebuilt evaluator and no custom evaluator of this project has that slug or id")
	case warehouse.IsRetryable(err):
		a.opts.Logger.Warn("warehouse unavailable", zap.Error(err))
		w.Header().Set("Retry-After", "5")
		writeError(w, http.StatusServiceUnavailable, "warehouse unavailable, retry later")
	default:
		a.opts.Logger.Error("custom evaluators", zap.Error(err))
		writeError(w, http.StatusInternalServerError, "internal error")
	}
}

func writeError(w http.ResponseWriter, status int, msg string) { httpjson.WriteError(w, status, msg) }

func writeJSON(w http.ResponseWriter, status int, v any) { httpjson.WriteJSON(w, status, v) }

// readBody reads the request body (httpapi bounds its size), answering
// 413 or 400 itself when it cannot.
func readBody(w http.ResponseWriter, r *http.Request) ([]byte, bool) {
	body, ok := httpjson.ReadBody(w, r)
	return bytes.TrimSpace(body), ok
}
