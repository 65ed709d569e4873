package httpapi

import (
	"context"
	"errors"
	"net/http"
	"strconv"

	"go.uber.org/zap"

	"github.com/evalcol/evalcol/evaluators"
	"github.com/evalcol/evalcol/extension/evalapiextension/internal/annotationapi"
	"github.com/evalcol/evalcol/internal/cursorseal"
	"github.com/evalcol/evalcol/internal/tenant"
	"github.com/evalcol/evalcol/internal/warehouse"
)

// spanJSON is a span as GET /v2/warehouse/spans returns it: the spec's
// Span object plus the evaluator results recorded on the span. The field
// order is the order of the JSON object.
type spanJSON struct {
	Environment        string            `json:"environment"`
	Timestamp          int64             `json:"timestamp"` // start time, Unix ms
	TraceID            string            `json:"trace_id"`
	SpanID             string            `json:"span_id"`
	ParentSpanID       string            `json:"parent_span_id"`
	TraceState         string            `json:"trace_state"`
	SpanName           string            `json:"span_name"`
	SpanKind           string            `json:"span_kind"`
	ServiceName        string            `json:"service_name"`
	ResourceAttributes map[string]string `json:"resource_attributes"`
	ScopeName          string            `json:"scope_name"`
	ScopeVersion       string            `json:"scope_version"`
	SpanAttributes     map[string]string `json:"span_attributes"`
	Duration           int64             `json:"duration"` // ms
	StatusCode         string            `json:"status_code"`
	StatusMessage      string            `json:"status_message"`
	Prompts            map[string]string `json:"prompts"`
	Completions        map[string]string `json:"completions"`
	Input              string            `json:"input"`
	Output             string            `json:"output"`
	Evaluations        []evaluationJSON  `json:"evaluations"`
}

// evaluationJSON is one evaluator result of a span.
type evaluationJSON struct {
	Name       string         `json:"name"`
	ScoreValue float64        `json:"score_value"`
	ScoreLabel string         `json:"score_label,omitempty"`
	Output     map[string]any `json:"output,omitempty"`
	MonitorID  string         `json:"monitor_id,omitempty"`
	Error      string         `json:"error,omitempty"`
	// Verdict, Truncated and Explanation are answered only to a request
	// with explain=true, so that the spec's shape stays as it is for
	// clients that compare it.
	Verdict     string                  `json:"verdict,omitempty"`
	Truncated   bool                    `json:"truncated,omitempty"`
	Explanation *evaluators.Explanation `json:"explanation,omitempty"`
}

// newSpanJSON returns the API form of a stored span.
func newSpanJSON(s warehouse.Span) spanJSON { return newSpanJSONExplained(s, false) }

// newSpanJSONExplained is newSpanJSON, with each evaluation's verdict,
// truncation mark and explanation when explain is set.
func newSpanJSONExplained(s warehouse.Span, explain bool) spanJSON {
	evals := make([]evaluationJSON, len(s.Evaluations))
	for i, e := range s.Evaluations {
		evals[i] = evaluationJSON{Name: e.Name, ScoreValue: e.ScoreValue, ScoreLabel: e.ScoreLabel, Output: e.Output,
			MonitorID: e.MonitorID, Error: e.Error}
		if explain {
			evals[i].Verdict, evals[i].Truncated, evals[i].Explanation = e.Verdict, e.Truncated, e.Explanation
		}
	}
	return spanJSON{Environment: s.Environment, Timestamp: s.Timestamp, TraceID: s.TraceID, SpanID: s.SpanID,
		ParentSpanID: s.ParentSpanID, TraceState: s.TraceState, SpanName: s.SpanName, SpanKind: s.SpanKind,
		ServiceName: s.ServiceName, ResourceAttributes: s.ResourceAttributes, ScopeName: s.ScopeName,
		ScopeVersion: s.ScopeVersion, SpanAttributes: s.SpanAttributes, Duration: s.Duration, StatusCode: s.StatusCode,
		StatusMessage: s.StatusMessage, Prompts: s.Prompts, Completions: s.Completions, Input: s.Input, Output: s.Output,
		Evaluations: evals}
}

// SpanView returns span s in the form GET /v2/warehouse/spans returns it,
// for other readers that show a span's JSON (the console).
func SpanView(s warehouse.Span) any { return newSpanJSON(s) }

// PageCutHeader is the response header of a span or metric page that
// holds fewer rows than its limit because they reached the page's size
// bound (warehouse.DefaultPageBytes); its value is "bytes". The body keeps
// the shape of the spec: next_cursor continues after the last row.
const PageCutHeader = "X-Evalcol-Page-Cut"

// markCut sets PageCutHeader on a page cut by bytes.
func markCut(w http.ResponseWriter, cut bool) {
	if cut {
		w.Header().Set(PageCutHeader, "bytes")
	}
}

type spanPageView struct {
	Data         []spanJSON `json:"data"`
	PageSize     int        `json:"page_size"`
	TotalResults int64      `json:"total_results"`
	NextCursor   string     `json:"next_cursor"`
}

func (a *API) querySpans(w http.ResponseWriter, r *http.Request) {
	t, _ := tenant.FromContext(r.Context())
	explain, err := explainParam(r)
	if err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	q, err := ParseSpanQuery(r.URL.Query())
	if err != nil {
		a.writeStoreError(w, err)
		return
	}
	q.Environments = []string{t.Environment}
	if spec := r.URL.Query().Get("annotation"); spec != "" {
		f, err := annotationapi.TraceFilter(r.Context(), a.opts.Store, t.Environment, spec)
		if err == nil {
			q.Filters = append(q.Filters, f)
			q, err = q.Normalize()
		}
		if err != nil {
			a.writeStoreError(w, err)
			return
		}
	}
	if q.Cursor, err = a.openCursor(r.Context(), cursorseal.Spans, t.Environment, q.Cursor); err != nil {
		a.writeStoreError(w, err)
		return
	}
	page, err := a.opts.Store.QuerySpans(r.Context(), q)
	if err != nil {
		a.writeStoreError(w, err)
		return
	}
	next, err := a.opts.Cursors.Seal(r.Context(), cursorseal.Spans, t.Environment, page.NextCursor)
	if err != nil {
		a.writeStoreError(w, err)
		return
	}
	markCut(w, page.CutByBytes)
	view := spanPageView{Data: make([]spanJSON, len(page.Spans)), PageSize: len(page.Spans), TotalResults: page.TotalResults, NextCursor: next}
	for i, s := range page.Spans {
		view.Data[i] = newSpanJSONExplained(s, explain)
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
	q, err := parseMetricQuery(body, a.metricCursor(r))
	a.queryMetrics(w, r, q, err)
}

func (a *API) queryMetricsGET(w http.ResponseWriter, r *http.Request) {
	q, err := metricQueryFromValues(r.URL.Query(), a.metricCursor(r))
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
	next, err := a.opts.Cursors.Seal(r.Context(), cursorseal.Metrics, t.Environment, page.NextCursor)
	if err != nil {
		a.writeStoreError(w, err)
		return
	}
	markCut(w, page.CutByBytes)
	view := metricsView{Data: make([]groupView, len(page.Groups)), NextCursor: next, TotalPoints: page.TotalPoints, TotalResults: page.TotalResults}
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

// openCursor returns the warehouse cursor inside a cursor this API sealed
// for env and kind ("" stays ""); a cursor that does not open is a
// *warehouse.QueryError on "cursor".
func (a *API) openCursor(ctx context.Context, kind, env, cursor string) (string, error) {
	if cursor == "" {
		return "", nil
	}
	inner, err := a.opts.Cursors.Open(ctx, kind, env, cursor)
	switch {
	case errors.Is(err, cursorseal.ErrForeign):
		return "", queryErrorf("cursor", "%v; start again without a cursor", err)
	case errors.Is(err, cursorseal.ErrMalformed):
		return "", queryErrorf("cursor", "malformed cursor; pass next_cursor as it was returned")
	case err != nil:
		return "", err
	}
	return inner, nil
}

// metricCursor opens the metrics cursor of r's tenant. The spec's
// integer cursor is accepted only as 0 (the first page, which Traceloop's
// client sends): any other integer would be the warehouse's own cursor,
// which counts every tenant's points and is bound to no environment.
func (a *API) metricCursor(r *http.Request) cursorOpener {
	t, _ := tenant.FromContext(r.Context())
	return func(cursor string) (string, error) {
		if n, err := strconv.ParseInt(cursor, 10, 64); err == nil {
			if n == 0 {
				return "", nil
			}
			return "", queryErrorf("cursor", "integer cursors other than 0 are not accepted: pass next_cursor as it was returned (an opaque string), or 0 for the first page")
		}
		return a.openCursor(r.Context(), cursorseal.Metrics, t.Environment, cursor)
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
