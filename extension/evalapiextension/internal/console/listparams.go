package console

import (
	"errors"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/evalcol/evalcol/extension/evalapiextension/internal/annotationapi"
	"github.com/evalcol/evalcol/internal/warehouse"
)

// timePresets are the time range presets of the traces list.
var timePresets = []struct {
	Key   string
	Label string
	Span  time.Duration
}{
	{"15m", "15 min", 15 * time.Minute},
	{"1h", "1 h", time.Hour},
	{"24h", "24 h", 24 * time.Hour},
	{"7d", "7 d", 7 * 24 * time.Hour},
}

const (
	defaultPreset = "1h"
	// customTimeLayout is the format of datetime-local inputs; the
	// console shows and reads every time in UTC.
	customTimeLayout = "2006-01-02T15:04"
	// defaultListLimit is the page size of the traces list.
	defaultListLimit = 50
	// maxBack bounds the cursors a list link keeps for its previous-page
	// links (beyond, "First page" goes back).
	maxBack = 20
	// firstPage stands for the first page in the back stack.
	firstPage = "first"
)

// listParams is the state of the traces list, read from and written to
// the URL so that a link reproduces the view.
type listParams struct {
	// Range is a preset key or "custom" (From and To then hold the
	// datetime-local values).
	Range    string
	From, To string
	// FromMs and ToMs are the resolved range (Unix ms, inclusive).
	FromMs, ToMs int64

	Service, Workflow, Agent, Entity, Span, Model string
	// Status is "error" (spans whose status is an error, or traces that
	// have one) or "" (any).
	Status string
	// Attrs are key=value span attribute filters.
	Attrs []string
	// Verdict is "<verdict>:<evaluator>" ("fail:toxicity-detector") or
	// "<verdict>:*" for any evaluator.
	Verdict string
	// Annotation is "<task>.<tag>:<value>": only the traces annotated so
	// (annotationapi.TraceFilter).
	Annotation string
	// Q is a full-text search in prompts and completions
	// (warehouse.SearchTerms), "" none.
	Q string
	// Back is the stack of the cursors of the pages before this one, the
	// latest last ("first" for the first page): the previous-page link
	// pops it (at most maxBack kept).
	Back []string
	// View is "traces" (one row per trace) or "spans".
	View string
	// Sort is a span sort key (spans view) or a trace sort key (traces
	// view; "timestamp" for start, see viewSort); Order is asc or desc.
	Sort, Order string
	Cursor      string
	Limit       int
	// LimitNotice says the page size asked for was above the maximum
	// and what was shown instead ("" otherwise).
	LimitNotice string
}

// parseListParams reads the list state from v; errs maps a form field to
// the problem with its value (the field is then ignored).
func parseListParams(v url.Values, now time.Time) (p listParams, errs map[string]string) {
	errs = map[string]string{}
	p.Range = v.Get("range")
	p.From, p.To = v.Get("from"), v.Get("to")
	if p.Range == "" && (p.From != "" || p.To != "") {
		p.Range = "custom"
	}
	if p.Range == "" {
		p.Range = defaultPreset
	}
	if !p.resolveRange(now, errs) {
		p.Range = defaultPreset
		p.resolveRange(now, errs)
	}
	p.Service = strings.TrimSpace(v.Get("service"))
	p.Workflow = strings.TrimSpace(v.Get("workflow"))
	p.Agent = strings.TrimSpace(v.Get("agent"))
	p.Entity = strings.TrimSpace(v.Get("entity"))
	p.Span = strings.TrimSpace(v.Get("span"))
	p.Model = strings.TrimSpace(v.Get("model"))
	switch p.Status = v.Get("status"); p.Status {
	case "", "error":
	default:
		errs["status"] = "status must be error or empty (any)"
		p.Status = ""
	}
	for _, a := range v["attr"] {
		a = strings.TrimSpace(a)
		if a == "" {
			continue
		}
		if k, _, ok := strings.Cut(a, "="); !ok || strings.TrimSpace(k) == "" {
			errs["attr"] = "write attribute filters as key=value, e.g. user.id=42"
			continue
		}
		p.Attrs = append(p.Attrs, a)
	}
	if s := v.Get("verdict"); s != "" {
		if _, _, err := parseVerdict(s); err != "" {
			errs["verdict"] = err
		} else {
			p.Verdict = s
		}
	}
	if s := strings.TrimSpace(v.Get("annotation")); s != "" {
		if _, _, _, err := annotationapi.ParseFilterSpec(s); err != nil {
			errs["annotation"] = err.Error()
		} else {
			p.Annotation = s
		}
	}
	if q := strings.TrimSpace(v.Get("q")); q != "" {
		p.Q = q
		if _, err := warehouse.SearchTerms(q); err != nil {
			var qe *warehouse.QueryError
			if errors.As(err, &qe) {
				errs["q"] = "search " + qe.Msg
			} else {
				errs["q"] = err.Error()
			}
		}
	}
	for _, b := range v["back"] {
		if b != "" && len(p.Back) < maxBack {
			p.Back = append(p.Back, b)
		}
	}
	p.View = v.Get("view")
	if p.View != "spans" {
		p.View = "traces"
	}
	p.Order = strings.ToLower(v.Get("order"))
	if p.Order != "asc" {
		p.Order = "desc"
	}
	p.Sort = viewSort(p.View, v.Get("sort"))
	p.Cursor = v.Get("cursor")
	p.Limit = defaultListLimit
	if s := v.Get("limit"); s != "" {
		n, err := strconv.Atoi(s)
		switch {
		case err != nil || n < 1:
			errs["limit"] = "must be a whole number between 1 and " + strconv.Itoa(warehouse.MaxTraceLimit) + "; showing " + strconv.Itoa(defaultListLimit)
		case n > warehouse.MaxTraceLimit:
			p.Limit = warehouse.MaxTraceLimit
			p.LimitNotice = "Showing at most " + strconv.Itoa(warehouse.MaxTraceLimit) + " rows a page (" + strconv.Itoa(n) + " asked for)."
		default:
			p.Limit = n
		}
	}
	return p, errs
}

// resolveRange sets FromMs and ToMs from Range (and From/To when custom);
// false when the custom range is invalid (errs says why).
func (p *listParams) resolveRange(now time.Time, errs map[string]string) bool {
	if p.Range == "custom" {
		from, ok := parseTime(p.From, false)
		if !ok {
			errs["from"] = "enter a start time (UTC)"
			return false
		}
		to := now.UnixMilli()
		if p.To != "" {
			if to, ok = parseTime(p.To, true); !ok {
				errs["to"] = "not a valid time"
				return false
			}
		}
		if to < from {
			errs["to"] = "must be after the start"
			return false
		}
		p.FromMs, p.ToMs = from, to
		return true
	}
	for _, pr := range timePresets {
		if pr.Key == p.Range {
			p.FromMs, p.ToMs = now.Add(-pr.Span).UnixMilli(), now.UnixMilli()
			p.From, p.To = "", ""
			return true
		}
	}
	errs["range"] = "unknown time range"
	return false
}

// parseTime reads a custom range bound: a datetime-local value (UTC; an
// end bound covers its whole minute) or Unix milliseconds (the exact form
// paging links use).
func parseTime(s string, end bool) (int64, bool) {
	if ms, err := strconv.ParseInt(s, 10, 64); err == nil {
		return ms, ms >= 0
	}
	t, err := time.Parse(customTimeLayout, s)
	if err != nil {
		return 0, false
	}
	if end {
		t = t.Add(time.Minute - time.Millisecond)
	}
	return t.UnixMilli(), true
}

// verdictValues are the verdicts a list filter can ask for.
var verdictValues = []string{"fail", "pass", "error"}

// parseVerdict splits a verdict filter into verdict and evaluator ("" for
// any); msg explains a bad one.
func parseVerdict(s string) (verdict, evaluator, msg string) {
	v, ev, ok := strings.Cut(s, ":")
	if !ok {
		return "", "", "write the verdict filter as fail:<evaluator> or fail:*"
	}
	known := false
	for _, k := range verdictValues {
		known = known || k == v
	}
	if !known {
		return "", "", "verdict must be fail, pass or error"
	}
	if ev == "*" {
		ev = ""
	}
	return v, ev, ""
}

// filters returns the warehouse filters of the list state.
func (p listParams) filters() []warehouse.Filter {
	var fs []warehouse.Filter
	eq := func(field, value string) {
		if value != "" {
			fs = append(fs, warehouse.Filter{Field: field, Operator: warehouse.OpEquals, Value: value})
		}
	}
	contains := func(field, value string) {
		if value != "" {
			fs = append(fs, warehouse.Filter{Field: field, Operator: warehouse.OpContainsFold, Value: value})
		}
	}
	contains("service_name", p.Service)
	contains("workflow_name", p.Workflow)
	eq("agent_name", p.Agent)
	eq("entity_name", p.Entity)
	eq("span_name", p.Span)
	contains("request_model", p.Model)
	if p.Status == "error" {
		eq("status_code", "STATUS_CODE_ERROR")
	}
	for _, a := range p.Attrs {
		k, v, _ := strings.Cut(a, "=")
		eq(strings.TrimSpace(k), strings.TrimSpace(v))
	}
	if p.Verdict != "" {
		verdict, evaluator, _ := parseVerdict(p.Verdict)
		fs = append(fs, verdictFilter(verdict, evaluator))
	}
	return fs
}

// values returns the URL query of the list state; the time range is
// pinned (custom) when pinned is set, so that a cursor stays valid.
func (p listParams) values(pinned bool) url.Values {
	v := url.Values{}
	set := func(k, val string) {
		if val != "" {
			v.Set(k, val)
		}
	}
	if pinned {
		v.Set("range", "custom")
		v.Set("from", strconv.FormatInt(p.FromMs, 10))
		v.Set("to", strconv.FormatInt(p.ToMs, 10))
	} else if p.Range == "custom" {
		v.Set("range", "custom")
		set("from", p.From)
		set("to", p.To)
	} else if p.Range != defaultPreset {
		v.Set("range", p.Range)
	}
	set("service", p.Service)
	set("workflow", p.Workflow)
	set("agent", p.Agent)
	set("entity", p.Entity)
	set("span", p.Span)
	set("model", p.Model)
	set("status", p.Status)
	for _, a := range p.Attrs {
		v.Add("attr", a)
	}
	set("verdict", p.Verdict)
	set("annotation", p.Annotation)
	set("q", p.Q)
	if p.View != "traces" {
		v.Set("view", p.View)
	}
	if p.Sort != string(warehouse.SortTimestamp) {
		v.Set("sort", p.Sort)
	}
	if p.Order != "desc" {
		v.Set("order", p.Order)
	}
	if p.Limit != defaultListLimit {
		v.Set("limit", strconv.Itoa(p.Limit))
	}
	return v
}

// url returns the list URL of p with changes applied to its query.
func (p listParams) url(pinned bool, change func(url.Values)) string {
	v := p.values(pinned)
	if change != nil {
		change(v)
	}
	if len(v) == 0 {
		return "/ui/traces"
	}
	return "/ui/traces?" + v.Encode()
}

// verdictFilter is the span filter "has an evaluation of evaluator ("" for
// any) with this verdict".
func verdictFilter(verdict, evaluator string) warehouse.Filter {
	field := warehouse.VerdictField
	if evaluator != "" {
		field += "." + evaluator
	}
	return warehouse.Filter{Field: field, Operator: warehouse.OpEquals, Value: verdict}
}

// viewSort is sort as a key of view: the spans view sorts by the span
// keys of its headings, the traces view by latency, tokens and cost (the
// trace stats); the other view's key of the same column carries over
// (duration_ms and latency, total_tokens and tokens), anything else is
// the start.
func viewSort(view, sort string) string {
	if view == "spans" {
		switch sort {
		case string(warehouse.SortDuration), string(warehouse.SortTotalTokens), string(warehouse.SortSpanName):
			return sort
		case string(warehouse.TraceSortLatency):
			return string(warehouse.SortDuration)
		case string(warehouse.TraceSortTokens):
			return string(warehouse.SortTotalTokens)
		}
		return string(warehouse.SortTimestamp)
	}
	switch sort {
	case string(warehouse.TraceSortLatency), string(warehouse.TraceSortTokens), string(warehouse.TraceSortCost):
		return sort
	case string(warehouse.SortDuration):
		return string(warehouse.TraceSortLatency)
	case string(warehouse.SortTotalTokens):
		return string(warehouse.TraceSortTokens)
	}
	return string(warehouse.SortTimestamp)
}
