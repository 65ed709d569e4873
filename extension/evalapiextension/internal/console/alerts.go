package console

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/evalcol/evalcol/evaluators"
	"github.com/evalcol/evalcol/extension/evalapiextension/internal/alertapi"
	"github.com/evalcol/evalcol/internal/alerting"
	"github.com/evalcol/evalcol/internal/tenant"
	"github.com/evalcol/evalcol/internal/warehouse"
)

// alertsData is the data of the alerts page.
type alertsData struct {
	Rules      []alertapi.View
	Webhooks   []string
	Evaluators []string
	Form       alertForm
	Notice     string
}

// alertForm is the new-rule form.
type alertForm struct {
	Name, Kind, Evaluator, Workflow, Monitor, Threshold, Direction, Window, MinEvaluations, Repeat string
	Notify                                                                                         map[string]bool
	Error                                                                                          string
}

func (c *Console) alertsPage(w http.ResponseWriter, r *http.Request) {
	c.renderAlerts(w, r, http.StatusOK, alertForm{Kind: alerting.KindPassRate, Evaluator: "toxicity-detector", Threshold: "90", Direction: "below", Window: "15", MinEvaluations: "10", Repeat: "60"})
}

func (c *Console) renderAlerts(w http.ResponseWriter, r *http.Request, status int, f alertForm) {
	if c.opts.Alerts == nil {
		c.renderError(w, r, http.StatusNotFound, "Alerts unavailable", "Alerts are not served by this collector.")
		return
	}
	t, _ := tenant.FromContext(r.Context())
	rules, err := alertapi.Rules(r.Context(), c.opts.Store, t.Environment)
	if err != nil {
		c.unavailable(w, r, err)
		return
	}
	data := alertsData{Rules: rules, Webhooks: c.opts.Alerts.Webhooks(), Evaluators: evaluators.Slugs(), Form: f, Notice: r.URL.Query().Get("notice")}
	c.render(w, r, status, "alerts", page{Title: "Alerts", Nav: "alerts", Data: data})
}

func atoi(s string) int {
	n, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil {
		return -1
	}
	return n
}

func (c *Console) createAlert(w http.ResponseWriter, r *http.Request) {
	if c.opts.Alerts == nil {
		c.renderError(w, r, http.StatusNotFound, "Alerts unavailable", "Alerts are not served by this collector.")
		return
	}
	t, _ := tenant.FromContext(r.Context())
	f := alertForm{Name: r.PostFormValue("name"), Kind: r.PostFormValue("kind"), Evaluator: r.PostFormValue("evaluator"),
		Workflow: strings.TrimSpace(r.PostFormValue("workflow")), Monitor: strings.TrimSpace(r.PostFormValue("monitor")),
		Threshold: r.PostFormValue("threshold"), Direction: r.PostFormValue("direction"), Window: r.PostFormValue("window"),
		MinEvaluations: r.PostFormValue("min_evaluations"), Repeat: r.PostFormValue("repeat"), Notify: map[string]bool{}}
	rule := alerting.Rule{Name: strings.TrimSpace(f.Name), Kind: f.Kind, Workflow: f.Workflow, Monitor: f.Monitor,
		WindowMinutes: atoi(f.Window), RepeatMinutes: atoi(f.Repeat)}
	for _, n := range r.PostForm["notify"] {
		f.Notify[n] = true
		rule.Notify = append(rule.Notify, n)
	}
	if rule.Kind != alerting.KindNoSpans {
		rule.Evaluator, rule.MinEvaluations = f.Evaluator, atoi(f.MinEvaluations)
		th, err := strconv.ParseFloat(strings.TrimSpace(f.Threshold), 64)
		if err != nil {
			f.Error = "threshold: must be a number"
			c.renderAlerts(w, r, http.StatusBadRequest, f)
			return
		}
		rule.Threshold = th
		if rule.Kind == alerting.KindMeanScore {
			rule.Direction = f.Direction
		}
	}
	created, err := c.opts.Alerts.Create(r.Context(), t.Environment, rule)
	var fe *alerting.FieldError
	if errors.As(err, &fe) {
		f.Error = err.Error()
		c.renderAlerts(w, r, http.StatusBadRequest, f)
		return
	}
	if err != nil {
		c.unavailable(w, r, err)
		return
	}
	http.Redirect(w, r, "/ui/alerts?notice="+url.QueryEscape("Created the rule "+created.Name+"."), http.StatusSeeOther)
}

func (c *Console) alertAction(w http.ResponseWriter, r *http.Request) {
	if c.opts.Alerts == nil {
		c.renderError(w, r, http.StatusNotFound, "Alerts unavailable", "Alerts are not served by this collector.")
		return
	}
	t, _ := tenant.FromContext(r.Context())
	id := r.PathValue("id")
	var notice string
	var err error
	switch r.PathValue("action") {
	case "test":
		var ds []alerting.Delivery
		if ds, err = c.opts.Alerts.Test(r.Context(), t.Environment, id); err == nil {
			var parts []string
			for _, d := range ds {
				p := fmt.Sprintf("%s answered %d", d.Webhook, d.Status)
				if d.Error != "" {
					p = d.Webhook + ": " + d.Error
				}
				parts = append(parts, p)
			}
			notice = "Test sent: " + strings.Join(parts, "; ") + "."
			if len(parts) == 0 {
				notice = "The rule notifies no webhook."
			}
		}
	case "silence":
		err, notice = c.opts.Alerts.Silence(r.Context(), t.Environment, id, time.Hour), "Silenced for an hour."
	case "unmute":
		err, notice = c.opts.Alerts.Silence(r.Context(), t.Environment, id, 0), "Notifications are on again."
	case "delete":
		if err = c.opts.Store.DeleteDocument(r.Context(), alerting.RuleKind, t.Environment, id); err == nil {
			_ = c.opts.Store.DeleteDocument(r.Context(), alerting.StateKind, t.Environment, id)
		}
		notice = "Deleted the rule."
	default:
		c.renderError(w, r, http.StatusNotFound, "Not found", "There is no such action.")
		return
	}
	if errors.Is(err, warehouse.ErrNotFound) {
		c.renderError(w, r, http.StatusNotFound, "Rule not found", "There is no alert rule "+quote(truncate(40, id))+" in environment "+quote(t.Environment)+".")
		return
	}
	if err != nil {
		c.unavailable(w, r, err)
		return
	}
	http.Redirect(w, r, "/ui/alerts?notice="+url.QueryEscape(notice), http.StatusSeeOther)
}
