package console

import (
	"context"
	"encoding/json"
	"errors"
	"github.com/evalcol/evalcol/extension/evalapiextension/internal/customevaluators"
	"github.com/evalcol/evalcol/extension/evalapiextension/internal/judgequeue"
	"github.com/evalcol/evalcol/internal/pricing"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"time"

	"go.uber.org/zap"

	"github.com/evalcol/evalcol/evaluators"
	"github.com/evalcol/evalcol/extension/evalapiextension/internal/httpapi"
	"github.com/evalcol/evalcol/internal/engine"
	"github.com/evalcol/evalcol/internal/spanconv"
	"github.com/evalcol/evalcol/internal/tenant"
)

// catalogueGroup is one category of the evaluators page.
type catalogueGroup struct {
	Category   evaluators.Category
	Evaluators []*evaluators.Definition
}

// JudgeLister lists a tenant's custom evaluators (customevaluators.API).
type JudgeLister interface {
	List(ctx context.Context, t tenant.Tenant) ([]customevaluators.Evaluator, error)
}

// judgeUsageDays is how many days of judge usage the evaluators page sums.
const judgeUsageDays = 7

// judgesView is the LLM judges section of the evaluators page.
type judgesView struct {
	Evaluators []customevaluators.Evaluator
	Backlog    judgequeue.Backlog
	// Usage is the environment's online judging of the last
	// judgeUsageDays days, per evaluator, with the total first.
	Usage []judgeUsageRow
	Error string
}

type judgeUsageRow struct {
	Evaluator                  string
	Calls, InputTokens, Output int64
	// Cost is the calls' cost in USD by the price table; Priced says
	// whether every call's model has a price (else Cost is a lower bound,
	// or nothing when none has).
	Cost          float64
	Priced, Some  bool
	unpricedCalls int64
}

// addModel adds one model's calls to the row, priced by prices.
func (r *judgeUsageRow) addModel(prices *pricing.Table, model string, m judgequeue.ModelUsage) {
	if c, ok := prices.Cost(model, m.InputTokens, m.OutputTokens); ok {
		r.Cost += c
		r.Some = true
	} else {
		r.unpricedCalls += m.Calls
	}
	r.Priced = r.Some && r.unpricedCalls == 0
}

// judges reads the section; a warehouse error is shown in it, not as the
// page's.
func (c *Console) judges(ctx context.Context, t tenant.Tenant) *judgesView {
	if c.opts.Judges == nil {
		return nil
	}
	v := &judgesView{}
	var err error
	if v.Evaluators, err = c.opts.Judges.List(ctx, t); err != nil {
		v.Error = "custom evaluators cannot be read: " + err.Error()
		return v
	}
	if v.Backlog, err = judgequeue.Pending(ctx, c.opts.Store, t.Environment); err != nil {
		v.Error = "the judge queue cannot be read: " + err.Error()
		return v
	}
	total := judgeUsageRow{Evaluator: "all"}
	by := map[string]*judgeUsageRow{}
	now := time.Now()
	for d := range judgeUsageDays {
		u, err := judgequeue.DayUsage(ctx, c.opts.Store, t.Environment, now.AddDate(0, 0, -d))
		if err != nil {
			v.Error = "judge usage cannot be read: " + err.Error()
			return v
		}
		total.Calls, total.InputTokens, total.Output = total.Calls+u.Calls, total.InputTokens+u.InputTokens, total.Output+u.OutputTokens
		for slug, e := range u.ByEvaluator {
			row := by[slug]
			if row == nil {
				row = &judgeUsageRow{Evaluator: slug}
				by[slug] = row
			}
			row.Calls, row.InputTokens, row.Output = row.Calls+e.Calls, row.InputTokens+e.InputTokens, row.Output+e.OutputTokens
			for model, m := range e.ByModel {
				row.addModel(c.opts.Prices, model, m)
				total.addModel(c.opts.Prices, model, m)
			}
		}
	}
	v.Usage = append(v.Usage, total)
	slugs := make([]string, 0, len(by))
	for s := range by {
		slugs = append(slugs, s)
	}
	sort.Strings(slugs)
	for _, s := range slugs {
		v.Usage = append(v.Usage, *by[s])
	}
	return v
}

// evaluatorsPageData is the evaluators page: the catalogue, and the LLM
// judges when the console has them.
type evaluatorsPageData struct {
	Groups []catalogueGroup
	Judges *judgesView
}

func (c *Console) evaluatorsPage(w http.ResponseWriter, r *http.Request) {
	var groups []catalogueGroup
	index := map[evaluators.Category]int{}
	for _, d := range evaluators.Catalogue() {
		i, ok := index[d.Category]
		if !ok {
			i = len(groups)
			index[d.Category] = i
			groups = append(groups, catalogueGroup{Category: d.Category})
		}
		groups[i].Evaluators = append(groups[i].Evaluators, d)
	}
	t, _ := tenant.FromContext(r.Context())
	c.render(w, r, http.StatusOK, "evaluators", page{Title: "Evaluators", Nav: "evaluators",
		Data: evaluatorsPageData{Groups: groups, Judges: c.judges(r.Context(), t)}})
}

// formField is one control of the playground form, generated from a
// catalogue field.
type formField struct {
	evaluators.Field
	// Key is the form field name: input.<name> or config.<name>; ID is
	// its element id (input-<name>, config-<name>).
	Key, ID string
	// Value is the value to show (what was sent, or the prefill).
	Value string
	// Control is textarea, text, number, select, bool or lines (a string
	// array, one element per line).
	Control string
	// Options are the choices of a select.
	Options []string
	// DefaultText describes the default of a config field.
	DefaultText string
	Error       string
}

// playgroundData is the data of the playground page.
type playgroundData struct {
	Def    *evaluators.Definition
	Inputs []formField
	Config []formField
	// Source names the span the inputs were taken from.
	Source string
	Error  string
	Result *runResult
}

// runResult is one playground run.
type runResult struct {
	Verdict evaluators.Verdict
	Score   string
	Fields  []resultField
	Elapsed string
	JSON    string
	// Explanation says why (nil: the evaluator had nothing to add).
	Explanation *evaluators.Explanation
	// Marked are the inputs the explanation's findings point into, with
	// the found parts marked (a masked finding shows its mask).
	Marked []markedInput
}

// markedInput is an input field's text with findings marked.
type markedInput struct {
	Name  string
	Parts []textPart
}

// markFindings cuts each input a finding points into at the findings'
// offsets, in input order. Findings that overlap an earlier one or whose
// offsets do not fit the input are left out.
func markFindings(def *evaluators.Definition, input map[string]string, e *evaluators.Explanation) []markedInput {
	if e == nil {
		return nil
	}
	var out []markedInput
	for _, f := range def.Inputs {
		text, ok := input[f.Name]
		if !ok {
			continue
		}
		var fs []evaluators.Finding
		for _, fd := range e.Findings {
			if fd.Input == f.Name && fd.Start >= 0 && fd.Start < fd.End && fd.End <= len(text) {
				fs = append(fs, fd)
			}
		}
		if len(fs) == 0 {
			continue
		}
		sort.SliceStable(fs, func(i, j int) bool { return fs[i].Start < fs[j].Start })
		var parts []textPart
		at := 0
		for _, fd := range fs {
			if fd.Start < at {
				continue
			}
			parts = append(parts, textPart{Text: text[at:fd.Start]})
			shown := text[fd.Start:fd.End]
			if fd.Masked {
				shown = fd.Text
			}
			parts = append(parts, textPart{Text: shown, Mark: true, Title: fd.Kind})
			at = fd.End
		}
		parts = append(parts, textPart{Text: text[at:]})
		out = append(out, markedInput{Name: f.Name, Parts: parts})
	}
	return out
}

type resultField struct {
	Name, Label, Value string
}

// maxPrefillBytes bounds each input taken from a span into the form.
const maxPrefillBytes = 64 << 10

func (c *Console) playgroundPage(w http.ResponseWriter, r *http.Request) {
	def, ok := evaluators.Lookup(r.PathValue("slug"))
	if !ok {
		v, ok := c.customEvaluator(w, r)
		if !ok {
			return
		}
		def = customPlayground(v)
	}
	data := playgroundData{Def: def}
	values := map[string]string{}
	q := r.URL.Query()
	if traceID, spanID := q.Get("trace_id"), q.Get("span_id"); traceID != "" && spanID != "" {
		t, _ := tenant.FromContext(r.Context())
		ts, _ := strconv.ParseInt(q.Get("ts"), 10, 64)
		spans, err := c.traceSpans(r.Context(), t.Environment, traceID, ts)
		if err != nil {
			c.unavailable(w, r, err)
			return
		}
		found := false
		for i := range spans {
			if spans[i].SpanID != spanID {
				continue
			}
			td := spanconv.ToTraces(spans[i : i+1])
			attrs := td.ResourceSpans().At(0).ScopeSpans().At(0).Spans().At(0).Attributes()
			for k, v := range engine.DefaultInputs(attrs, def, c.opts.GroundTruthAttribute, maxPrefillBytes) {
				values["input."+k] = v
			}
			data.Source = spans[i].SpanName + " (trace " + traceID + ", span " + spanID + ")"
			found = true
		}
		if !found {
			c.renderError(w, r, http.StatusNotFound, "Span not found", "There is no span "+spanID+" of trace "+traceID+" in this environment.")
			return
		}
	}
	data.Inputs, data.Config = formFields(def, values, nil)
	c.render(w, r, http.StatusOK, "playground", page{Title: def.Slug + " playground", Nav: "evaluators", Data: data})
}

// formFields builds the form controls of def's input and config schemas
// with the given values and errors (keyed by form field name).
func formFields(def *evaluators.Definition, values, errs map[string]string) (inputs, config []formField) {
	for _, f := range def.Inputs {
		key := "input." + f.Name
		inputs = append(inputs, formField{Field: f, Key: key, ID: "input-" + f.Name, Value: values[key], Control: "textarea", Error: errs[key]})
	}
	for _, f := range def.Config {
		key := "config." + f.Name
		ff := formField{Field: f, Key: key, ID: "config-" + f.Name, Value: values[key], Error: errs[key]}
		if f.Default != nil {
			ff.DefaultText = defaultText(f.Default)
		}
		switch {
		case len(f.EnumValues) > 0:
			ff.Control, ff.Options = "select", f.EnumValues
		case f.Type == evaluators.TypeBoolean:
			ff.Control = "bool"
		case f.Type == evaluators.TypeNumber || f.Type == evaluators.TypeInteger:
			ff.Control = "number"
		case f.Type == evaluators.TypeStringArray:
			ff.Control = "lines"
		default:
			ff.Control = "text"
		}
		config = append(config, ff)
	}
	return inputs, config
}

func defaultText(v any) string {
	switch t := v.(type) {
	case string:
		return strconv.Quote(t)
	case float64:
		return strconv.FormatFloat(t, 'g', -1, 64)
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// runPlayground validates the form against the catalogue (the same
// NewRequest the API uses), runs the evaluator and shows the result, its
// verdict and the time it took.
func (c *Console) runPlayground(w http.ResponseWriter, r *http.Request) {
	def, ok := evaluators.Lookup(r.PathValue("slug"))
	if !ok {
		c.runJudgePlayground(w, r)
		return
	}
	values := map[string]string{}
	errs := map[string]string{}
	input := map[string]any{}
	config := map[string]any{}
	for _, f := range def.Inputs {
		key := "input." + f.Name
		v := r.PostFormValue(key)
		values[key] = v
		if v != "" {
			input[f.Name] = v
		}
	}
	for _, f := range def.Config {
		key := "config." + f.Name
		v := strings.TrimSpace(r.PostFormValue(key))
		values[key] = v
		if v == "" {
			continue
		}
		switch f.Type {
		case evaluators.TypeNumber, evaluators.TypeInteger:
			n, err := strconv.ParseFloat(v, 64)
			if err != nil {
				errs[key] = "must be a number"
				continue
			}
			config[f.Name] = n
		case evaluators.TypeBoolean:
			config[f.Name] = v == "true"
		case evaluators.TypeStringArray:
			var lines []any
			for _, l := range strings.Split(v, "\n") {
				if l = strings.TrimSpace(l); l != "" {
					lines = append(lines, l)
				}
			}
			config[f.Name] = lines
		default:
			config[f.Name] = v
		}
	}
	data := playgroundData{Def: def}
	status := http.StatusOK
	if len(errs) == 0 {
		release, err := c.acquireEvaluation(r)
		if err == nil {
			start := time.Now()
			var req evaluators.Request
			req, err = def.NewRequest(input, config)
			if err == nil {
				var res evaluators.Result
				res, err = c.opts.RunEvaluator(r.Context(), def, req)
				if err == nil {
					data.Result = newRunResult(def, res, time.Since(start))
					data.Result.Explanation = def.Explain(r.Context(), req, res)
					data.Result.Marked = markFindings(def, req.Input, data.Result.Explanation)
				}
			}
			release(time.Since(start))
		}
		if err != nil {
			var e *evaluators.Error
			var limited *httpapi.LimitError
			switch {
			case errors.As(err, &limited):
				w.Header().Set("Retry-After", limited.RetryAfterHeader())
				data.Error = "Not run: " + limited.Msg + ". Try again in " + limited.RetryAfterHeader() + " s."
				status = http.StatusTooManyRequests
			case errors.As(err, &e) && e.Kind == evaluators.KindInvalidInput && e.Field != "":
				errs[e.Field] = e.Msg
				status = http.StatusBadRequest
			case errors.As(err, &e) && e.Kind == evaluators.KindInvalidInput:
				data.Error = e.Msg
				status = http.StatusBadRequest
			default:
				c.opts.Logger.Error("console playground: evaluator failed", zap.String("evaluator", def.Slug), zap.Error(err))
				data.Error = "The evaluator failed (internal error); the collector's log has the details."
				status = http.StatusInternalServerError
			}
		}
	} else {
		status = http.StatusBadRequest
	}
	data.Inputs, data.Config = formFields(def, values, errs)
	c.render(w, r, status, "playground", page{Title: def.Slug + " playground", Nav: "evaluators", Data: data})
}

// acquireEvaluation admits one playground run under the evaluator limits
// of the session's API key.
func (c *Console) acquireEvaluation(r *http.Request) (release func(used time.Duration), err error) {
	if c.opts.AcquireEvaluation == nil {
		return func(time.Duration) {}, nil
	}
	return c.opts.AcquireEvaluation(r.Context(), sessionFrom(r.Context()).limitKey())
}

func newRunResult(def *evaluators.Definition, res evaluators.Result, elapsed time.Duration) *runResult {
	out := &runResult{Verdict: evaluators.VerdictFail, Elapsed: formatElapsed(elapsed)}
	if def.Pass(res) {
		out.Verdict = evaluators.VerdictPass
	}
	value, label := def.ScoreOf(res)
	out.Score = formatScore(value)
	if label != "" {
		out.Score += " (" + label + ")"
	}
	seen := map[string]bool{}
	for _, f := range def.Outputs {
		if v, ok := res[f.Name]; ok {
			seen[f.Name] = true
			out.Fields = append(out.Fields, resultField{Name: f.Name, Label: f.Label, Value: valueText(v)})
		}
	}
	var extra []string
	for k := range res {
		if !seen[k] {
			extra = append(extra, k)
		}
	}
	sort.Strings(extra)
	for _, k := range extra {
		out.Fields = append(out.Fields, resultField{Name: k, Value: valueText(res[k])})
	}
	b, _ := json.MarshalIndent(res, "", "  ")
	out.JSON = string(b)
	return out
}

// formatElapsed renders a run time with a precision that suits it.
func formatElapsed(d time.Duration) string {
	switch {
	case d < time.Millisecond:
		return strconv.FormatFloat(float64(d)/float64(time.Microsecond), 'f', 0, 64) + " µs"
	case d < time.Second:
		return strconv.FormatFloat(float64(d)/float64(time.Millisecond), 'f', 2, 64) + " ms"
	}
	return d.Round(time.Millisecond).String()
}

// valueText renders an output value.
func valueText(v any) string {
	switch t := v.(type) {
	case string:
		return t
	case float64:
		return strconv.FormatFloat(t, 'g', 6, 64)
	case bool:
		return strconv.FormatBool(t)
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// playgroundRedirect sends the "send to playground" form of the trace
// page (evaluator, trace_id, span_id, ts) to that evaluator's playground.
func (c *Console) playgroundRedirect(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	slug := q.Get("evaluator")
	if _, ok := evaluators.Lookup(slug); !ok {
		c.renderError(w, r, http.StatusNotFound, "Unknown evaluator", "Pick an evaluator from the catalogue.")
		return
	}
	v := url.Values{}
	for _, k := range []string{"trace_id", "span_id", "ts"} {
		if s := q.Get(k); s != "" {
			v.Set(k, s)
		}
	}
	http.Redirect(w, r, "/ui/evaluators/"+url.PathEscape(slug)+"?"+v.Encode(), http.StatusSeeOther)
}
