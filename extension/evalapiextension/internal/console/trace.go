package console

import (
	"context"
	"encoding/json"
	"github.com/evalcol/evalcol/internal/spanconv"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"

	"github.com/evalcol/evalcol/evaluators"
	"github.com/evalcol/evalcol/extension/evalapiextension/internal/httpapi"
	"github.com/evalcol/evalcol/internal/tenant"
	"github.com/evalcol/evalcol/internal/warehouse"
)

const (
	// traceWindowMs is how far around the ts hint of a trace link the
	// trace's spans are looked for first.
	traceWindowMs = 24 * 3600 * 1000
	// maxTraceSpans bounds the spans one trace page shows.
	maxTraceSpans = 5000
	// maxTraceIDLength bounds a trace id in a URL.
	maxTraceIDLength = 128
)

// traceSpans returns the spans of trace traceID in env, by start time.
// ts, when not 0, is the start of one of its spans: the trace is looked
// for within a day of it first, then in the whole warehouse.
func (c *Console) traceSpans(ctx context.Context, env, traceID string, ts int64) ([]warehouse.Span, error) {
	if traceID == "" || len(traceID) > maxTraceIDLength {
		return nil, nil
	}
	q := warehouse.SpanQuery{
		Environments: []string{env},
		Filters:      []warehouse.Filter{{Field: "trace_id", Operator: warehouse.OpEquals, Value: traceID}},
		SortBy:       warehouse.SortTimestamp, Limit: warehouse.MaxSpanLimit,
	}
	if ts > 0 {
		q.FromMs, q.ToMs = max(0, ts-traceWindowMs), ts+traceWindowMs
	}
	spans, err := c.allSpans(ctx, q, maxTraceSpans)
	if err != nil || len(spans) > 0 || ts == 0 {
		return spans, err
	}
	q.FromMs, q.ToMs = 0, 0
	return c.allSpans(ctx, q, maxTraceSpans)
}

// allSpans follows q's cursors until the end or limit spans.
func (c *Console) allSpans(ctx context.Context, q warehouse.SpanQuery, limit int) ([]warehouse.Span, error) {
	var out []warehouse.Span
	for {
		page, err := c.opts.Store.QuerySpans(ctx, q)
		if err != nil {
			return nil, err
		}
		out = append(out, page.Spans...)
		if page.NextCursor == "" || len(out) >= limit {
			return out, nil
		}
		q.Cursor = page.NextCursor
	}
}

// waterfallRow is one span of the trace's waterfall.
type waterfallRow struct {
	Span     *warehouse.Span
	Depth    int
	Link     string
	Selected bool
	// X and Width place the span's bar on a 0..1000 axis of the trace's
	// time.
	X, Width float64
	// Failed: an evaluation of the span failed; StatusError: the span's
	// own status is an error. The page tells them apart by colour.
	Failed      bool
	StatusError bool
	Chips       []chip
}

// message is one chat message of a span.
type message struct {
	Role, Content, FinishReason string
	// RoleClass is the CSS class of a known role ("other" for the rest:
	// the role is span text, never trusted as markup or class name).
	RoleClass string
	Long      bool
	// Parts are Content cut where an evaluation's finding matched, the
	// matched parts marked (nil: nothing matched; show Content).
	Parts []textPart
}

// textPart is a piece of a message, marked when an evaluator found it.
type textPart struct {
	Text  string
	Mark  bool
	Title string // what found it, for the mark's tooltip
	// Hit marks a search hit (styled apart from a finding).
	Hit bool
}

// roleClasses are the roles with their own style.
var roleClasses = map[string]string{"system": "system", "user": "user", "human": "user", "assistant": "assistant", "ai": "assistant", "tool": "tool", "function": "tool"}

// kv is one attribute; Long values start folded, as long messages do.
type kv struct {
	Key, Value string
	Long       bool
}

// evalRow is one evaluation result of the selected span.
type evalRow struct {
	warehouse.Evaluation
	Verdict evaluators.Verdict
	Outputs []kv
	// Monitor names the monitor that ran it, linked to it ("" Link: not
	// one that exists any more).
	Monitor monitorRef
}

// monitorRef is a monitor as a page shows it: a name, not an id.
type monitorRef struct{ Label, Link, ID string }

// maxMonitorLookups bounds the setups one trace page looks up.
const maxMonitorLookups = 16

// monitorRefs names the monitors of evals: a static monitor by its YAML
// name, a setup by its external id (else its entity), each linked to the
// monitors page; an id that is neither (a deleted setup) stays as it is.
func (c *Console) monitorRefs(ctx context.Context, t tenant.Tenant, evals []warehouse.Evaluation) map[string]monitorRef {
	refs := map[string]monitorRef{}
	static := map[string]string{}
	if c.opts.StaticMonitors != nil {
		for _, m := range c.opts.StaticMonitors() {
			static[m.ID] = m.Name
		}
	}
	for _, ev := range evals {
		id := ev.MonitorID
		if _, done := refs[id]; done || id == "" {
			continue
		}
		ref := monitorRef{Label: id, ID: id}
		switch {
		case static[id] != "":
			ref = monitorRef{Label: static[id], Link: "/ui/monitors#static-monitors", ID: id}
		case c.opts.Setups != nil && len(refs) < maxMonitorLookups:
			if s, err := c.opts.Setups.Get(ctx, t, id); err == nil {
				ref.Link = "/ui/monitors/" + url.PathEscape(s.ID)
				switch {
				case s.ExternalID != "":
					ref.Label = s.ExternalID
				case s.EntityValue != "":
					ref.Label = s.EntityType + " " + s.EntityValue
				}
			}
		}
		refs[id] = ref
	}
	return refs
}

// identityKeys are the span attributes that name a conversation's session
// and user, in order of preference: the OTel and OpenInference names, then
// Traceloop's association properties (withAssociationProperties).
var identityKeys = map[string][]string{
	"session": {"session.id", "traceloop.association.properties.session_id", "gen_ai.conversation.id"},
	"user":    {"user.id", "traceloop.association.properties.user_id", "enduser.id"},
}

// identityLink is a session or user of a span, linked to its traces.
type identityLink struct{ Key, Value, Link string }

// identities returns the span's session and user, each linked to the
// traces list filtered on it (the session's traces in order, the user's
// latest first) over the last 7 days.
func identities(s *warehouse.Span) (session, user *identityLink) {
	find := func(kind, order string) *identityLink {
		for _, k := range identityKeys[kind] {
			if v := s.SpanAttributes[k]; v != "" {
				q := url.Values{"attr": {k + "=" + v}, "range": {"7d"}, "order": {order}}
				return &identityLink{Key: k, Value: v, Link: "/ui/traces?" + q.Encode()}
			}
		}
		return nil
	}
	return find("session", "asc"), find("user", "desc")
}

// highlight is a finding's text to mark in the messages.
type highlight struct{ text, title string }

// maxHighlights bounds the texts marked in one span's messages.
const maxHighlights = 50

// highlights returns the texts of the findings of the span's failed
// evaluations that the messages show as they are (masked secrets are not
// in the messages and are left out), longest first.
func highlights(evals []warehouse.Evaluation) []highlight {
	var out []highlight
	seen := map[string]bool{}
	for _, ev := range evals {
		if ev.Explanation == nil || verdictOf(ev) != evaluators.VerdictFail {
			continue
		}
		for _, f := range ev.Explanation.Findings {
			if f.Masked || len(f.Text) < 2 || seen[f.Text] || len(out) == maxHighlights {
				continue
			}
			seen[f.Text] = true
			out = append(out, highlight{text: strings.TrimSuffix(f.Text, "…"), title: ev.Name + ": " + f.Kind})
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return len(out[i].text) > len(out[j].text) })
	return out
}

// markParts cuts content at every occurrence of a highlight's text (the
// longest first where they overlap); nil when none occurs.
func markParts(content string, hs []highlight) []textPart {
	if len(hs) == 0 {
		return nil
	}
	type span struct {
		start, end int
		title      string
	}
	var spans []span
	taken := func(a, b int) bool {
		for _, s := range spans {
			if a < s.end && s.start < b {
				return true
			}
		}
		return false
	}
	for _, h := range hs {
		for from := 0; from < len(content); {
			i := strings.Index(content[from:], h.text)
			if i < 0 {
				break
			}
			a, b := from+i, from+i+len(h.text)
			if !taken(a, b) {
				spans = append(spans, span{a, b, h.title})
			}
			from = b
		}
	}
	if len(spans) == 0 {
		return nil
	}
	sort.Slice(spans, func(i, j int) bool { return spans[i].start < spans[j].start })
	var parts []textPart
	at := 0
	for _, s := range spans {
		if s.start > at {
			parts = append(parts, textPart{Text: content[at:s.start]})
		}
		parts = append(parts, textPart{Text: content[s.start:s.end], Mark: true, Title: s.title})
		at = s.end
	}
	if at < len(content) {
		parts = append(parts, textPart{Text: content[at:]})
	}
	return parts
}

// traceData is the data of the trace page.
type traceData struct {
	TraceID         string
	Start, Duration int64
	SpanCount       int
	Truncated       bool
	// Cost is the trace's priced tokens, Usage its tokens per model (the
	// spans read), SelUsage and SelCost the selected span's.
	Cost, SelCost string
	Usage         []warehouse.ModelUsage
	SelUsage      *warehouse.ModelUsage
	Rows          []waterfallRow
	Ticks         []tick
	Sel           *warehouse.Span
	SelLink       string
	Prompts       []message
	Completions   []message
	Input, Output string
	// Session and User name the selected span's conversation and user,
	// linked to their traces (nil when the span names none).
	Session, User *identityLink
	// Search lists the terms of the list's search (q) whose hits are
	// marked ("" none).
	Search string
	// InputParts and OutputParts are Input and Output with the findings
	// and search hits marked (nil: none).
	InputParts, OutputParts []textPart
	Attributes              []kv
	Resource                []kv
	Evaluations             []evalRow
	RawJSON                 string
	Evaluators              []*evaluators.Definition
	PlaygroundTS            int64
	// Feedback are the human annotations about the trace, its spans or
	// their association properties; FeedbackError says why they could not
	// be read.
	Feedback      []feedbackRow
	FeedbackError string
	// Notice reports the last action on the page; CanAddToDataset shows
	// the "add to dataset" form.
	Notice          string
	CanAddToDataset bool
	// Exception is the selected span's recorded exception (nil: none).
	Exception *exceptionView
}

// exceptionView is the exception an instrumentation recorded on a span
// (its last exception event, kept as exception.* attributes).
type exceptionView struct {
	Type, Message, Stack string
}

// exceptionOf returns the exception recorded on s, nil when none.
func exceptionOf(s *warehouse.Span) *exceptionView {
	e := &exceptionView{Type: s.SpanAttributes[spanconv.AttrExceptionType], Message: s.SpanAttributes[spanconv.AttrExceptionMessage],
		Stack: s.SpanAttributes[spanconv.AttrExceptionStacktrace]}
	if e.Type == "" && e.Message == "" && e.Stack == "" {
		return nil
	}
	return e
}

// tick is a time label of the waterfall's axis.
type tick struct {
	X     float64
	Label string
}

// longMessage is the size from which a message is folded.
const longMessage = 1200

func (c *Console) tracePage(w http.ResponseWriter, r *http.Request) {
	t, _ := tenant.FromContext(r.Context())
	traceID := r.PathValue("id")
	ts, _ := strconv.ParseInt(r.URL.Query().Get("ts"), 10, 64)
	spans, err := c.traceSpans(r.Context(), t.Environment, traceID, ts)
	if err != nil {
		c.unavailable(w, r, err)
		return
	}
	if len(spans) == 0 {
		c.renderError(w, r, http.StatusNotFound, "Trace not found", "There is no trace "+quote(truncate(80, traceID))+" in environment "+quote(t.Environment)+".")
		return
	}
	data := traceData{TraceID: traceID, SpanCount: len(spans), Truncated: len(spans) >= maxTraceSpans, Evaluators: evaluators.Catalogue(),
		Notice: r.URL.Query().Get("notice"), CanAddToDataset: c.opts.Datasets != nil}
	data.Rows = waterfall(spans, traceID)
	start, end := spans[0].Timestamp, spans[0].Timestamp
	for i, s := range spans {
		start, end = min(start, s.Timestamp), max(end, s.Timestamp+s.Duration)
		data.Usage = warehouse.AddUsage(data.Usage, &spans[i])
	}
	data.Cost = c.costText(data.Usage)
	data.Start, data.Duration = start, end-start
	total := float64(max(end-start, 1))
	for i := range data.Rows {
		s := data.Rows[i].Span
		data.Rows[i].X = float64(s.Timestamp-start) / total * 1000
		data.Rows[i].Width = max(float64(s.Duration)/total*1000, 2)
	}
	for i := 0; i <= 4; i++ {
		data.Ticks = append(data.Ticks, tick{X: float64(i) * 250, Label: formatDuration(int64(float64(end-start) * float64(i) / 4))})
	}
	selected := r.URL.Query().Get("span")
	// A search from the list (q) marks its hits; the links keep it, and
	// without a chosen span the first span it matches is shown.
	terms, _ := warehouse.SearchTerms(strings.TrimSpace(r.URL.Query().Get("q")))
	data.Search = strings.Join(terms, " · ")
	sel := &data.Rows[0]
	found := false
	for i := range data.Rows {
		row := &data.Rows[i]
		if len(terms) > 0 {
			row.Link = withSearch(row.Link, r.URL.Query().Get("q"))
			if selected == "" && !found && len(warehouse.SearchHits(warehouse.SearchText(row.Span), terms)) > 0 {
				sel, found = row, true
			}
		}
		if row.Span.SpanID == selected {
			sel = row
		}
	}
	sel.Selected = true
	data.Sel = sel.Span
	data.SelLink = sel.Link
	data.PlaygroundTS = sel.Span.Timestamp
	if us := warehouse.AddUsage(nil, sel.Span); len(us) == 1 {
		data.SelUsage, data.SelCost = &us[0], c.costText(us)
	}
	fillSpanDetails(&data, sel.Span)
	data.Exception = exceptionOf(sel.Span)
	markSearchHits(&data, terms)
	refs := c.monitorRefs(r.Context(), t, sel.Span.Evaluations)
	for i := range data.Evaluations {
		data.Evaluations[i].Monitor = refs[data.Evaluations[i].MonitorID]
	}
	if data.Feedback, err = c.traceFeedback(r.Context(), t.Environment, traceID, spans); err != nil {
		data.FeedbackError = "The warehouse did not answer for this trace's feedback; reload to try again."
	}
	c.render(w, r, http.StatusOK, "trace", page{Title: "Trace " + truncate(16, traceID), Nav: "traces", Data: data})
}

// waterfall orders spans as a tree (children under their parent, by start
// time); spans whose parent is not stored are roots.
func waterfall(spans []warehouse.Span, traceID string) []waterfallRow {
	byID := make(map[string]int, len(spans))
	for i, s := range spans {
		byID[s.SpanID] = i
	}
	children := map[string][]int{}
	var roots []int
	for i, s := range spans {
		if _, ok := byID[s.ParentSpanID]; ok && s.ParentSpanID != "" && s.ParentSpanID != s.SpanID {
			children[s.ParentSpanID] = append(children[s.ParentSpanID], i)
		} else {
			roots = append(roots, i)
		}
	}
	rows := make([]waterfallRow, 0, len(spans))
	visited := make([]bool, len(spans))
	var walk func(i, depth int)
	walk = func(i, depth int) {
		if visited[i] {
			return
		}
		visited[i] = true
		s := &spans[i]
		row := waterfallRow{Span: s, Depth: min(depth, 12), Link: traceLink(traceID, s.Timestamp, s.SpanID), StatusError: s.StatusCode == "STATUS_CODE_ERROR"}
		for _, ev := range s.Evaluations {
			ch := newChip(ev, "")
			row.Chips = append(row.Chips, ch)
			row.Failed = row.Failed || ch.Verdict == evaluators.VerdictFail
		}
		rows = append(rows, row)
		for _, ci := range children[s.SpanID] {
			walk(ci, depth+1)
		}
	}
	for _, i := range roots {
		walk(i, 0)
	}
	for i := range spans { // cycles: spans only reachable through one
		walk(i, 0)
	}
	return rows
}

// fillSpanDetails fills the selected span's panels.
func fillSpanDetails(data *traceData, s *warehouse.Span) {
	data.Prompts = messages(s.Prompts, "llm.prompts.")
	data.Completions = messages(s.Completions, "llm.completions.")
	if len(data.Prompts) == 0 {
		data.Input = s.Input
	}
	if len(data.Completions) == 0 {
		data.Output = s.Output
	}
	data.Attributes = sortedKV(s.SpanAttributes)
	data.Session, data.User = identities(s)
	data.Resource = sortedKV(s.ResourceAttributes)
	for _, ev := range s.Evaluations {
		row := evalRow{Evaluation: ev, Verdict: verdictOf(ev)}
		keys := make([]string, 0, len(ev.Output))
		for k := range ev.Output {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			row.Outputs = append(row.Outputs, kv{Key: k, Value: valueText(ev.Output[k])})
		}
		data.Evaluations = append(data.Evaluations, row)
	}
	if hs := highlights(s.Evaluations); len(hs) > 0 {
		for _, msgs := range [][]message{data.Prompts, data.Completions} {
			for i := range msgs {
				msgs[i].Parts = markParts(msgs[i].Content, hs)
			}
		}
		data.InputParts, data.OutputParts = markParts(data.Input, hs), markParts(data.Output, hs)
	}
	raw, _ := json.MarshalIndent(httpapi.SpanView(*s), "", "  ")
	data.RawJSON = string(raw)
}

// markSearchHits marks the hits of a search's terms in the selected span's
// messages, input and output (beside the findings already marked).
func markSearchHits(data *traceData, terms []string) {
	if len(terms) == 0 {
		return
	}
	for _, msgs := range [][]message{data.Prompts, data.Completions} {
		for i := range msgs {
			msgs[i].Parts = markHits(msgs[i].Parts, msgs[i].Content, terms)
		}
	}
	data.InputParts = markHits(data.InputParts, data.Input, terms)
	data.OutputParts = markHits(data.OutputParts, data.Output, terms)
}

// messages reads the chat messages of a prompts or completions map
// (<prefix><i>.role, .content, .finish_reason) in index order.
func messages(m map[string]string, prefix string) []message {
	byIndex := map[int]*message{}
	var order []int
	for k, v := range m {
		rest, ok := strings.CutPrefix(k, prefix)
		if !ok {
			continue
		}
		idx, field, ok := strings.Cut(rest, ".")
		if !ok {
			continue
		}
		i, err := strconv.Atoi(idx)
		if err != nil || i < 0 {
			continue
		}
		msg, ok := byIndex[i]
		if !ok {
			msg = &message{}
			byIndex[i] = msg
			order = append(order, i)
		}
		switch field {
		case "role":
			msg.Role = v
		case "content":
			msg.Content = v
		case "finish_reason":
			msg.FinishReason = v
		}
	}
	sort.Ints(order)
	out := make([]message, 0, len(order))
	for _, i := range order {
		msg := *byIndex[i]
		msg.Long = len(msg.Content) > longMessage || strings.Count(msg.Content, "\n") > 20
		msg.RoleClass = roleClasses[strings.ToLower(msg.Role)]
		if msg.RoleClass == "" {
			msg.RoleClass = "other"
		}
		out = append(out, msg)
	}
	return out
}

func sortedKV(m map[string]string) []kv {
	out := make([]kv, 0, len(m))
	for k, v := range m {
		out = append(out, kv{Key: k, Value: v, Long: len(v) > longMessage || strings.Count(v, "\n") > 20})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Key < out[j].Key })
	return out
}
