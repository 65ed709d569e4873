package console

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/evalcol/evalcol/evaluators"
	"github.com/evalcol/evalcol/extension/evalapiextension/internal/annotationapi"
	"github.com/evalcol/evalcol/internal/cursorseal"
	"github.com/evalcol/evalcol/internal/tenant"
	"github.com/evalcol/evalcol/internal/warehouse"
)

// chip is one evaluation result shown as a coloured label.
type chip struct {
	Name    string
	Verdict evaluators.Verdict
	// Title is the hover text: verdict, score, span and monitor.
	Title string
	// Count is the number of results of this evaluator and verdict the
	// chip stands for (a list row aggregates them).
	Count int
}

// maxChipTitles bounds the results one aggregated chip's hover text lists.
const maxChipTitles = 5

// aggregateChips merges the chips of one evaluator and verdict into one,
// counted, in the order first seen.
func aggregateChips(cs []chip) []chip {
	var out []chip
	at := map[[2]string]int{}
	for _, c := range cs {
		k := [2]string{c.Name, string(c.Verdict)}
		i, ok := at[k]
		if !ok {
			at[k] = len(out)
			c.Count = 1
			out = append(out, c)
			continue
		}
		o := &out[i]
		o.Count++
		switch {
		case o.Count <= maxChipTitles:
			o.Title += "\n" + c.Title
		case o.Count == maxChipTitles+1:
			o.Title += "\n…"
		}
	}
	return out
}

// listRow is one row of the traces list: a trace or a span.
type listRow struct {
	Link                           string
	Start                          int64
	Service, Workflow, Name, Model string
	// ModelTitle is the hover text of the model: the response model
	// where it differs from the requested one the column shows.
	ModelTitle string
	Duration   int64
	Tokens     int64
	// Cost is the priced tokens ("" when no model could be priced).
	Cost            string
	Spans, Errors   int
	NoRoot, Partial bool
	Chips           []chip
	// Feedback counts the annotations about the row's trace (or span),
	// by its id; FeedbackTitle lists them for the hover.
	Feedback      int
	FeedbackTitle string
	// Input and Output are the previews: the first user prompt and the
	// last completion, cut short, search hits marked.
	Input, Output []textPart
	traceID       string
	spanID        string
}

// preset is a time range link.
type preset struct {
	Label, Link string
	Active      bool
}

// sortLink is a column heading that sorts the list.
type sortLink struct {
	Link   string
	Active bool
	Arrow  string
}

// sortColumns are the sort keys of view's sortable columns, by column.
func sortColumns(view string) map[string]string {
	if view == "spans" {
		return map[string]string{"start": string(warehouse.SortTimestamp), "name": string(warehouse.SortSpanName),
			"duration": string(warehouse.SortDuration), "tokens": string(warehouse.SortTotalTokens)}
	}
	return map[string]string{"start": string(warehouse.SortTimestamp), "duration": string(warehouse.TraceSortLatency),
		"tokens": string(warehouse.TraceSortTokens), "cost": string(warehouse.TraceSortCost)}
}

// tracesData is the data of the traces page.
type tracesData struct {
	P                  listParams
	Errors             map[string]string
	Presets            []preset
	FromInput, ToInput string
	Rows               []listRow
	Matched            int64
	// CutByBytes: the spans of this page reached the page's size bound
	// (warehouse.DefaultPageBytes) before its limit; the next page goes on.
	CutByBytes bool
	NextLink   string
	FirstLink  string
	// PrevLink goes back one page ("" on the first page, or when the
	// page's link kept no earlier cursor: FirstLink then).
	PrevLink  string
	ViewLinks map[string]string
	// Sorts are the sortable columns' headings, by column (start, name,
	// duration, tokens, cost).
	Sorts map[string]*sortLink
	// SearchOff disables the search box (Options.SearchOff).
	SearchOff bool
	// MatchedNoun is what Matched counts ("matching span", "trace").
	MatchedNoun string
	// ScanCut: a sorted page with filters stopped after checking
	// warehouse.MaxSortedTraceScan traces.
	ScanCut      bool
	OrderLink    string
	Evaluators   []string
	VerdictLabel string
	// Suggest are the values the service, workflow and model filters
	// offer (a datalist each).
	Suggest suggestions
}

func (c *Console) tracesPage(w http.ResponseWriter, r *http.Request) {
	t, _ := tenant.FromContext(r.Context())
	now := c.opts.Now()
	p, errs := parseListParams(r.URL.Query(), now)
	data := tracesData{P: p, Errors: errs, Evaluators: evaluators.Slugs(), SearchOff: c.opts.SearchOff,
		FromInput: time.UnixMilli(p.FromMs).UTC().Format(customTimeLayout),
		ToInput:   time.UnixMilli(p.ToMs).UTC().Format(customTimeLayout)}
	for _, pr := range timePresets {
		q := p
		q.Range = pr.Key
		data.Presets = append(data.Presets, preset{Label: pr.Label, Link: q.url(false, nil), Active: p.Range == pr.Key})
	}
	data.ViewLinks = map[string]string{}
	for _, view := range []string{"traces", "spans"} {
		q := p
		q.View, q.Sort = view, viewSort(view, p.Sort)
		data.ViewLinks[view] = q.url(false, nil)
	}
	flip := p
	if p.Order == "desc" {
		flip.Order = "asc"
	} else {
		flip.Order = "desc"
	}
	data.OrderLink = flip.url(false, nil)
	data.Sorts = map[string]*sortLink{}
	for column, key := range sortColumns(p.View) {
		q := p
		q.Sort = key
		sl := &sortLink{Active: p.Sort == key}
		if sl.Active {
			q.Order = flip.Order
			sl.Arrow = map[string]string{"asc": "↑", "desc": "↓"}[p.Order]
		}
		sl.Link = q.url(false, nil)
		data.Sorts[column] = sl
	}
	data.FirstLink = p.url(false, nil)
	data.PrevLink = p.prevLink()
	data.Suggest = c.suggestions(r.Context(), t.Environment)
	if msg, bad := errs["q"]; bad {
		data.Errors["query"] = msg
		c.render(w, r, http.StatusBadRequest, "traces", page{Title: "Traces", Nav: "traces", Data: data})
		return
	}
	filters, err := c.listFilters(r.Context(), t, p)
	if err != nil {
		c.unavailable(w, r, err)
		return
	}
	if p.View == "spans" {
		err = c.listSpans(r, t, p, filters, &data)
	} else {
		err = c.listTraces(r, t, p, filters, &data)
	}
	if err != nil {
		if warehouse.IsQueryError(err) {
			data.Errors["query"] = err.Error()
			data.Rows, data.NextLink = nil, ""
			c.render(w, r, http.StatusBadRequest, "traces", page{Title: "Traces", Nav: "traces", Data: data})
			return
		}
		c.unavailable(w, r, err)
		return
	}
	c.render(w, r, http.StatusOK, "traces", page{Title: "Traces", Nav: "traces", Data: data})
}

// markFeedback counts, on each row, the annotations about its trace (or,
// in the spans view, its span) by id: one annotation query a page. A
// warehouse that does not answer leaves the counts out.
func (c *Console) markFeedback(ctx context.Context, env string, rows []listRow) {
	var ids []string
	for _, r := range rows {
		ids = append(ids, r.traceID)
		if r.spanID != "" {
			ids = append(ids, r.spanID)
		}
	}
	anns, err := annotationapi.ForEntities(ctx, c.opts.Store, env, ids)
	if err != nil || len(anns) == 0 {
		return
	}
	for i := range rows {
		var titles []string
		for _, a := range anns {
			if a.EntityInstanceID == rows[i].traceID || rows[i].spanID != "" && a.EntityInstanceID == rows[i].spanID {
				rows[i].Feedback++
				var tags []string
				for k, v := range a.Tags {
					tags = append(tags, fmt.Sprintf("%s=%v", k, v))
				}
				sort.Strings(tags)
				titles = append(titles, a.Task+": "+strings.Join(tags, " "))
			}
		}
		rows[i].FeedbackTitle = strings.Join(titles, "\n")
	}
}

// listFilters are p's span filters, its annotation filter resolved.
func (c *Console) listFilters(ctx context.Context, t tenant.Tenant, p listParams) ([]warehouse.Filter, error) {
	filters := p.filters()
	if p.Annotation == "" {
		return filters, nil
	}
	f, err := annotationapi.TraceFilter(ctx, c.opts.Store, t.Environment, p.Annotation)
	if err != nil {
		return nil, err
	}
	return append(filters, f), nil
}

func (c *Console) listTraces(r *http.Request, t tenant.Tenant, p listParams, filters []warehouse.Filter, data *tracesData) error {
	tr := c.opts.Store
	cursor, err := c.openCursor(r.Context(), cursorseal.Traces, t.Environment, p.Cursor)
	if err != nil {
		return err
	}
	sortBy := warehouse.TraceSortKey(p.Sort)
	if p.Sort == string(warehouse.SortTimestamp) {
		sortBy = warehouse.TraceSortStart
	}
	page, err := tr.QueryTraces(r.Context(), warehouse.TraceQuery{
		Environments: []string{t.Environment}, FromMs: p.FromMs, ToMs: p.ToMs, Filters: filters, Text: p.Q,
		SortBy: sortBy, Desc: p.Order == "desc", Limit: p.Limit, Cursor: cursor,
	})
	if err != nil {
		return err
	}
	// Counted when nothing but the range narrows the list.
	data.Matched, data.MatchedNoun, data.ScanCut = page.Total, "trace", page.ScanCut
	terms := p.terms()
	for _, tr := range page.Traces {
		row := listRow{
			traceID: tr.TraceID,
			Link:    withSearch(traceLink(tr.TraceID, tr.Start, ""), p.Q),
			Input:   preview(tr.Input, terms), Output: preview(tr.Output, terms),
			Start: tr.Start, Name: tr.Root.SpanName, Duration: tr.End - tr.Start, Tokens: tr.TotalTokens,
			Spans: tr.SpanCount, Errors: tr.ErrorCount, NoRoot: !tr.HasRoot, Partial: tr.Partial,
			Service: strings.Join(tr.Services, ", "), Workflow: strings.Join(tr.Workflows, ", "), Model: strings.Join(tr.Models, ", "),
		}
		if tr.HasRoot {
			row.Service = tr.Root.ServiceName
			if tr.Root.WorkflowName != "" {
				row.Workflow = tr.Root.WorkflowName
			}
		}
		row.Cost = c.costText(tr.Usage)
		for _, ev := range tr.Evaluations {
			row.Chips = append(row.Chips, newChip(ev.Evaluation, ev.SpanName))
		}
		row.Chips = aggregateChips(row.Chips)
		data.Rows = append(data.Rows, row)
	}
	c.markFeedback(r.Context(), t.Environment, data.Rows)
	return c.nextLink(r.Context(), cursorseal.Traces, t.Environment, p, page.NextCursor, data)
}

func (c *Console) listSpans(r *http.Request, t tenant.Tenant, p listParams, filters []warehouse.Filter, data *tracesData) error {
	cursor, err := c.openCursor(r.Context(), cursorseal.Spans, t.Environment, p.Cursor)
	if err != nil {
		return err
	}
	page, err := c.opts.Store.QuerySpans(r.Context(), warehouse.SpanQuery{
		Environments: []string{t.Environment}, FromMs: p.FromMs, ToMs: p.ToMs, Filters: filters, Text: p.Q,
		SortBy: warehouse.SortKey(p.Sort), Desc: p.Order == "desc", Limit: p.Limit, Cursor: cursor,
	})
	if err != nil {
		return err
	}
	data.Matched, data.MatchedNoun = page.TotalResults, "matching span"
	data.CutByBytes = page.CutByBytes
	terms := p.terms()
	for _, s := range page.Spans {
		row := listRow{
			traceID: s.TraceID, spanID: s.SpanID,
			Link:   withSearch(traceLink(s.TraceID, s.Timestamp, s.SpanID), p.Q),
			Input:  preview(warehouse.FirstUserPrompt(&s), terms),
			Output: preview(warehouse.LastCompletion(&s), terms),
			Start:  s.Timestamp, Service: s.ServiceName, Workflow: s.WorkflowName, Name: s.SpanName,
			Duration: s.Duration, Tokens: s.TotalTokens, Model: firstNonEmpty(s.RequestModel, s.ResponseModel), Spans: 1,
		}
		if s.StatusCode == "STATUS_CODE_ERROR" {
			row.Errors = 1
		}
		if in, out := s.Usage(); in > 0 || out > 0 {
			row.Cost = c.costText([]warehouse.ModelUsage{{Model: s.PricedModel(), InputTokens: in, OutputTokens: out}})
		}
		if s.ResponseModel != "" && s.ResponseModel != row.Model {
			row.ModelTitle = "answered by " + s.ResponseModel
		}
		for _, ev := range s.Evaluations {
			row.Chips = append(row.Chips, newChip(ev, ""))
		}
		row.Chips = aggregateChips(row.Chips)
		data.Rows = append(data.Rows, row)
	}
	c.markFeedback(r.Context(), t.Environment, data.Rows)
	return c.nextLink(r.Context(), cursorseal.Spans, t.Environment, p, page.NextCursor, data)
}

// nextLink sets the link of the next page, with the warehouse cursor next
// sealed to the environment ("" on the last page: no link).
func (c *Console) nextLink(ctx context.Context, kind, env string, p listParams, next string, data *tracesData) error {
	sealed, err := c.opts.Cursors.Seal(ctx, kind, env, next)
	if err != nil {
		return err
	}
	if sealed != "" {
		back := append(append([]string(nil), p.Back...), cmp.Or(p.Cursor, firstPage))
		if len(back) > maxBack {
			back = back[len(back)-maxBack:]
		}
		data.NextLink = p.url(true, func(v url.Values) { v.Set("cursor", sealed); v["back"] = back })
	}
	return nil
}

// prevLink is the link of the page before p's: the top of its back stack
// ("" when the stack is empty).
func (p listParams) prevLink() string {
	if len(p.Back) == 0 || p.Cursor == "" {
		return ""
	}
	top, rest := p.Back[len(p.Back)-1], p.Back[:len(p.Back)-1]
	return p.url(true, func(v url.Values) {
		if top != firstPage {
			v.Set("cursor", top)
		}
		if len(rest) > 0 {
			v["back"] = rest
		}
	})
}

// terms are the search terms of p's q (nil: none or invalid).
func (p listParams) terms() []string {
	terms, _ := warehouse.SearchTerms(p.Q)
	return terms
}

// openCursor returns the warehouse cursor inside a cursor of this
// console's links; one of another environment or listing, or altered, is
// a *warehouse.QueryError (a 400 page).
func (c *Console) openCursor(ctx context.Context, kind, env, cursor string) (string, error) {
	if cursor == "" {
		return "", nil
	}
	inner, err := c.opts.Cursors.Open(ctx, kind, env, cursor)
	switch {
	case errors.Is(err, cursorseal.ErrForeign), errors.Is(err, cursorseal.ErrMalformed):
		return "", &warehouse.QueryError{Field: "cursor", Msg: err.Error() + "; open the first page again"}
	case err != nil:
		return "", err
	}
	return inner, nil
}

// traceLink is the URL of a trace page; ts (the start of a span of it)
// lets the page look in the right time window first.
func traceLink(traceID string, ts int64, spanID string) string {
	v := url.Values{}
	if ts > 0 {
		v.Set("ts", strconv.FormatInt(ts, 10))
	}
	if spanID != "" {
		v.Set("span", spanID)
	}
	return "/ui/traces/" + url.PathEscape(traceID) + "?" + v.Encode()
}

// verdictOf is the verdict of a stored evaluation: the one decided when it
// was recorded, else (stored before verdicts were) decided now.
func verdictOf(ev warehouse.Evaluation) evaluators.Verdict {
	if ev.Verdict != "" {
		return evaluators.Verdict(ev.Verdict)
	}
	return evaluators.VerdictOf(ev.Name, ev.Output, ev.Error)
}

func newChip(ev warehouse.Evaluation, spanName string) chip {
	v := verdictOf(ev)
	var b strings.Builder
	b.WriteString(ev.Name)
	b.WriteString(": ")
	if v == evaluators.VerdictNone {
		b.WriteString("no verdict")
	} else {
		b.WriteString(string(v))
	}
	if ev.Error != "" {
		b.WriteString(" (" + ev.Error + ")")
	} else {
		b.WriteString(" · score " + formatScore(ev.ScoreValue))
		if ev.ScoreLabel != "" {
			b.WriteString(" (" + ev.ScoreLabel + ")")
		}
	}
	if spanName != "" {
		b.WriteString(" · span " + spanName)
	}
	if ev.MonitorID != "" {
		b.WriteString(" · monitor " + ev.MonitorID)
	}
	return chip{Name: ev.Name, Verdict: v, Title: b.String()}
}

func firstNonEmpty(s ...string) string {
	for _, v := range s {
		if v != "" {
			return v
		}
	}
	return ""
}
