// Package annotationapi serves human feedback under /v2/annotation-tasks:
// annotation tasks (per organization and project, kept as warehouse
// documents) and their annotations (per environment, kept as metric points
// of source "annotation", so that /v2/metrics, the console and both
// backends read them as they read evaluator results). Traceloop's SDKs
// send end-user feedback here (userFeedback.create).
package annotationapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/evalcol/evalcol/extension/evalapiextension/internal/httpjson"
	"github.com/evalcol/evalcol/internal/annotation"
	"github.com/evalcol/evalcol/internal/randid"
	"github.com/evalcol/evalcol/internal/tenant"
	"github.com/evalcol/evalcol/internal/warehouse"
)

// Store is what the service needs of the warehouse.
type Store interface {
	warehouse.DocumentStore
	WriteMetricPoints(ctx context.Context, pts []warehouse.MetricPoint) error
	QueryMetrics(ctx context.Context, q warehouse.MetricQuery) (warehouse.MetricPage, error)
	QuerySpans(ctx context.Context, q warehouse.SpanQuery) (warehouse.SpanPage, error)
}

// Service serves the annotation routes.
type Service struct {
	store Store
	now   func() time.Time
}

// New returns the service over store.
func New(store Store) *Service { return &Service{store: store, now: time.Now} }

// Routes are the service's paths.
func (s *Service) Routes() []httpjson.Route {
	return []httpjson.Route{
		{Pattern: "/v2/annotation-tasks", Handlers: map[string]http.HandlerFunc{http.MethodGet: s.listTasks, http.MethodPost: s.createTask}},
		{Pattern: "/v2/annotation-tasks/{task}", Handlers: map[string]http.HandlerFunc{
			http.MethodGet: s.getTask, http.MethodPut: s.updateTask, http.MethodDelete: s.deleteTask}},
		{Pattern: "/v2/annotation-tasks/{task}/annotations", Handlers: map[string]http.HandlerFunc{
			http.MethodGet: s.listAnnotations, http.MethodPost: s.createAnnotation}},
	}
}

// taskRequest is the body of POST and PUT /v2/annotation-tasks.
type taskRequest struct {
	Slug        string           `json:"slug"`
	Name        string           `json:"name"`
	Description string           `json:"description"`
	Tags        []annotation.Tag `json:"tags"`
}

func tenantOf(w http.ResponseWriter, r *http.Request) (tenant.Tenant, bool) {
	t, ok := tenant.FromContext(r.Context())
	if !ok {
		httpjson.WriteError(w, http.StatusUnauthorized, "missing API key: send Authorization: Bearer <key>")
	}
	return t, ok
}

// storeError answers a warehouse error.
func storeError(w http.ResponseWriter, what string, err error) {
	switch {
	case errors.Is(err, warehouse.ErrNotFound):
		httpjson.WriteError(w, http.StatusNotFound, what+" not found")
	case errors.Is(err, warehouse.ErrConflict):
		httpjson.WriteError(w, http.StatusConflict, what+": "+err.Error())
	case warehouse.IsRetryable(err):
		httpjson.WriteError(w, http.StatusServiceUnavailable, "warehouse unavailable, retry later")
	default:
		httpjson.WriteError(w, http.StatusInternalServerError, "internal error")
	}
}

func fromDocument(d warehouse.Document) (annotation.Task, error) {
	var t annotation.Task
	if err := json.Unmarshal(d.Body, &t); err != nil {
		return t, fmt.Errorf("decode annotation task %s: %w", d.ID, err)
	}
	t.ID, t.Slug, t.Version, t.CreatedAt, t.UpdatedAt = d.ID, d.Slug, d.Version, d.CreatedAt, d.UpdatedAt
	return t, nil
}

func toDocument(scope string, t annotation.Task) (warehouse.Document, error) {
	body, err := json.Marshal(taskRequest{Slug: t.Slug, Name: t.Name, Description: t.Description, Tags: t.Tags})
	if err != nil {
		return warehouse.Document{}, fmt.Errorf("encode annotation task: %w", err)
	}
	return warehouse.Document{Kind: annotation.DocumentKind, Scope: scope, ID: t.ID, Slug: t.Slug, Body: body, Version: t.Version}, nil
}

func (s *Service) createTask(w http.ResponseWriter, r *http.Request) {
	ten, ok := tenantOf(w, r)
	if !ok {
		return
	}
	var req taskRequest
	if !httpjson.ReadStrict(w, r, &req) {
		return
	}
	t := annotation.Task{ID: randid.New(), Slug: req.Slug, Name: req.Name, Description: req.Description, Tags: req.Tags, Version: 1}
	if err := t.Validate(); err != nil {
		httpjson.WriteError(w, http.StatusBadRequest, err.Error())
		return
	}
	d, err := toDocument(ten.ProjectScope(), t)
	if err != nil {
		httpjson.WriteError(w, http.StatusInternalServerError, "internal error")
		return
	}
	if err := s.store.CreateDocument(r.Context(), d); err != nil {
		if errors.Is(err, warehouse.ErrConflict) {
			httpjson.WriteError(w, http.StatusConflict, fmt.Sprintf("an annotation task with slug %q exists", t.Slug))
			return
		}
		storeError(w, "annotation task", err)
		return
	}
	s.answerTask(w, r, ten, t.ID, http.StatusCreated)
}

// answerTask reads a task back and answers it.
func (s *Service) answerTask(w http.ResponseWriter, r *http.Request, ten tenant.Tenant, idOrSlug string, status int) {
	t, ok := s.task(w, r, ten, idOrSlug)
	if ok {
		httpjson.WriteJSON(w, status, t)
	}
}

// task reads a task by id or slug, answering 404 (naming it) or an error
// itself when it cannot.
func (s *Service) task(w http.ResponseWriter, r *http.Request, ten tenant.Tenant, idOrSlug string) (annotation.Task, bool) {
	d, err := s.store.GetDocument(r.Context(), annotation.DocumentKind, ten.ProjectScope(), idOrSlug)
	if err != nil {
		if errors.Is(err, warehouse.ErrNotFound) {
			httpjson.WriteError(w, http.StatusNotFound, fmt.Sprintf("annotation task %q not found: create it with POST /v2/annotation-tasks", idOrSlug))
			return annotation.Task{}, false
		}
		storeError(w, "annotation task", err)
		return annotation.Task{}, false
	}
	t, err := fromDocument(d)
	if err != nil {
		httpjson.WriteError(w, http.StatusInternalServerError, "internal error")
		return annotation.Task{}, false
	}
	return t, true
}

func (s *Service) getTask(w http.ResponseWriter, r *http.Request) {
	if ten, ok := tenantOf(w, r); ok {
		s.answerTask(w, r, ten, r.PathValue("task"), http.StatusOK)
	}
}

// taskList is the answer of GET /v2/annotation-tasks.
type taskList struct {
	Tasks      []annotation.Task `json:"annotation_tasks"`
	NextCursor string            `json:"next_cursor"`
}

func (s *Service) listTasks(w http.ResponseWriter, r *http.Request) {
	ten, ok := tenantOf(w, r)
	if !ok {
		return
	}
	q := warehouse.DocumentQuery{Kind: annotation.DocumentKind, Scope: ten.ProjectScope(), Limit: 100}
	if v := r.URL.Query().Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > warehouse.MaxDocumentPage {
			httpjson.WriteError(w, http.StatusBadRequest, fmt.Sprintf("limit: %q is not a number between 1 and %d", v, warehouse.MaxDocumentPage))
			return
		}
		q.Limit = n
	}
	if v := r.URL.Query().Get("cursor"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 0 {
			httpjson.WriteError(w, http.StatusBadRequest, fmt.Sprintf("cursor: %q is not a cursor this API handed out", v))
			return
		}
		q.AfterSeq = n
	}
	docs, err := s.store.ListDocuments(r.Context(), warehouse.DocumentQuery{Kind: q.Kind, Scope: q.Scope, AfterSeq: q.AfterSeq, Limit: q.Limit + 1})
	if err != nil {
		storeError(w, "annotation tasks", err)
		return
	}
	out := taskList{Tasks: []annotation.Task{}}
	for i, d := range docs {
		if i == q.Limit {
			out.NextCursor = strconv.FormatInt(docs[i-1].Seq, 10)
			break
		}
		t, err := fromDocument(d)
		if err != nil {
			httpjson.WriteError(w, http.StatusInternalServerError, "internal error")
			return
		}
		out.Tasks = append(out.Tasks, t)
	}
	httpjson.WriteJSON(w, http.StatusOK, out)
}

func (s *Service) updateTask(w http.ResponseWriter, r *http.Request) {
	ten, ok := tenantOf(w, r)
	if !ok {
		return
	}
	var req taskRequest
	if !httpjson.ReadStrict(w, r, &req) {
		return
	}
	t, ok := s.task(w, r, ten, r.PathValue("task"))
	if !ok {
		return
	}
	if req.Slug == "" {
		req.Slug = t.Slug
	}
	t.Slug, t.Name, t.Description, t.Tags, t.Version = req.Slug, req.Name, req.Description, req.Tags, t.Version+1
	if err := t.Validate(); err != nil {
		httpjson.WriteError(w, http.StatusBadRequest, err.Error())
		return
	}
	d, err := toDocument(ten.ProjectScope(), t)
	if err != nil {
		httpjson.WriteError(w, http.StatusInternalServerError, "internal error")
		return
	}
	if err := s.store.UpdateDocument(r.Context(), d); err != nil {
		storeError(w, "annotation task", err)
		return
	}
	s.answerTask(w, r, ten, t.ID, http.StatusOK)
}

func (s *Service) deleteTask(w http.ResponseWriter, r *http.Request) {
	ten, ok := tenantOf(w, r)
	if !ok {
		return
	}
	t, ok := s.task(w, r, ten, r.PathValue("task"))
	if !ok {
		return
	}
	if err := s.store.DeleteDocument(r.Context(), annotation.DocumentKind, ten.ProjectScope(), t.ID); err != nil {
		storeError(w, "annotation task", err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// annotationRequest is the body of POST .../annotations, as Traceloop's
// SDKs send it.
type annotationRequest struct {
	EntityInstanceID string         `json:"entity_instance_id"`
	Tags             map[string]any `json:"tags"`
	Source           string         `json:"source"`
	Flow             string         `json:"flow"`
	Actor            *struct {
		Type string `json:"type"`
		ID   string `json:"id"`
	} `json:"actor"`
}

// short reports whether s is valid UTF-8 of at most max bytes.
func short(s string, max int) bool { return len(s) <= max && utf8.ValidString(s) }

func (s *Service) createAnnotation(w http.ResponseWriter, r *http.Request) {
	ten, ok := tenantOf(w, r)
	if !ok {
		return
	}
	var req annotationRequest
	if !httpjson.ReadObject(w, r, &req) {
		return
	}
	t, ok := s.task(w, r, ten, r.PathValue("task"))
	if !ok {
		return
	}
	a := annotation.Annotation{ID: randid.New(), Task: t.Slug, EntityInstanceID: strings.TrimSpace(req.EntityInstanceID),
		Source: req.Source, Flow: req.Flow, CreatedAt: s.now().UTC()}
	if req.Actor != nil {
		a.ActorType, a.ActorID = req.Actor.Type, req.Actor.ID
	}
	if a.Source == "" {
		a.Source = "api"
	}
	if a.EntityInstanceID == "" || !short(a.EntityInstanceID, annotation.MaxEntityBytes) {
		httpjson.WriteError(w, http.StatusBadRequest, fmt.Sprintf("entity_instance_id: is required: the trace id, span id or association property value the feedback is about (at most %d bytes)", annotation.MaxEntityBytes))
		return
	}
	for name, v := range map[string]string{"source": a.Source, "flow": a.Flow, "actor.type": a.ActorType, "actor.id": a.ActorID} {
		if !short(v, annotation.MaxEntityBytes) {
			httpjson.WriteError(w, http.StatusBadRequest, fmt.Sprintf("%s: must be valid UTF-8 of at most %d bytes", name, annotation.MaxEntityBytes))
			return
		}
	}
	tags, err := t.CheckTags(req.Tags)
	if err != nil {
		httpjson.WriteError(w, http.StatusBadRequest, err.Error())
		return
	}
	a.Tags = tags
	if err := s.store.WriteMetricPoints(r.Context(), annotation.Points(ten.Environment, ten.OrganizationID, a)); err != nil {
		storeError(w, "annotation", err)
		return
	}
	httpjson.WriteJSON(w, http.StatusCreated, a)
}

// annotationList is the answer of GET .../annotations.
type annotationList struct {
	Annotations []annotation.Annotation `json:"annotations"`
}

func (s *Service) listAnnotations(w http.ResponseWriter, r *http.Request) {
	ten, ok := tenantOf(w, r)
	if !ok {
		return
	}
	t, ok := s.task(w, r, ten, r.PathValue("task"))
	if !ok {
		return
	}
	filters := []warehouse.Filter{{Field: "labels." + annotation.LabelTask, Operator: warehouse.OpEquals, Value: t.Slug}}
	if e := r.URL.Query().Get("entity_instance_id"); e != "" {
		filters = append(filters, warehouse.Filter{Field: "labels." + annotation.LabelEntity, Operator: warehouse.OpEquals, Value: e})
	}
	anns, err := Find(r.Context(), s.store, ten.Environment, filters)
	if err != nil {
		storeError(w, "annotations", err)
		return
	}
	httpjson.WriteJSON(w, http.StatusOK, annotationList{Annotations: anns})
}

// MaxFound bounds the annotation points Find reads.
const MaxFound = warehouse.MaxMetricLimit

// Find returns the annotations of environment env whose points match
// filters (all of them), newest first, from at most MaxFound points.
func Find(ctx context.Context, store Store, env string, filters []warehouse.Filter) ([]annotation.Annotation, error) {
	page, err := store.QueryMetrics(ctx, warehouse.MetricQuery{Environments: []string{env}, MetricSource: warehouse.SourceAnnotation,
		Filters: filters, Desc: true, Limit: MaxFound})
	if err != nil {
		return nil, fmt.Errorf("read annotations: %w", err)
	}
	var pts []warehouse.MetricPoint
	for _, g := range page.Groups {
		pts = append(pts, g.Points...)
	}
	out := annotation.FromPoints(pts)
	if out == nil {
		out = []annotation.Annotation{}
	}
	return out, nil
}

// ForEntities returns the annotations of environment env about any of
// ids (trace ids, span ids, association property values; the first
// warehouse.MaxFilterValues of them).
func ForEntities(ctx context.Context, store Store, env string, ids []string) ([]annotation.Annotation, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	ids = ids[:min(len(ids), warehouse.MaxFilterValues)]
	return Find(ctx, store, env, []warehouse.Filter{{Field: "labels." + annotation.LabelEntity, Operator: warehouse.OpIn, Values: ids}})
}

// maxFilterAnnotations bounds the annotation points a span filter on
// annotations reads.
const maxFilterAnnotations = warehouse.MaxMetricLimit

// ParseFilterSpec splits an annotation filter "<task>.<tag>:<value>" (the
// value may be empty: any value).
func ParseFilterSpec(spec string) (task, tag, value string, err error) {
	name, value, _ := strings.Cut(spec, ":")
	task, tag, ok := strings.Cut(name, ".")
	if !ok || task == "" || tag == "" {
		return "", "", "", fmt.Errorf("%q is not <task>.<tag>:<value>, e.g. user-feedback.thumbs:false", spec)
	}
	return task, tag, value, nil
}

// TraceFilter resolves an annotation filter "<task>.<tag>:<value>" to a
// span filter: the traces that annotations of env with that tag value
// (any value when empty) are about, by trace id or by the id of one of
// their spans (annotations of association property values are not
// resolved here). It reads at most maxFilterAnnotations annotation
// points; a filter no trace matches matches nothing.
func TraceFilter(ctx context.Context, store Store, env, spec string) (warehouse.Filter, error) {
	task, tag, value, err := ParseFilterSpec(spec)
	if err != nil {
		return warehouse.Filter{}, &warehouse.QueryError{Field: "annotation", Msg: err.Error()}
	}
	page, err := store.QueryMetrics(ctx, warehouse.MetricQuery{Environments: []string{env}, MetricSource: warehouse.SourceAnnotation,
		MetricName: task + "." + tag, Desc: true, Limit: maxFilterAnnotations})
	if err != nil {
		return warehouse.Filter{}, fmt.Errorf("read annotations: %w", err)
	}
	traces := map[string]bool{}
	var spans []string
	for _, g := range page.Groups {
		for _, p := range g.Points {
			if value != "" && pointValue(p) != value {
				continue
			}
			switch {
			case p.TraceID != "":
				traces[p.TraceID] = true
			case p.SpanID != "":
				spans = append(spans, p.SpanID)
			}
		}
	}
	if len(spans) > 0 {
		spans = spans[:min(len(spans), warehouse.MaxFilterValues)]
		found, err := store.QuerySpans(ctx, warehouse.SpanQuery{Environments: []string{env}, Limit: warehouse.MaxSpanLimit,
			Filters: []warehouse.Filter{{Field: "span_id", Operator: warehouse.OpIn, Values: spans}}})
		if err != nil {
			return warehouse.Filter{}, fmt.Errorf("read annotated spans: %w", err)
		}
		for _, s := range found.Spans {
			traces[s.TraceID] = true
		}
	}
	ids := make([]string, 0, len(traces))
	for id := range traces {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	if len(ids) == 0 {
		ids = []string{"-"} // no trace has this id: the filter matches nothing
	}
	return warehouse.Filter{Field: "trace_id", Operator: warehouse.OpIn, Values: ids[:min(len(ids), warehouse.MaxFilterValues)]}, nil
}

// pointValue is an annotation point's value as a filter names it.
func pointValue(p warehouse.MetricPoint) string {
	switch {
	case p.BoolValue != nil:
		return strconv.FormatBool(*p.BoolValue)
	case p.NumericValue != nil:
		return strconv.FormatFloat(*p.NumericValue, 'g', -1, 64)
	case p.EnumValue != nil:
		return *p.EnumValue
	}
	return ""
}
