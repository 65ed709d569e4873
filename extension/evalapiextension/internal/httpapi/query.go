package httpapi

import (
	"errors"
	"net/http"

	"go.uber.org/zap"

	"github.com/evalcol/evalcol/internal/tenant"
	"github.com/evalcol/evalcol/internal/warehouse"
)

// spanView is a span as GET /v2/warehouse/spans returns it: the spec's
// Span object plus the evaluator results recorded on the span.
type spanView struct {
	warehouse.Span
	Evaluations []warehouse.Evaluation `json:"evaluations"`
}

type spanPageView struct {
	Data         []spanView `json:"data"`
	PageSize     int        `json:"page_size"`
	TotalResults int64      `json:"total_results"`
	NextCursor   string     `json:"next_cursor"`
}

func (a *API) querySpans(w http.ResponseWriter, r *http.Request) {
	t, _ := tenant.FromContext(r.Context())
	q, err := warehouse.ParseSpanQuery(r.URL.Query())
	if err != nil {
		a.writeStoreError(w, err)
		return
	}
	q.Environments = []string{t.Environment}
	page, err := a.opts.Store.QuerySpans(r.Context(), q)
	if err != nil {
		a.writeStoreError(w, err)
		return
	}
	view := spanPageView{Data: make([]spanView, len(page.Spans)), PageSize: len(page.Spans), TotalResults: page.TotalResults, NextCursor: page.NextCursor}
	for i, s := range page.Spans {
		evals := s.Evaluations
		if evals == nil {
			evals = []warehouse.Evaluation{}
		}
		view.Data[i] = spanView{Span: s, Evaluations: evals}
	}
	writeJSON(w, http.StatusOK, map[string]any{"spans": view})
}

// pointView is a metric point of the API: exactly one value field is set.
type pointView struct {
	BoolValue    *bool             `json:"bool_value,omitempty"`
	EnumValue    *string           `json:"enum_value,omitempty"`
	NumericValue *float64          `json:"numeric_value,omitempty"`
	EventTime    int64             `json:"event_time"`
	Labels       map[string]string `json:"labels"`
}

type groupView struct {
	MetricName     string      `json:"metric_name"`
	OrganizationID string      `json:"organization_id"`
	Points         []pointView `json:"points"`
}

type metricsView struct {
	Data         []groupView `json:"data"`
	NextCursor   string      `json:"next_cursor"`
	TotalPoints  int64       `json:"total_points"`
	TotalResults int64       `json:"total_results"`
}

func (a *API) queryMetricsPOST(w http.ResponseWriter, r *http.Request) {
	body, ok := readBody(w, r)
	if !ok {
		return
	}
	q, err := warehouse.ParseMetricQuery(body)
	a.queryMetrics(w, r, q, err)
}

func (a *API) queryMetricsGET(w http.ResponseWriter, r *http.Request) {
	q, err := warehouse.MetricQueryFromValues(r.URL.Query())
	a.queryMetrics(w, r, q, err)
}

func (a *API) queryMetrics(w http.ResponseWriter, r *http.Request, q warehouse.MetricQuery, err error) {
	if err != nil {
		a.writeStoreError(w, err)
		return
	}
	t, _ := tenant.FromContext(r.Context())
	for _, env := range q.Environments {
		// A runtime environment answers to its slug too ("prd" of "<org>/prd").
		if env != t.Environment && (t.EnvironmentSlug == "" || env != t.EnvironmentSlug) {
			writeError(w, http.StatusForbidden, "environments: this API key may read only environment "+quote(t.Environment)+", not "+quote(env))
			return
		}
	}
	q.Environments = []string{t.Environment}
	page, err := a.opts.Store.QueryMetrics(r.Context(), q)
	if err != nil {
		a.writeStoreError(w, err)
		return
	}
	view := metricsView{Data: make([]groupView, len(page.Groups)), NextCursor: page.NextCursor, TotalPoints: page.TotalPoints, TotalResults: page.TotalResults}
	for i, g := range page.Groups {
		gv := groupView{MetricName: g.MetricName, OrganizationID: g.OrganizationID, Points: make([]pointView, len(g.Points))}
		for j, p := range g.Points {
			gv.Points[j] = pointView{BoolValue: p.BoolValue, EnumValue: p.EnumValue, NumericValue: p.NumericValue, EventTime: p.EventTime, Labels: p.Labels}
		}
		view.Data[i] = gv
	}
	writeJSON(w, http.StatusOK, map[string]any{"metrics": view})
}

// inProject serves h when the path's project is the key's (runtime
// organizations' keys, and YAML keys without a project_id, are in project
// "default"); 404 otherwise.
func (a *API) inProject(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		t, _ := tenant.FromContext(r.Context())
		project := t.ProjectID
		if project == "" {
			project = "default"
		}
		if p := r.PathValue("project_id"); p != project {
			writeError(w, http.StatusNotFound, "project "+quote(p)+" not found: this API key's project is "+quote(project))
			return
		}
		h(w, r)
	}
}

// writeStoreError answers a query or store error: 400 for a bad query,
// 503 when the warehouse is unavailable, 500 otherwise.
func (a *API) writeStoreError(w http.ResponseWriter, err error) {
	var qe *warehouse.QueryError
	switch {
	case errors.As(err, &qe):
		writeError(w, http.StatusBadRequest, qe.Error())
	case warehouse.IsRetryable(err):
		a.opts.Logger.Warn("warehouse unavailable", zap.Error(err))
		w.Header().Set("Retry-After", "5")
		writeError(w, http.StatusServiceUnavailable, "warehouse unavailable, retry later")
	default:
		a.opts.Logger.Error("warehouse query failed", zap.Error(err))
		writeError(w, http.StatusInternalServerError, "internal error")
	}
}

func quote(s string) string { return `"` + s + `"` }
