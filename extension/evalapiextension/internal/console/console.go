// Package console is evalcol's web console: server-rendered pages under
// /ui/ of the API port that show traces with their evaluation results,
// scores over time, monitors and the evaluator catalogue. It reads through
// the same warehouse query model and tenancy check as the /v2 API (the
// session's environment is the only one a query may name), logs in with an
// API key checked by the API's own keyring, and keeps its sessions in the
// warehouse (a signed cookie carries the session token). Templates, CSS
// and JavaScript are embedded; pages send a strict
// Content-Security-Policy.
package console

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"embed"
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"net/http"
	"net/netip"
	"strings"
	"time"

	"go.uber.org/zap"

	"github.com/evalcol/evalcol/evaluators"
	"github.com/evalcol/evalcol/extension/evalapiextension/internal/alertapi"
	"github.com/evalcol/evalcol/extension/evalapiextension/internal/datasetapi"
	"github.com/evalcol/evalcol/extension/evalapiextension/internal/httpapi"
	"github.com/evalcol/evalcol/internal/cursorseal"
	"github.com/evalcol/evalcol/internal/monitor"
	"github.com/evalcol/evalcol/internal/pricing"
	"github.com/evalcol/evalcol/internal/tenant"
	"github.com/evalcol/evalcol/internal/warehouse"
)

//go:embed templates/*.html
var templateFS embed.FS

//go:embed static
var staticFS embed.FS

// Authenticator checks an API key; it is the API's keyring, so the console
// accepts exactly the keys the API accepts.
type Authenticator interface {
	Lookup(secret string) (tenant.Tenant, bool)
	// LookupDigest is Lookup by the SHA-256 digest of the secret.
	LookupDigest(digest [sha256.Size]byte) (tenant.Tenant, bool)
}

// SetupService manages auto monitor setups, scoped to a tenant, as for
// the API.
type SetupService = httpapi.SetupService

// Options configures the console.
type Options struct {
	// Keys authenticates the API key given at login.
	Keys Authenticator
	// Store is the warehouse the pages read.
	Store warehouse.Store
	// Setups manages auto monitor setups; nil hides their forms.
	Setups SetupService
	// StaticMonitors returns the monitors of the evaluator processor's
	// YAML (nil when no processor reported any).
	StaticMonitors func() []*monitor.Monitor
	// Cursors seals the cursors of the next-page links to the session's
	// environment; nil means a sealer of a random secret of this console.
	Cursors *cursorseal.Sealer
	// SessionKeys supplies the secrets that sign session cookies.
	SessionKeys KeySource
	// SessionTTL is how long a login lasts.
	SessionTTL time.Duration
	// SessionCheck is how long this console may trust what it last read
	// of a session in the warehouse (default and maximum
	// SessionCheckInterval): a logout or a revoked key on another
	// collector ends the session here within it.
	SessionCheck time.Duration
	// SecureCookies marks cookies Secure regardless of the request (set
	// when the server is configured with TLS); a request that arrived
	// over TLS always gets Secure cookies.
	SecureCookies bool
	// MaxBodyBytes limits form bodies.
	MaxBodyBytes int64
	// GroundTruthAttribute is the span attribute the playground prefills
	// ground-truth inputs from (the evaluator processor's default).
	GroundTruthAttribute string
	Logger               *zap.Logger
	// Now is the clock (tests); nil means time.Now.
	Now func() time.Time
	// Alerts serves the alerts page; nil hides it.
	Alerts *alertapi.Service
	// Datasets takes a review queue's labelled spans; nil hides that.
	Datasets *datasetapi.Service
	// Judges lists the project's custom evaluators (LLM judges) on the
	// evaluators page, with the environment's judge queue and usage; nil
	// hides them.
	Judges JudgeRunner
	// AcquireEvaluation admits one playground run under the evaluator
	// limits of the session's API key (httpapi.API.AcquireEvaluation);
	// nil means no limits. Over a limit it returns a *httpapi.LimitError.
	AcquireEvaluation func(ctx context.Context, keyFingerprint string) (release func(used time.Duration), err error)
	// TrustedProxies are the networks of the reverse proxies whose
	// X-Forwarded-Host the same-site check believes; from any other peer
	// the header is ignored. Empty trusts no one.
	TrustedProxies []netip.Prefix
	// RunEvaluator runs a validated playground request; nil means
	// (*evaluators.Definition).Run.
	RunEvaluator func(ctx context.Context, def *evaluators.Definition, req evaluators.Request) (evaluators.Result, error)
	// Prices prices tokens per model for the costs the pages show; nil
	// means the shipped table (pricing.Default).
	Prices *pricing.Table
	// SearchOff: the warehouse keeps no full-text index (the evalapi
	// extension's warehouse.search_index: false), so the traces page's
	// search box is disabled and says why.
	SearchOff bool
}

// Console serves the /ui/ pages.
type Console struct {
	opts     Options
	signer   *signer
	sessions *sessionCache
	suggest  *suggestCache
	pages    map[string]*template.Template
	mux      *http.ServeMux
	static   http.Handler
}

// Prefix is the path under which the console is served.
const Prefix = "/ui/"

// New returns the console handler.
func New(opts Options) (*Console, error) {
	if opts.Keys == nil || opts.Store == nil || opts.SessionKeys == nil {
		return nil, errors.New("console: Keys, Store and SessionKeys are required")
	}
	if opts.Logger == nil {
		opts.Logger = zap.NewNop()
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.SessionTTL <= 0 {
		opts.SessionTTL = 12 * time.Hour
	}
	if opts.SessionCheck <= 0 || opts.SessionCheck > SessionCheckInterval {
		opts.SessionCheck = SessionCheckInterval
	}
	if opts.Cursors == nil {
		secret := make([]byte, 32)
		_, _ = rand.Read(secret) // never fails (crypto/rand)
		opts.Cursors = cursorseal.New(cursorseal.StaticKeys(secret))
	}
	if opts.MaxBodyBytes <= 0 {
		opts.MaxBodyBytes = 1 << 20
	}
	if opts.RunEvaluator == nil {
		opts.RunEvaluator = func(ctx context.Context, def *evaluators.Definition, req evaluators.Request) (evaluators.Result, error) {
			return def.Run(ctx, req)
		}
	}
	if opts.Prices == nil {
		prices, err := defaultPrices()
		if err != nil {
			return nil, fmt.Errorf("console: %w", err)
		}
		opts.Prices = prices
	}
	pages, err := parsePages()
	if err != nil {
		return nil, err
	}
	sub, err := fs.Sub(staticFS, "static")
	if err != nil {
		return nil, fmt.Errorf("console: static files: %w", err)
	}
	c := &Console{opts: opts, signer: newSigner(opts.SessionKeys, opts.Now), sessions: newSessionCache(), suggest: newSuggestCache(), pages: pages, mux: http.NewServeMux(),
		static: http.StripPrefix(Prefix+"static/", http.FileServerFS(sub))}
	c.routes()
	return c, nil
}

func (c *Console) routes() {
	c.mux.HandleFunc("GET /ui/static/", c.serveStatic)
	c.mux.HandleFunc("GET /ui/login", c.loginPage)
	c.mux.HandleFunc("POST /ui/login", c.login)
	c.mux.HandleFunc("POST /ui/logout", c.authed(c.logout))
	c.mux.HandleFunc("GET /ui/{$}", c.authed(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/ui/traces", http.StatusSeeOther)
	}))
	c.mux.HandleFunc("GET /ui/traces", c.authed(c.tracesPage))
	c.mux.HandleFunc("GET /ui/traces/{id}", c.authed(c.tracePage))
	c.mux.HandleFunc("POST /ui/traces/{id}/dataset", c.authed(c.spanToDataset))
	c.mux.HandleFunc("GET /ui/scores", c.authed(c.scoresPage))
	c.mux.HandleFunc("GET /ui/dashboard", c.authed(c.dashboardPage))
	c.mux.HandleFunc("GET /ui/monitors", c.authed(c.monitorsPage))
	c.mux.HandleFunc("GET /ui/monitors/new", c.authed(c.newSetupPage))
	c.mux.HandleFunc("POST /ui/monitors", c.authed(c.createSetup))
	c.mux.HandleFunc("GET /ui/monitors/{id}", c.authed(c.editSetupPage))
	c.mux.HandleFunc("POST /ui/monitors/{id}", c.authed(c.updateSetup))
	c.mux.HandleFunc("POST /ui/monitors/{id}/delete", c.authed(c.deleteSetup))
	c.mux.HandleFunc("GET /ui/evaluators", c.authed(c.evaluatorsPage))
	c.mux.HandleFunc("GET /ui/evaluators/{slug}", c.authed(c.playgroundPage))
	c.mux.HandleFunc("POST /ui/evaluators/{slug}", c.authed(c.runPlayground))
	c.mux.HandleFunc("GET /ui/playground", c.authed(c.playgroundRedirect))
	c.mux.HandleFunc("GET /ui/datasets", c.authed(c.datasetsPage))
	c.mux.HandleFunc("POST /ui/datasets", c.authed(c.uploadCSV))
	c.mux.HandleFunc("GET /ui/datasets/{slug}", c.authed(c.datasetPage))
	c.mux.HandleFunc("POST /ui/datasets/{slug}/{action}", c.authed(c.datasetAction))
	c.mux.HandleFunc("GET /ui/datasets/{slug}/versions/{file}", c.authed(c.datasetVersion))
	c.mux.HandleFunc("GET /ui/experiments", c.authed(c.experimentsPage))
	c.mux.HandleFunc("GET /ui/experiments/{slug}", c.authed(c.experimentPage))
	c.mux.HandleFunc("GET /ui/alerts", c.authed(c.alertsPage))
	c.mux.HandleFunc("POST /ui/alerts", c.authed(c.createAlert))
	c.mux.HandleFunc("POST /ui/alerts/{id}/{action}", c.authed(c.alertAction))
	c.mux.HandleFunc("GET /ui/review", c.authed(c.reviewPage))
	c.mux.HandleFunc("POST /ui/review", c.authed(c.createQueue))
	c.mux.HandleFunc("GET /ui/review/{id}", c.authed(c.reviewQueuePage))
	c.mux.HandleFunc("POST /ui/review/{id}", c.authed(c.labelSpan))
	c.mux.HandleFunc("GET /ui/review/{id}/agreement", c.authed(c.agreementPage))
	c.mux.HandleFunc("POST /ui/review/{id}/dataset", c.authed(c.addToDataset))
	c.mux.HandleFunc("/ui/", func(w http.ResponseWriter, r *http.Request) {
		c.renderError(w, r, http.StatusNotFound, "Page not found", "There is no console page at "+r.URL.Path+".")
	})
}

// ServeHTTP serves a console request with the security headers every
// answer carries, recovering a panic into a 500 page.
func (c *Console) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Content-Security-Policy", contentSecurityPolicy)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Referrer-Policy", "same-origin")
	h.Set("Cross-Origin-Opener-Policy", "same-origin")
	h.Set("Cross-Origin-Resource-Policy", "same-origin")
	defer func() {
		if p := recover(); p != nil {
			if p == http.ErrAbortHandler {
				panic(p)
			}
			c.opts.Logger.Error("panic in console handler", zap.String("path", r.URL.Path), zap.Any("panic", p), zap.Stack("stack"))
			c.renderError(w, r, http.StatusInternalServerError, "Internal error", "The console failed to render this page; the collector's log has the details.")
		}
	}()
	if r.Body != nil {
		r.Body = http.MaxBytesReader(w, r.Body, c.opts.MaxBodyBytes)
	}
	c.mux.ServeHTTP(w, r)
}

// contentSecurityPolicy allows only the console's own files: no inline
// script or style, no plugin, no framing, forms only to the console.
const contentSecurityPolicy = "default-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'; object-src 'none'"

func (c *Console) serveStatic(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Cache-Control", "public, max-age=3600")
	c.static.ServeHTTP(w, r)
}

// Root redirects GET / to the console; other methods on / are left to
// next. It is mounted by the extension in front of the API.
func Root(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/" && (r.Method == http.MethodGet || r.Method == http.MethodHead) {
			http.Redirect(w, r, "/ui/traces", http.StatusFound)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// Mount returns a handler that serves the console under /ui/, redirects
// GET / to it and passes every other request to api.
func Mount(api http.Handler, c *Console) http.Handler {
	return Root(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/ui" || strings.HasPrefix(r.URL.Path, Prefix) {
			if r.URL.Path == "/ui" {
				http.Redirect(w, r, Prefix, http.StatusMovedPermanently)
				return
			}
			c.ServeHTTP(w, r)
			return
		}
		api.ServeHTTP(w, r)
	}))
}
