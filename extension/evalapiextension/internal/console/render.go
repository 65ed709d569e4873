package console

import (
	"bytes"
	"fmt"
	"html/template"
	"net/http"
	"strconv"
	"strings"
	"time"

	"go.uber.org/zap"

	"github.com/evalcol/evalcol/internal/tenant"
	"github.com/evalcol/evalcol/internal/warehouse"
)

// pageNames are the page templates; each defines "content" inside the
// layout.
var pageNames = []string{"login", "error", "traces", "trace", "scores", "dashboard", "monitors", "setup", "evaluators", "playground", "review", "review-queue", "agreement", "alerts", "experiments", "experiment", "datasets", "dataset"}

func parsePages() (map[string]*template.Template, error) {
	pages := make(map[string]*template.Template, len(pageNames))
	for _, name := range pageNames {
		t, err := template.New(name).Funcs(funcs).ParseFS(templateFS, "templates/layout.html", "templates/parts.html", "templates/"+name+".html")
		if err != nil {
			return nil, fmt.Errorf("console: parse template %s: %w", name, err)
		}
		pages[name] = t
	}
	return pages, nil
}

// page is what every template gets: the layout's fields and the page's own
// Data.
type page struct {
	Title string
	// Nav names the active navigation entry.
	Nav string
	// Tenant is the session's tenant (shown on every page); LoggedIn is
	// false on the login and error pages of anonymous visitors.
	Tenant   tenant.Tenant
	LoggedIn bool
	// CSRF is the token every form that changes something sends back.
	CSRF string
	Data any
}

// render executes page template name into a buffer, then writes it with
// status, so a template error never leaves half a page.
func (c *Console) render(w http.ResponseWriter, r *http.Request, status int, name string, p page) {
	if sess := sessionFrom(r.Context()); sess.ID != "" {
		p.Tenant, p.LoggedIn = sess.tenant(), true
		if p.CSRF == "" {
			tok, err := c.signer.csrfToken(r.Context(), "session", sess.ID)
			if err != nil {
				c.unavailable(w, r, err)
				return
			}
			p.CSRF = tok
		}
	}
	var buf bytes.Buffer
	if err := c.pages[name].ExecuteTemplate(&buf, "layout", p); err != nil {
		c.opts.Logger.Error("render console page", zap.String("page", name), zap.Error(err))
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
}

// errorPage is the data of the error page.
type errorPage struct {
	Heading, Message string
	Status           int
}

func (c *Console) renderError(w http.ResponseWriter, r *http.Request, status int, heading, msg string) {
	w.Header().Set("Cache-Control", "no-store")
	c.render(w, r, status, "error", page{Title: heading, Data: errorPage{Heading: heading, Message: msg, Status: status}})
}

// unavailable answers a store or session-secret error: 503 when the
// warehouse is unavailable, 400 for a query the user can fix, 500 else.
func (c *Console) unavailable(w http.ResponseWriter, r *http.Request, err error) {
	switch {
	case warehouse.IsQueryError(err):
		c.renderError(w, r, http.StatusBadRequest, "Bad query", err.Error())
	case warehouse.IsRetryable(err):
		c.opts.Logger.Warn("console: warehouse unavailable", zap.Error(err))
		w.Header().Set("Retry-After", "5")
		c.renderError(w, r, http.StatusServiceUnavailable, "Warehouse unavailable", "The warehouse cannot be reached right now. Retry in a few seconds.")
	default:
		c.opts.Logger.Error("console: request failed", zap.String("path", r.URL.Path), zap.Error(err))
		c.renderError(w, r, http.StatusInternalServerError, "Internal error", "The console failed to load this page; the collector's log has the details.")
	}
}

// funcs are the template functions.
var funcs = template.FuncMap{
	"time":      formatTime,
	"when":      timeElement,
	"duration":  formatDuration,
	"score":     formatScore,
	"percent":   func(f float64) string { return strconv.FormatFloat(f*100, 'f', 1, 64) + "%" },
	"add":       func(a, b int) int { return a + b },
	"add64":     func(a, b float64) float64 { return a + b },
	"add64i":    func(a, b int64) int64 { return a + b },
	"join":      strings.Join,
	"truncate":  truncate,
	"scanLimit": func() int { return warehouse.MaxSortedTraceScan },
	"sortHead":  func(label string, link *sortLink) sortHead { return sortHead{Label: label, Link: link} },
}

// sortHead is a column heading: its label, and its sort link when the
// column sorts the list.
type sortHead struct {
	Label string
	Link  *sortLink
}

// formatTime renders Unix ms as UTC time with milliseconds.
// timeElement renders ms as a <time> element: the UTC time as text, which
// console.js rewrites into the browser's local zone, keeping UTC in the
// title (shown on hover). Pages without the script show UTC.
func timeElement(ms int64) template.HTML {
	if ms == 0 {
		return ""
	}
	t := time.UnixMilli(ms).UTC()
	utc := t.Format("2006-01-02 15:04:05.000") + " UTC"
	return template.HTML(`<time class="local" datetime="` + t.Format(time.RFC3339Nano) + `" title="` + utc + `">` + utc + `</time>`)
}

func formatTime(ms int64) string {
	if ms == 0 {
		return ""
	}
	return time.UnixMilli(ms).UTC().Format("2006-01-02 15:04:05.000")
}

// formatDuration renders milliseconds for humans.
func formatDuration(ms int64) string {
	switch {
	case ms < 1000:
		return strconv.FormatInt(ms, 10) + " ms"
	case ms < 60_000:
		return strconv.FormatFloat(float64(ms)/1000, 'f', 2, 64) + " s"
	default:
		return (time.Duration(ms) * time.Millisecond).Round(time.Second).String()
	}
}

func formatScore(f float64) string { return strconv.FormatFloat(f, 'g', 4, 64) }

// truncate cuts s to at most n runes, marking the cut.
func truncate(n int, s string) string {
	if len(s) <= n {
		return s
	}
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}

// quote puts typographic quotes around s for a message shown as text (no
// escaping: the template escapes it, and the user reads it verbatim).
func quote(s string) string { return "“" + s + "”" }
