package httpapi

import (
	"context"
	"fmt"
	"net/http"

	"github.com/evalcol/evalcol/evaluators"
	"github.com/evalcol/evalcol/extension/evalapiextension/internal/customevaluators"
	"github.com/evalcol/evalcol/internal/tenant"
)

// CustomEvaluatorService serves the custom (LLM judge) evaluators
// (customevaluators.API). Its handlers read the tenant from the request's
// context.
type CustomEvaluatorService interface {
	Create(w http.ResponseWriter, r *http.Request)
	Get(w http.ResponseWriter, r *http.Request, ref string)
	Update(w http.ResponseWriter, r *http.Request, ref string)
	Delete(w http.ResponseWriter, r *http.Request, ref string)
	Execute(w http.ResponseWriter, r *http.Request, ref string, guardrail bool)
	List(ctx context.Context, t tenant.Tenant) ([]customevaluators.Evaluator, error)
}

// Sources of GET /v2/evaluators?source=.
const (
	sourcePrebuilt = "prebuilt"
	sourceCustom   = customevaluators.SourceCustom
)

// listEvaluators serves GET /v2/evaluators: the prebuilt catalogue, then
// the key's project's custom evaluators; ?source=prebuilt or custom keeps
// one of them.
func (a *API) listEvaluators(w http.ResponseWriter, r *http.Request) {
	source := r.URL.Query().Get("source")
	if source != "" && source != sourcePrebuilt && source != sourceCustom {
		writeError(w, http.StatusBadRequest, fmt.Sprintf("source: %q is not a source (use prebuilt or custom, or leave it out for both)", source))
		return
	}
	out := []any{}
	if source != sourceCustom {
		for _, d := range evaluators.Catalogue() {
			out = append(out, prebuiltInfo(d))
		}
	}
	if source != sourcePrebuilt && a.opts.CustomEvaluators != nil {
		t, _ := tenant.FromContext(r.Context())
		custom, err := a.opts.CustomEvaluators.List(r.Context(), t)
		if err != nil {
			a.writeStoreError(w, err)
			return
		}
		for _, c := range custom {
			out = append(out, c)
		}
	}
	writeJSON(w, http.StatusOK, map[string]any{"evaluators": out})
}

// prebuiltInfo is the catalogue entry of a prebuilt evaluator.
func prebuiltInfo(d *evaluators.Definition) evaluatorInfo {
	return evaluatorInfo{Definition: d, Source: sourcePrebuilt, Paths: []string{
		"/v2/evaluators/execute/" + d.Slug, "/v2/evaluators/" + d.Slug + "/execute", "/v2/guardrails/" + d.Slug + "/execute",
	}}
}

// evaluator serves GET, PATCH and DELETE /v2/evaluators/{ref}: a prebuilt
// slug answers its catalogue entry and cannot be changed; anything else is
// a custom evaluator's id or slug.
func (a *API) evaluator(method string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		ref := r.PathValue("ref")
		if d, ok := evaluators.Lookup(ref); ok {
			if method == http.MethodGet {
				writeJSON(w, http.StatusOK, prebuiltInfo(d))
				return
			}
			writeError(w, http.StatusForbidden, fmt.Sprintf("%q is a prebuilt evaluator: it cannot be changed or deleted", ref))
			return
		}
		switch method {
		case http.MethodGet:
			a.opts.CustomEvaluators.Get(w, r, ref)
		case http.MethodPatch:
			a.opts.CustomEvaluators.Update(w, r, ref)
		case http.MethodDelete:
			a.opts.CustomEvaluators.Delete(w, r, ref)
		}
	}
}
