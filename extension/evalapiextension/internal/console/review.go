package console

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"go.uber.org/zap"

	"github.com/evalcol/evalcol/extension/evalapiextension/internal/annotationapi"
	"github.com/evalcol/evalcol/internal/annotation"
	"github.com/evalcol/evalcol/internal/dataset"
	"github.com/evalcol/evalcol/internal/randid"
	"github.com/evalcol/evalcol/internal/tenant"
	"github.com/evalcol/evalcol/internal/warehouse"
)

// Review queues: a reviewer picks a queue (an annotation task and a
// filter of the traces list, optionally sampled), reads one span at a
// time with its verdicts, sets the task's tags and moves on. Queues and
// the claims that keep two reviewers off the same span are warehouse
// documents of the environment, so every collector of a warehouse shares
// them; labels are annotations (entity: the span id, flow
// "review:<queue id>").

const (
	queueKind = "review_queue"
	claimKind = "review_claim"
	// claimTTL is how long a span shown to a reviewer is kept from the
	// others.
	claimTTL = 10 * time.Minute
	// reviewScanLimit bounds the spans looked at to find the next one.
	reviewScanLimit = 2000
	// reviewPage is the spans read per query while looking.
	reviewPage = 200
	// reviewerCookie remembers the name a reviewer gave.
	reviewerCookie = "evalcol_reviewer"
	maxQueues      = 200
)

// reviewQueue is a queue's stored body.
type reviewQueue struct {
	ID            string `json:"-"`
	Name          string `json:"name"`
	Task          string `json:"task"`
	Filter        string `json:"filter"`
	SamplePercent int    `json:"sample_percent"`
}

// reviewClaim is a span's claim in a queue.
type reviewClaim struct {
	Reviewer  string   `json:"reviewer"`
	Until     int64    `json:"until"` // Unix ms
	SkippedBy []string `json:"skipped_by,omitempty"`
}

// sampled reports whether a span is in a queue's sample: a hash of its
// id, so that every reviewer and collector agrees.
func sampled(spanID string, percent int) bool {
	if percent >= 100 {
		return true
	}
	h := fnv.New32a()
	_, _ = h.Write([]byte(spanID))
	return int(h.Sum32()%100) < percent
}

// claimant is who holds claims and skips: this console session (two
// people logged in with the same key are two reviewers, and a reviewer
// who changes the name they give keeps their claims).
func claimant(r *http.Request) string {
	sum := sha256.Sum256([]byte("reviewer:" + sessionFrom(r.Context()).ID))
	return "reviewer " + hex.EncodeToString(sum[:4])
}

// reviewer is the name labels are recorded under: the one the reviewer
// gave, else the session's claimant name.
func reviewer(r *http.Request) string {
	if c, err := r.Cookie(reviewerCookie); err == nil {
		if v, err := url.QueryUnescape(c.Value); err == nil && strings.TrimSpace(v) != "" {
			return v
		}
	}
	return claimant(r)
}

func (c *Console) queues(ctx context.Context, env string) ([]reviewQueue, error) {
	docs, err := c.opts.Store.ListDocuments(ctx, warehouse.DocumentQuery{Kind: queueKind, Scope: env, Limit: maxQueues})
	if err != nil {
		return nil, err
	}
	out := make([]reviewQueue, 0, len(docs))
	for _, d := range docs {
		var q reviewQueue
		if err := json.Unmarshal(d.Body, &q); err != nil {
			return nil, fmt.Errorf("decode review queue %s: %w", d.ID, err)
		}
		q.ID = d.ID
		out = append(out, q)
	}
	return out, nil
}

func (c *Console) queue(ctx context.Context, env, id string) (reviewQueue, error) {
	d, err := c.opts.Store.GetDocument(ctx, queueKind, env, id)
	if err != nil {
		return reviewQueue{}, err
	}
	var q reviewQueue
	if err := json.Unmarshal(d.Body, &q); err != nil {
		return q, fmt.Errorf("decode review queue %s: %w", id, err)
	}
	q.ID = d.ID
	return q, nil
}

// tasks are the annotation tasks of the tenant's organization and project.
func (c *Console) tasks(ctx context.Context, t tenant.Tenant) ([]annotation.Task, error) {
	docs, err := c.opts.Store.ListDocuments(ctx, warehouse.DocumentQuery{Kind: annotation.DocumentKind, Scope: t.ProjectScope()})
	if err != nil {
		return nil, err
	}
	out := make([]annotation.Task, 0, len(docs))
	for _, d := range docs {
		var task annotation.Task
		if err := json.Unmarshal(d.Body, &task); err != nil {
			return nil, fmt.Errorf("decode annotation task %s: %w", d.ID, err)
		}
		task.ID, task.Slug = d.ID, d.Slug
		out = append(out, task)
	}
	return out, nil
}

// queueRow is one queue of the review page.
type queueRow struct {
	reviewQueue
	Labelled int
}

// reviewListData is the data of /ui/review.
type reviewListData struct {
	Queues []queueRow
	Tasks  []annotation.Task
	Form   queueForm
}

// queueForm is the new-queue form.
type queueForm struct {
	Name, Task, Filter, Sample string
	Errors                     map[string]string
}

func (c *Console) reviewPage(w http.ResponseWriter, r *http.Request) {
	c.renderReviewList(w, r, http.StatusOK, queueForm{Filter: r.URL.Query().Get("filter"), Sample: "100"})
}

func (c *Console) renderReviewList(w http.ResponseWriter, r *http.Request, status int, f queueForm) {
	t, _ := tenant.FromContext(r.Context())
	qs, err := c.queues(r.Context(), t.Environment)
	if err != nil {
		c.unavailable(w, r, err)
		return
	}
	tasks, err := c.tasks(r.Context(), t)
	if err != nil {
		c.unavailable(w, r, err)
		return
	}
	data := reviewListData{Tasks: tasks, Form: f}
	for _, q := range qs {
		labels, err := c.queueLabels(r.Context(), t.Environment, q)
		if err != nil {
			c.unavailable(w, r, err)
			return
		}
		data.Queues = append(data.Queues, queueRow{reviewQueue: q, Labelled: len(labels)})
	}
	c.render(w, r, status, "review", page{Title: "Review", Nav: "review", Data: data})
}

func (c *Console) createQueue(w http.ResponseWriter, r *http.Request) {
	t, _ := tenant.FromContext(r.Context())
	f := queueForm{Name: strings.TrimSpace(r.PostFormValue("name")), Task: r.PostFormValue("task"),
		Filter: strings.TrimPrefix(strings.TrimSpace(r.PostFormValue("filter")), "?"), Sample: strings.TrimSpace(r.PostFormValue("sample")),
		Errors: map[string]string{}}
	if f.Name == "" || len(f.Name) > 200 || !utf8.ValidString(f.Name) {
		f.Errors["name"] = "Give the queue a name (at most 200 bytes)."
	}
	if _, err := c.opts.Store.GetDocument(r.Context(), annotation.DocumentKind, t.ProjectScope(), f.Task); err != nil {
		if !errors.Is(err, warehouse.ErrNotFound) {
			c.unavailable(w, r, err)
			return
		}
		f.Errors["task"] = "Pick an annotation task (create one with POST /v2/annotation-tasks)."
	}
	filter, err := url.ParseQuery(f.Filter)
	if err == nil && len(f.Filter) > 4096 {
		err = errors.New("too long")
	}
	if err != nil {
		f.Errors["filter"] = "The filter is the query of a traces list URL, e.g. verdict=fail:toxicity-detector&range=7d."
	} else if _, errs := parseListParams(filter, time.Now()); len(errs) > 0 {
		for k, v := range errs {
			f.Errors["filter"] = k + ": " + v
		}
	}
	sample, err := strconv.Atoi(f.Sample)
	if err != nil || sample < 1 || sample > 100 {
		f.Errors["sample"] = "The sample is a whole percentage from 1 to 100."
	}
	if len(f.Errors) > 0 {
		c.renderReviewList(w, r, http.StatusBadRequest, f)
		return
	}
	q := reviewQueue{ID: randid.New(), Name: f.Name, Task: f.Task, Filter: f.Filter, SamplePercent: sample}
	body, _ := json.Marshal(q)
	if err := c.opts.Store.CreateDocument(r.Context(), warehouse.Document{Kind: queueKind, Scope: t.Environment, ID: q.ID, Body: body}); err != nil {
		c.unavailable(w, r, err)
		return
	}
	http.Redirect(w, r, "/ui/review/"+q.ID, http.StatusSeeOther)
}

// queueLabels are the annotations made in a queue (at most
// annotationapi.MaxFound tag values), newest first.
func (c *Console) queueLabels(ctx context.Context, env string, q reviewQueue) ([]annotation.Annotation, error) {
	return annotationapi.Find(ctx, c.opts.Store, env, []warehouse.Filter{
		{Field: "labels." + annotation.LabelTask, Operator: warehouse.OpEquals, Value: q.Task},
		{Field: "labels." + annotation.LabelFlow, Operator: warehouse.OpEquals, Value: "review:" + q.ID},
	})
}

// reviewData is the data of a queue's page.
type reviewData struct {
	Queue    reviewQueue
	Task     annotation.Task
	Reviewer string
	// Span is the span to label (nil: the queue is done for now).
	Span    *warehouse.Span
	Link    string
	Detail  traceData
	Matched int64
	Labels  []annotation.Annotation
	Notice  string
	Error   string
}

func (c *Console) reviewQueuePage(w http.ResponseWriter, r *http.Request) {
	t, _ := tenant.FromContext(r.Context())
	q, task, ok := c.queueAndTask(w, r, t)
	if !ok {
		return
	}
	data := reviewData{Queue: q, Task: task, Reviewer: reviewer(r), Notice: r.URL.Query().Get("notice")}
	span, matched, err := c.nextSpan(r.Context(), t.Environment, q, claimant(r))
	if err != nil {
		c.unavailable(w, r, err)
		return
	}
	data.Matched = matched
	if span != nil {
		data.Span, data.Link = span, traceLink(span.TraceID, span.Timestamp, span.SpanID)
		fillSpanDetails(&data.Detail, span)
	}
	if data.Labels, err = c.queueLabels(r.Context(), t.Environment, q); err != nil {
		c.unavailable(w, r, err)
		return
	}
	c.render(w, r, http.StatusOK, "review-queue", page{Title: "Review " + q.Name, Nav: "review", Data: data})
}

// queueAndTask reads the queue of the URL and its task, answering 404 or
// 503 itself when it cannot.
func (c *Console) queueAndTask(w http.ResponseWriter, r *http.Request, t tenant.Tenant) (reviewQueue, annotation.Task, bool) {
	q, err := c.queue(r.Context(), t.Environment, r.PathValue("id"))
	if errors.Is(err, warehouse.ErrNotFound) {
		c.renderError(w, r, http.StatusNotFound, "Queue not found", "There is no review queue "+quote(truncate(40, r.PathValue("id")))+" in environment "+quote(t.Environment)+".")
		return q, annotation.Task{}, false
	}
	if err != nil {
		c.unavailable(w, r, err)
		return q, annotation.Task{}, false
	}
	d, err := c.opts.Store.GetDocument(r.Context(), annotation.DocumentKind, t.ProjectScope(), q.Task)
	if errors.Is(err, warehouse.ErrNotFound) {
		c.renderError(w, r, http.StatusNotFound, "Task not found", "The queue's annotation task "+quote(q.Task)+" was deleted.")
		return q, annotation.Task{}, false
	}
	if err != nil {
		c.unavailable(w, r, err)
		return q, annotation.Task{}, false
	}
	var task annotation.Task
	if err := json.Unmarshal(d.Body, &task); err != nil {
		c.unavailable(w, r, err)
		return q, annotation.Task{}, false
	}
	task.ID, task.Slug = d.ID, d.Slug
	return q, task, true
}

// nextSpan finds the newest span of the queue that is in its sample, not
// labelled in its task, and not claimed by another reviewer, and claims
// it for name. It returns nil when there is none among the first
// reviewScanLimit spans, and the number of spans the filter matches.
func (c *Console) nextSpan(ctx context.Context, env string, q reviewQueue, name string) (*warehouse.Span, int64, error) {
	v, _ := url.ParseQuery(q.Filter)
	p, _ := parseListParams(v, time.Now())
	filters, err := c.listFilters(ctx, tenant.Tenant{Environment: env}, p)
	if err != nil {
		return nil, 0, err
	}
	sq := warehouse.SpanQuery{Environments: []string{env}, FromMs: p.FromMs, ToMs: p.ToMs, Filters: filters,
		SortBy: warehouse.SortTimestamp, Desc: true, Limit: reviewPage}
	var matched int64
	for scanned := 0; scanned < reviewScanLimit; {
		page, err := c.opts.Store.QuerySpans(ctx, sq)
		if err != nil {
			return nil, 0, err
		}
		if sq.Cursor == "" {
			matched = page.TotalResults
		}
		var ids []string
		for _, s := range page.Spans {
			if sampled(s.SpanID, q.SamplePercent) {
				ids = append(ids, s.SpanID)
			}
		}
		labelled := map[string]bool{}
		if len(ids) > 0 {
			anns, err := annotationapi.Find(ctx, c.opts.Store, env, []warehouse.Filter{
				{Field: "labels." + annotation.LabelTask, Operator: warehouse.OpEquals, Value: q.Task},
				{Field: "labels." + annotation.LabelEntity, Operator: warehouse.OpIn, Values: ids}})
			if err != nil {
				return nil, 0, err
			}
			for _, a := range anns {
				labelled[a.EntityInstanceID] = true
			}
		}
		for i := range page.Spans {
			s := &page.Spans[i]
			if !sampled(s.SpanID, q.SamplePercent) || labelled[s.SpanID] {
				continue
			}
			ok, err := c.claim(ctx, q, s.SpanID, name)
			if err != nil {
				return nil, 0, err
			}
			if ok {
				return s, matched, nil
			}
		}
		scanned += len(page.Spans)
		if page.NextCursor == "" {
			break
		}
		sq.Cursor = page.NextCursor
	}
	return nil, matched, nil
}

// claim gives spanID to name unless another reviewer holds it or name
// skipped it; it reports whether name holds it now.
func (c *Console) claim(ctx context.Context, q reviewQueue, spanID, name string) (bool, error) {
	now := time.Now()
	fresh := reviewClaim{Reviewer: name, Until: now.Add(claimTTL).UnixMilli()}
	body, _ := json.Marshal(fresh)
	err := c.opts.Store.CreateDocument(ctx, warehouse.Document{Kind: claimKind, Scope: q.ID, ID: spanID, Body: body})
	if err == nil {
		return true, nil
	}
	if !errors.Is(err, warehouse.ErrConflict) {
		return false, err
	}
	d, err := c.opts.Store.GetDocument(ctx, claimKind, q.ID, spanID)
	if errors.Is(err, warehouse.ErrNotFound) {
		return false, nil // released meanwhile: the next look takes it
	}
	if err != nil {
		return false, err
	}
	var held reviewClaim
	if err := json.Unmarshal(d.Body, &held); err != nil {
		return false, fmt.Errorf("decode claim: %w", err)
	}
	if slices.Contains(held.SkippedBy, name) {
		return false, nil
	}
	if held.Reviewer == name && held.Until > now.UnixMilli() {
		return true, nil
	}
	if held.Reviewer != "" && held.Until > now.UnixMilli() {
		return false, nil // another reviewer's
	}
	held.Reviewer, held.Until = name, fresh.Until
	d.Body, _ = json.Marshal(held)
	d.Version++
	if err := c.opts.Store.UpdateDocument(ctx, d); err != nil {
		if errors.Is(err, warehouse.ErrConflict) || errors.Is(err, warehouse.ErrNotFound) {
			return false, nil // another reviewer was quicker
		}
		return false, err
	}
	return true, nil
}

// skip releases a span name skipped and keeps it from name.
func (c *Console) skip(ctx context.Context, q reviewQueue, spanID, name string) error {
	d, err := c.opts.Store.GetDocument(ctx, claimKind, q.ID, spanID)
	if err != nil {
		return err
	}
	var held reviewClaim
	if err := json.Unmarshal(d.Body, &held); err != nil {
		return fmt.Errorf("decode claim: %w", err)
	}
	if !slices.Contains(held.SkippedBy, name) {
		held.SkippedBy = append(held.SkippedBy, name)
	}
	held.Reviewer, held.Until = "", 0
	d.Body, _ = json.Marshal(held)
	d.Version++
	return c.opts.Store.UpdateDocument(ctx, d)
}

func (c *Console) labelSpan(w http.ResponseWriter, r *http.Request) {
	t, _ := tenant.FromContext(r.Context())
	q, task, ok := c.queueAndTask(w, r, t)
	if !ok {
		return
	}
	if name := strings.TrimSpace(r.PostFormValue("reviewer")); name != "" && len(name) <= 100 && utf8.ValidString(name) {
		http.SetCookie(w, &http.Cookie{Name: reviewerCookie, Value: url.QueryEscape(name), Path: "/ui/", HttpOnly: true,
			SameSite: http.SameSiteStrictMode, Secure: c.secure(r), MaxAge: 365 * 24 * 3600})
		r.AddCookie(&http.Cookie{Name: reviewerCookie, Value: url.QueryEscape(name)})
	}
	name := reviewer(r)
	spanID := r.PostFormValue("span_id")
	back := "/ui/review/" + url.PathEscape(q.ID)
	if r.PostFormValue("action") == "skip" {
		if err := c.skip(r.Context(), q, spanID, claimant(r)); err != nil && !errors.Is(err, warehouse.ErrNotFound) {
			c.unavailable(w, r, err)
			return
		}
		http.Redirect(w, r, back+"?notice="+url.QueryEscape("Skipped "+truncate(16, spanID)+"."), http.StatusSeeOther)
		return
	}
	raw := map[string]any{}
	for _, tag := range task.Tags {
		v := strings.TrimSpace(r.PostFormValue("tag." + tag.Name))
		vs := r.PostForm["tag."+tag.Name]
		switch {
		case tag.Type == annotation.TypeCategory && len(vs) > 1:
			list := make([]any, len(vs))
			for i, s := range vs {
				list[i] = s
			}
			raw[tag.Name] = list
		case v == "":
		case tag.Type == annotation.TypeBoolean:
			raw[tag.Name] = v == "true"
		case tag.Type == annotation.TypeNumber:
			f, err := strconv.ParseFloat(v, 64)
			if err != nil {
				raw[tag.Name] = v // CheckTags names the mistake
			} else {
				raw[tag.Name] = f
			}
		default:
			raw[tag.Name] = v
		}
	}
	tags, err := task.CheckTags(raw)
	if err != nil {
		http.Redirect(w, r, back+"?notice="+url.QueryEscape("Not saved: "+err.Error()), http.StatusSeeOther)
		return
	}
	if spanID == "" || len(spanID) > annotation.MaxEntityBytes {
		c.renderError(w, r, http.StatusBadRequest, "No span", "The form names no span to label.")
		return
	}
	// A span is labelled once per task: a form sent twice stores nothing
	// the second time.
	prior, err := annotationapi.Find(r.Context(), c.opts.Store, t.Environment, []warehouse.Filter{
		{Field: "labels." + annotation.LabelTask, Operator: warehouse.OpEquals, Value: task.Slug},
		{Field: "labels." + annotation.LabelEntity, Operator: warehouse.OpEquals, Value: spanID}})
	if err != nil {
		c.unavailable(w, r, err)
		return
	}
	if len(prior) > 0 {
		http.Redirect(w, r, back+"?notice="+url.QueryEscape(truncate(16, spanID)+" was already labelled by "+prior[0].ActorID+"; nothing changed."), http.StatusSeeOther)
		return
	}
	a := annotation.Annotation{ID: randid.New(), Task: task.Slug, EntityInstanceID: spanID, Tags: tags, Source: "console",
		Flow: "review:" + q.ID, ActorType: "user", ActorID: name, CreatedAt: time.Now().UTC()}
	if err := c.opts.Store.WriteMetricPoints(r.Context(), annotation.Points(t.Environment, t.OrganizationID, a)); err != nil {
		c.unavailable(w, r, err)
		return
	}
	// The label keeps the span from everyone now; its claim can go (a
	// claim left behind only expires).
	if err := c.opts.Store.DeleteDocument(r.Context(), claimKind, q.ID, spanID); err != nil && !errors.Is(err, warehouse.ErrNotFound) {
		c.opts.Logger.Warn("release a review claim", zap.String("queue", q.ID), zap.Error(err))
	}
	http.Redirect(w, r, back+"?notice="+url.QueryEscape("Saved the labels of "+truncate(16, spanID)+"."), http.StatusSeeOther)
}

// spanText is a span's prompts (or input) and completions (or output) as
// plain text, the messages one per line.
func spanText(s *warehouse.Span) (input, output string) {
	join := func(ms []message, fallback string) string {
		if len(ms) == 0 {
			return fallback
		}
		parts := make([]string, len(ms))
		for i, m := range ms {
			parts[i] = m.Content
			if m.Role != "" {
				parts[i] = m.Role + ": " + m.Content
			}
		}
		return strings.Join(parts, "\n")
	}
	return join(messages(s.Prompts, "llm.prompts."), s.Input), join(messages(s.Completions, "llm.completions."), s.Output)
}

// labelledRows turns a queue's labelled spans into dataset rows: the
// span and trace ids, the conversation, and one column per tag.
func labelledRows(task annotation.Task, labels []annotation.Annotation, spans []warehouse.Span) ([]dataset.Column, []map[string]any) {
	cols := []dataset.Column{{Slug: "span-id", Name: "span_id", Type: dataset.TypeString}, {Slug: "trace-id", Name: "trace_id", Type: dataset.TypeString},
		{Slug: "input", Name: "input", Type: dataset.TypeString}, {Slug: "output", Name: "output", Type: dataset.TypeString}}
	for _, tag := range task.Tags {
		typ := dataset.TypeString
		switch tag.Type {
		case annotation.TypeBoolean:
			typ = dataset.TypeBoolean
		case annotation.TypeNumber:
			typ = dataset.TypeNumber
		}
		cols = append(cols, dataset.Column{Slug: dataset.SlugOf(tag.Name), Name: tag.Name, Type: typ})
	}
	bySpan := map[string]*warehouse.Span{}
	for i := range spans {
		bySpan[spans[i].SpanID] = &spans[i]
	}
	seen := map[string]bool{}
	var rows []map[string]any
	for _, a := range labels { // newest first: the latest label of a span
		sp := bySpan[a.EntityInstanceID]
		if sp == nil || seen[sp.SpanID] {
			continue
		}
		seen[sp.SpanID] = true
		in, out := spanText(sp)
		row := map[string]any{"span-id": sp.SpanID, "trace-id": sp.TraceID, "input": in, "output": out}
		for _, tag := range task.Tags {
			switch v := a.Tags[tag.Name].(type) {
			case nil:
			case []string:
				row[dataset.SlugOf(tag.Name)] = strings.Join(v, ", ")
			default:
				row[dataset.SlugOf(tag.Name)] = v
			}
		}
		rows = append(rows, row)
	}
	return cols, rows
}

// addToDataset adds a queue's labelled spans to a dataset of the
// project, once each.
func (c *Console) addToDataset(w http.ResponseWriter, r *http.Request) {
	if c.opts.Datasets == nil {
		c.renderError(w, r, http.StatusNotFound, "Datasets unavailable", "Datasets are not served by this collector.")
		return
	}
	t, _ := tenant.FromContext(r.Context())
	q, task, ok := c.queueAndTask(w, r, t)
	if !ok {
		return
	}
	labels, err := c.queueLabels(r.Context(), t.Environment, q)
	if err != nil {
		c.unavailable(w, r, err)
		return
	}
	ids := make([]string, 0, len(labels))
	for _, a := range labels {
		ids = append(ids, a.EntityInstanceID)
	}
	spans, err := c.labelledSpans(r.Context(), t.Environment, ids)
	if err != nil {
		c.unavailable(w, r, err)
		return
	}
	cols, rows := labelledRows(task, labels, spans)
	name := strings.TrimSpace(r.PostFormValue("dataset"))
	back := "/ui/review/" + url.PathEscape(q.ID)
	ds, added, err := c.opts.Datasets.Append(r.Context(), t, name, cols, "span-id", rows)
	var fe *dataset.FieldError
	if errors.As(err, &fe) {
		http.Redirect(w, r, back+"?notice="+url.QueryEscape("Not added: "+err.Error()), http.StatusSeeOther)
		return
	}
	if err != nil {
		c.unavailable(w, r, err)
		return
	}
	http.Redirect(w, r, back+"?notice="+url.QueryEscape(fmt.Sprintf("Added %d labelled spans to dataset %s (%d rows).", added, ds.Slug, ds.RowCount)), http.StatusSeeOther)
}

// spanToDataset adds one span's conversation to a dataset of the project
// (the trace page's "add to dataset"), once.
func (c *Console) spanToDataset(w http.ResponseWriter, r *http.Request) {
	if c.opts.Datasets == nil {
		c.renderError(w, r, http.StatusNotFound, "Datasets unavailable", "Datasets are not served by this collector.")
		return
	}
	t, _ := tenant.FromContext(r.Context())
	traceID, spanID := r.PathValue("id"), r.PostFormValue("span_id")
	spans, err := c.labelledSpans(r.Context(), t.Environment, []string{spanID})
	if err != nil {
		c.unavailable(w, r, err)
		return
	}
	var sp *warehouse.Span
	for i := range spans {
		if spans[i].TraceID == traceID {
			sp = &spans[i]
		}
	}
	if sp == nil {
		c.renderError(w, r, http.StatusNotFound, "Span not found", "There is no span "+quote(truncate(40, spanID))+" in trace "+quote(truncate(40, traceID))+".")
		return
	}
	in, out := spanText(sp)
	cols := []dataset.Column{{Slug: "span-id", Name: "span_id", Type: dataset.TypeString}, {Slug: "trace-id", Name: "trace_id", Type: dataset.TypeString},
		{Slug: "input", Name: "input", Type: dataset.TypeString}, {Slug: "output", Name: "output", Type: dataset.TypeString}}
	row := map[string]any{"span-id": sp.SpanID, "trace-id": sp.TraceID, "input": in, "output": out}
	ds, added, err := c.opts.Datasets.Append(r.Context(), t, strings.TrimSpace(r.PostFormValue("dataset")), cols, "span-id", []map[string]any{row})
	notice := fmt.Sprintf("Added this span to dataset %s (%d rows).", ds.Slug, ds.RowCount)
	var fe *dataset.FieldError
	switch {
	case errors.As(err, &fe):
		notice = "Not added: " + err.Error()
	case err != nil:
		c.unavailable(w, r, err)
		return
	case added == 0:
		notice = fmt.Sprintf("This span is in dataset %s already.", ds.Slug)
	}
	http.Redirect(w, r, traceLink(sp.TraceID, sp.Timestamp, sp.SpanID)+"&notice="+url.QueryEscape(notice), http.StatusSeeOther)
}
