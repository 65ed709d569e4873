package console

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/evalcol/evalcol/evaluators"
	"github.com/evalcol/evalcol/extension/evalapiextension/internal/setups"
	"github.com/evalcol/evalcol/internal/cursorseal"
	"github.com/evalcol/evalcol/internal/tenant"
	"github.com/evalcol/evalcol/internal/warehouse"
)

const (
	// setupsPerPage is the page size of the monitors page's setups; a
	// page also ends before setups.MaxPageBytes of setup JSON.
	setupsPerPage = 50
	// lastEvaluationWindow is how far back the last evaluation of a
	// monitor is looked for.
	lastEvaluationWindow = 7 * 24 * time.Hour
)

// staticRow is one monitor of the evaluator processor's YAML.
type staticRow struct {
	ID, Name, Condition string
	Evaluators          []string
	SampleRate          float64
	Inputs              []kv
	LastEvaluation      int64
}

// setupRow is one auto monitor setup.
type setupRow struct {
	warehouse.MonitorSetup
	LastEvaluation int64
}

// monitorsData is the data of the monitors page.
type monitorsData struct {
	Static        []staticRow
	StaticKnown   bool
	Setups        []setupRow
	SetupsEnabled bool
	// NextLink is the next page of setups ("" on the last); Paged is set
	// when this is not the first page.
	NextLink       string
	Paged          bool
	Notice         string
	LastEvalWindow string
	Refresh        bool
}

func (c *Console) monitorsPage(w http.ResponseWriter, r *http.Request) {
	t, _ := tenant.FromContext(r.Context())
	data := monitorsData{SetupsEnabled: c.opts.Setups != nil, LastEvalWindow: "7 days", Refresh: r.URL.Query().Get("refresh") == "1"}
	switch {
	case r.URL.Query().Get("created") != "":
		data.Notice = "Created monitor setup " + r.URL.Query().Get("created") + "."
	case r.URL.Query().Get("updated") != "":
		data.Notice = "Saved monitor setup " + r.URL.Query().Get("updated") + "."
	case r.URL.Query().Get("deleted") != "":
		data.Notice = "Deleted monitor setup " + r.URL.Query().Get("deleted") + "."
	}
	if c.opts.StaticMonitors != nil {
		data.StaticKnown = true
		for _, m := range c.opts.StaticMonitors() {
			row := staticRow{ID: m.ID, Name: m.Name, Condition: m.Condition(), SampleRate: m.SampleRate}
			for _, b := range m.Evaluators {
				row.Evaluators = append(row.Evaluators, b.Slug)
			}
			for k, e := range m.Inputs {
				row.Inputs = append(row.Inputs, kv{Key: k, Value: e.String()})
			}
			sort.Slice(row.Inputs, func(i, j int) bool { return row.Inputs[i].Key < row.Inputs[j].Key })
			data.Static = append(data.Static, row)
		}
	}
	if c.opts.Setups != nil {
		// One page of setups: setupsPerPage at most, and at most
		// setups.MaxPageBytes of them (Service.List), so that a page costs
		// the same whatever an environment holds.
		cursor, err := c.openCursor(r.Context(), cursorseal.Setups, t.Environment, r.URL.Query().Get("cursor"))
		if err != nil {
			c.unavailable(w, r, err)
			return
		}
		data.Paged = cursor != ""
		page, err := c.opts.Setups.List(r.Context(), t, warehouse.SetupQuery{Limit: setupsPerPage, Cursor: cursor})
		if err != nil {
			c.unavailable(w, r, err)
			return
		}
		for _, s := range page.Setups {
			data.Setups = append(data.Setups, setupRow{MonitorSetup: s})
		}
		next, err := c.opts.Cursors.Seal(r.Context(), cursorseal.Setups, t.Environment, page.NextCursor)
		if err != nil {
			c.unavailable(w, r, err)
			return
		}
		if next != "" {
			v := url.Values{"cursor": {next}}
			if data.Refresh {
				v.Set("refresh", "1")
			}
			data.NextLink = "/ui/monitors?" + v.Encode()
		}
	}
	// The last evaluations of the page's monitors, in one read.
	var ids []string
	for _, m := range data.Static {
		ids = append(ids, m.ID)
	}
	for _, s := range data.Setups {
		ids = append(ids, s.ID)
	}
	last, err := c.lastEvaluations(r.Context(), t.Environment, ids)
	if err != nil {
		c.unavailable(w, r, err)
		return
	}
	for i := range data.Static {
		data.Static[i].LastEvaluation = last[data.Static[i].ID]
	}
	for i := range data.Setups {
		data.Setups[i].LastEvaluation = last[data.Setups[i].ID]
	}
	c.render(w, r, http.StatusOK, "monitors", page{Title: "Monitors", Nav: "monitors", Data: data})
}

// lastEvaluations returns the time (Unix ms) of the latest evaluation
// result recorded by each monitor of ids in env within
// lastEvaluationWindow (absent when none): the end of the latest span it
// evaluated, kept by the warehouse as results are written
// (warehouse.EvaluationCounter.LastEvaluations).
func (c *Console) lastEvaluations(ctx context.Context, env string, ids []string) (map[string]int64, error) {
	last, err := c.opts.Store.LastEvaluations(ctx, env, ids)
	if err != nil {
		return nil, fmt.Errorf("last evaluations of monitors: %w", err)
	}
	since := c.opts.Now().Add(-lastEvaluationWindow).UnixMilli()
	for id, ms := range last {
		if ms < since {
			delete(last, id)
		}
	}
	return last, nil
}

// setupForm is the create/edit form of a setup.
type setupForm struct {
	// ID is set when editing.
	ID                                  string
	ExternalID, EntityType, EntityValue string
	Evaluators                          map[string]bool
	SampleRate                          string
	Selector                            string
	Backfill                            string
	Errors                              map[string]string
	EntityTypes                         []string
	Catalogue                           []*evaluators.Definition
	Backfills                           []backfillChoice
}

// backfillChoice is an option of the form's backfill select.
type backfillChoice struct{ Key, Label string }

var backfillChoices = []backfillChoice{{"", "No backfill"}, {"1h", "Spans of the last hour"}, {"24h", "Spans of the last 24 hours"}, {"7d", "Spans of the last 7 days"}}

var backfillSpans = map[string]time.Duration{"1h": time.Hour, "24h": 24 * time.Hour, "7d": 7 * 24 * time.Hour}

func newSetupForm() setupForm {
	return setupForm{EntityType: "workflow", SampleRate: "1", Evaluators: map[string]bool{}, Errors: map[string]string{}}
}

func (c *Console) renderSetupForm(w http.ResponseWriter, r *http.Request, status int, f setupForm) {
	f.EntityTypes, f.Catalogue, f.Backfills = setups.EntityTypes, evaluators.Catalogue(), backfillChoices
	title := "New monitor setup"
	if f.ID != "" {
		title = "Edit monitor setup"
	}
	c.render(w, r, status, "setup", page{Title: title, Nav: "monitors", Data: f})
}

func (c *Console) newSetupPage(w http.ResponseWriter, r *http.Request) {
	if c.opts.Setups == nil {
		c.renderError(w, r, http.StatusNotFound, "Setups unavailable", "Auto monitor setups are not served by this collector.")
		return
	}
	f := newSetupForm()
	if v := r.URL.Query().Get("entity_type"); v != "" {
		f.EntityType = v
	}
	f.EntityValue = r.URL.Query().Get("entity_value")
	c.renderSetupForm(w, r, http.StatusOK, f)
}

func (c *Console) editSetupPage(w http.ResponseWriter, r *http.Request) {
	if c.opts.Setups == nil {
		c.renderError(w, r, http.StatusNotFound, "Setups unavailable", "Auto monitor setups are not served by this collector.")
		return
	}
	t, _ := tenant.FromContext(r.Context())
	s, err := c.opts.Setups.Get(r.Context(), t, r.PathValue("id"))
	if errors.Is(err, warehouse.ErrNotFound) {
		c.renderError(w, r, http.StatusNotFound, "Setup not found", "There is no monitor setup "+quote(r.PathValue("id"))+" in this environment.")
		return
	}
	if err != nil {
		c.unavailable(w, r, err)
		return
	}
	f := newSetupForm()
	f.ID, f.ExternalID, f.EntityType, f.EntityValue = s.ID, s.ExternalID, s.EntityType, s.EntityValue
	f.SampleRate = strconv.FormatFloat(s.SampleRate, 'g', -1, 64)
	for _, b := range s.Evaluators {
		f.Evaluators[b.EvaluatorType] = true
	}
	if len(s.Selector) > 0 {
		f.Selector = string(s.Selector)
	}
	c.renderSetupForm(w, r, http.StatusOK, f)
}

// readSetupForm reads the posted form and validates it with the API's own
// request parser (setups.ParseRequest), so the console accepts exactly what
// POST /v2/auto-monitor-setups accepts. Errors are keyed by form field.
func (c *Console) readSetupForm(r *http.Request) (setupForm, setups.Request, bool) {
	f := newSetupForm()
	_ = r.ParseForm()
	f.ExternalID = strings.TrimSpace(r.PostFormValue("external_id"))
	f.EntityType = r.PostFormValue("entity_type")
	f.EntityValue = strings.TrimSpace(r.PostFormValue("entity_value"))
	f.SampleRate = strings.TrimSpace(r.PostFormValue("sample_rate"))
	f.Selector = strings.TrimSpace(r.PostFormValue("selector"))
	f.Backfill = r.PostFormValue("backfill")
	var slugs []string
	for _, s := range r.PostForm["evaluators"] {
		if !f.Evaluators[s] {
			f.Evaluators[s] = true
			slugs = append(slugs, s)
		}
	}
	// The API treats external_id and the entity as optional: a blank field
	// leaves it out rather than sending an empty string it refuses.
	body := map[string]any{"evaluators": slugs}
	if f.ExternalID != "" {
		body["external_id"] = f.ExternalID
	}
	if f.EntityValue != "" {
		body["entity_type"], body["entity_value"] = f.EntityType, f.EntityValue
	}
	if f.SampleRate != "" {
		n, err := strconv.ParseFloat(f.SampleRate, 64)
		if err != nil || math.IsNaN(n) || math.IsInf(n, 0) {
			// NaN and ±Inf parse but are no rate (and no JSON).
			f.Errors["sample_rate"] = "must be a number between 0 and 1"
		} else {
			body["sample_rate"] = n
		}
	}
	if f.Selector != "" {
		sel, msg := parseSelectorInput(f.Selector)
		if msg != "" {
			f.Errors["selector"] = msg
		} else {
			body["selector"] = sel
		}
	}
	if f.Backfill != "" {
		span, ok := backfillSpans[f.Backfill]
		if !ok {
			f.Errors["backfill"] = "unknown backfill choice"
		} else {
			body["backfill_from_timestamp_sec"] = c.opts.Now().Add(-span).Unix()
		}
	}
	if len(f.Errors) > 0 {
		return f, setups.Request{}, false
	}
	raw, err := json.Marshal(body)
	if err != nil {
		f.Errors["form"] = "the form could not be encoded: " + err.Error()
		return f, setups.Request{}, false
	}
	req, err := setups.ParseRequest(raw)
	if err != nil {
		var fe *setups.FieldError
		if errors.As(err, &fe) {
			f.Errors[formFieldOf(fe.Field)] = fieldMessage(fe)
		} else {
			f.Errors["form"] = err.Error()
		}
		return f, setups.Request{}, false
	}
	return f, req, true
}

// formFieldOf maps a setup request field ("selector[0].operator",
// "evaluators[1]") to the form field that shows its error.
func formFieldOf(field string) string {
	if i := strings.IndexAny(field, "[."); i > 0 {
		field = field[:i]
	}
	if field == "backfill_from_timestamp_sec" {
		return "backfill"
	}
	return field
}

// fieldMessage is the message shown next to a form field: the request
// field's own message, prefixed with the part of the field it concerns
// when that is finer than the form field ("selector[1].operator: ..."),
// or with the field's name when the message has no subject ("evaluators
// is required").
func fieldMessage(fe *setups.FieldError) string {
	switch {
	case formFieldOf(fe.Field) != fe.Field && fe.Field != "backfill_from_timestamp_sec":
		return fe.Field + ": " + fe.Msg
	case strings.HasPrefix(fe.Msg, "is ") || strings.HasPrefix(fe.Msg, "must "):
		// "is required" reads as a sentence with its subject.
		return strings.ReplaceAll(formFieldOf(fe.Field), "_", " ") + " " + fe.Msg
	}
	return fe.Msg
}

// parseSelectorInput reads the selector box: JSON (an object of attribute
// equalities or an array of rules, as the API takes) or key=value lines.
func parseSelectorInput(s string) (json.RawMessage, string) {
	if strings.HasPrefix(s, "{") || strings.HasPrefix(s, "[") {
		if !json.Valid([]byte(s)) {
			return nil, "not valid JSON; write key=value lines or the API's JSON selector"
		}
		return json.RawMessage(s), ""
	}
	obj := map[string]string{}
	for _, line := range strings.Split(s, "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if !ok || strings.TrimSpace(k) == "" {
			return nil, fmt.Sprintf("line %q is not key=value", truncate(40, line))
		}
		obj[strings.TrimSpace(k)] = strings.TrimSpace(v)
	}
	raw, _ := json.Marshal(obj)
	return raw, ""
}

func (c *Console) createSetup(w http.ResponseWriter, r *http.Request) {
	if c.opts.Setups == nil {
		c.renderError(w, r, http.StatusNotFound, "Setups unavailable", "Auto monitor setups are not served by this collector.")
		return
	}
	f, req, ok := c.readSetupForm(r)
	if !ok {
		c.renderSetupForm(w, r, http.StatusBadRequest, f)
		return
	}
	t, _ := tenant.FromContext(r.Context())
	s, err := c.opts.Setups.Create(r.Context(), t, req)
	if err != nil {
		c.setupError(w, r, f, err)
		return
	}
	http.Redirect(w, r, "/ui/monitors?created="+url.QueryEscape(s.ID), http.StatusSeeOther)
}

func (c *Console) updateSetup(w http.ResponseWriter, r *http.Request) {
	if c.opts.Setups == nil {
		c.renderError(w, r, http.StatusNotFound, "Setups unavailable", "Auto monitor setups are not served by this collector.")
		return
	}
	f, req, ok := c.readSetupForm(r)
	f.ID = r.PathValue("id")
	if !ok {
		c.renderSetupForm(w, r, http.StatusBadRequest, f)
		return
	}
	t, _ := tenant.FromContext(r.Context())
	s, err := c.opts.Setups.Update(r.Context(), t, f.ID, req)
	if err != nil {
		c.setupError(w, r, f, err)
		return
	}
	http.Redirect(w, r, "/ui/monitors?updated="+url.QueryEscape(s.ID), http.StatusSeeOther)
}

// setupError shows a failed create or update: field errors and conflicts
// next to their field, a vanished setup as 404, store errors as such.
func (c *Console) setupError(w http.ResponseWriter, r *http.Request, f setupForm, err error) {
	var fe *setups.FieldError
	switch {
	case errors.As(err, &fe):
		f.Errors[formFieldOf(fe.Field)] = fieldMessage(fe)
		c.renderSetupForm(w, r, http.StatusBadRequest, f)
	case errors.Is(err, warehouse.ErrConflict):
		f.Errors["external_id"] = "a setup with this external id already exists in this project"
		c.renderSetupForm(w, r, http.StatusConflict, f)
	case errors.Is(err, warehouse.ErrNotFound):
		c.renderError(w, r, http.StatusNotFound, "Setup not found", "The monitor setup was deleted meanwhile.")
	default:
		c.unavailable(w, r, err)
	}
}

func (c *Console) deleteSetup(w http.ResponseWriter, r *http.Request) {
	if c.opts.Setups == nil {
		c.renderError(w, r, http.StatusNotFound, "Setups unavailable", "Auto monitor setups are not served by this collector.")
		return
	}
	t, _ := tenant.FromContext(r.Context())
	id := r.PathValue("id")
	if err := c.opts.Setups.Delete(r.Context(), t, id); err != nil {
		if errors.Is(err, warehouse.ErrNotFound) {
			c.renderError(w, r, http.StatusNotFound, "Setup not found", "There is no monitor setup "+quote(id)+" in this environment.")
			return
		}
		c.unavailable(w, r, err)
		return
	}
	http.Redirect(w, r, "/ui/monitors?deleted="+url.QueryEscape(id), http.StatusSeeOther)
}
