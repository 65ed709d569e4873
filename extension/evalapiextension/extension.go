package evalapiextension

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/component/componentstatus"
	"go.opentelemetry.io/collector/confmap"
	"go.opentelemetry.io/collector/extension"
	"go.opentelemetry.io/collector/extension/extensionauth"
	"go.opentelemetry.io/collector/extension/extensionmiddleware"
	"go.uber.org/zap"
	"google.golang.org/grpc"

	"github.com/evalcol/evalcol/evaluators"
	"github.com/evalcol/evalcol/extension/evalapiextension/internal/alertapi"
	"github.com/evalcol/evalcol/extension/evalapiextension/internal/annotationapi"
	"github.com/evalcol/evalcol/extension/evalapiextension/internal/console"
	"github.com/evalcol/evalcol/extension/evalapiextension/internal/customevaluators"
	"github.com/evalcol/evalcol/extension/evalapiextension/internal/datasetapi"
	"github.com/evalcol/evalcol/extension/evalapiextension/internal/evalrunner"
	"github.com/evalcol/evalcol/extension/evalapiextension/internal/experimentapi"
	"github.com/evalcol/evalcol/extension/evalapiextension/internal/httpapi"
	"github.com/evalcol/evalcol/extension/evalapiextension/internal/judgequeue"
	"github.com/evalcol/evalcol/extension/evalapiextension/internal/otlpproxy"
	"github.com/evalcol/evalcol/extension/evalapiextension/internal/setups"
	"github.com/evalcol/evalcol/internal/alerting"
	"github.com/evalcol/evalcol/internal/cursorseal"
	"github.com/evalcol/evalcol/internal/engine"
	"github.com/evalcol/evalcol/internal/judge"
	"github.com/evalcol/evalcol/internal/monitor"
	"github.com/evalcol/evalcol/internal/monitoringstatus"
	"github.com/evalcol/evalcol/internal/organizations"
	"github.com/evalcol/evalcol/internal/otlpgrpcdecode"
	"github.com/evalcol/evalcol/internal/partialsuccess"
	"github.com/evalcol/evalcol/internal/tenant"
	"github.com/evalcol/evalcol/internal/warehouse"
	"github.com/evalcol/evalcol/internal/warehouse/clickhouse"
	"github.com/evalcol/evalcol/internal/warehouse/sqlite"
)

// evalAPI is the evalapi extension.
type evalAPI struct {
	cfg      *Config
	settings extension.Settings
	keys     *tenant.Keyring

	store  warehouse.Store
	server *http.Server
	wg     sync.WaitGroup

	// proxy forwards OTLP posted to the API port (nil when off).
	proxy *otlpproxy.Proxy

	// monitors are the compiled auto monitor setups the evaluator
	// processor applies; setups keeps them up to date.
	monitors monitor.Set
	setups   *setups.Service

	// orgKeys holds the runtime API keys (organizations made through
	// /v2/organizations); bg bounds its refresh loop.
	orgKeys *organizations.Cache
	orgs    *organizations.Service
	bg      context.CancelFunc

	// status follows this collector's matched spans until stored; the
	// reporter writes it to the warehouse for the other collectors.
	status      *monitoringstatus.Tracker
	collectorID string

	telemetry *telemetry // the extension's own metrics, while started

	// judgeWorker judges the queued work of custom evaluators (nil before
	// Start); judges are the configured judge providers.
	judgeWorker *judgequeue.Worker
	judges      *judge.Client

	// static holds the static monitors each evaluator processor reported
	// (by processor id), for the console.
	staticMu sync.Mutex
	static   map[string][]*monitor.Monitor
}

var (
	_ extension.Extension    = (*evalAPI)(nil)
	_ extensionauth.Server   = (*evalAPI)(nil)
	_ warehouse.Provider     = (*evalAPI)(nil)
	_ monitor.Provider       = (*evalAPI)(nil)
	_ monitor.StaticRegistry = (*evalAPI)(nil)
	_ engine.Observer        = (*evalAPI)(nil)
	_ engine.Deferrer        = (*evalAPI)(nil)

	_ extensionmiddleware.HTTPServer = (*evalAPI)(nil)
	_ extensionmiddleware.GRPCServer = (*evalAPI)(nil)
)

func newExtension(cfg *Config, set extension.Settings) *evalAPI {
	keys := make([]tenant.Key, len(cfg.APIKeys))
	for i, k := range cfg.APIKeys {
		keys[i] = tenant.Key{Secret: string(k.Key), Tenant: tenant.Tenant{
			Environment: k.Environment, OrganizationID: k.OrganizationID, ProjectID: k.ProjectID, Admin: k.Role == RoleAdmin,
		}}
	}
	return &evalAPI{cfg: cfg, settings: set, keys: tenant.NewKeyring(keys), status: monitoringstatus.NewTracker(), collectorID: newCollectorID()}
}

// newCollectorID names this collector's rows of the pipeline status: the
// host name and 48 random bits (a restart is a new collector).
func newCollectorID() string {
	host, _ := os.Hostname()
	var b [6]byte
	_, _ = rand.Read(b[:])
	return host + "/" + hex.EncodeToString(b[:])
}

// Start opens the warehouse and starts serving the /v2 API.
func (e *evalAPI) Start(ctx context.Context, host component.Host) error {
	store, err := e.openStore(ctx)
	if err != nil {
		return err
	}
	e.store = store

	compiler, err := monitor.NewCompiler(e.settings.TelemetrySettings)
	if err != nil {
		_ = store.Close()
		return fmt.Errorf("evalapi: %w", err)
	}
	judges, err := e.judgeClient()
	if err != nil {
		_ = store.Close()
		return fmt.Errorf("evalapi: %w", err)
	}
	e.judges = judges
	metered, err := newMeteredJudge(e.settings.MeterProvider, judges)
	if err != nil {
		_ = store.Close()
		return fmt.Errorf("evalapi: %w", err)
	}
	custom := customevaluators.New(customevaluators.Options{
		Store: store, Judge: metered, Logger: e.settings.Logger,
		IsPrebuilt: func(slug string) bool { _, ok := evaluators.Lookup(slug); return ok },
	})
	e.setups = setups.NewService(setups.Options{
		Custom: custom, Deferrer: e,
		Store: store, Compiler: compiler, Monitors: &e.monitors, Logger: e.settings.Logger, Poll: e.cfg.SetupPollInterval,
		Backfill:          setups.BackfillOptions{Backend: e.cfg.Warehouse.Backend},
		MaxPerEnvironment: e.cfg.MaxSetupsPerEnvironment, MaxBytesPerEnvironment: e.cfg.MaxSetupBytesPerEnvironment,
	})
	e.setups.Start(ctx)

	// Runtime API keys: loaded now, kept in step with the warehouse every
	// poll interval, and resolved by the keyring after the YAML keys.
	e.orgKeys = organizations.NewCache(store, organizations.CacheOptions{Logger: e.settings.Logger})
	if err := e.orgKeys.Refresh(ctx); err != nil {
		e.settings.Logger.Warn("loading runtime API keys failed; retrying in the background", zap.Error(err))
	}
	e.orgs = organizations.NewService(store, e.orgKeys, nil)
	e.keys.SetResolver(e.orgKeys)

	ln, err := e.cfg.ServerConfig.ToListener(ctx)
	if err != nil {
		e.setups.Shutdown()
		_ = store.Close()
		return fmt.Errorf("evalapi: listen on %s: %w", e.cfg.ServerConfig.NetAddr.Endpoint, err)
	}
	var proxy http.Handler
	if e.cfg.OTLPProxyEndpoint != "" {
		e.proxy = otlpproxy.New(e.cfg.OTLPProxyEndpoint, e.proxyMaxBodySize(), e.settings.Logger)
		proxy = e.proxy
	}
	cursors := cursorseal.New(e.cursorKeys(store))
	notifier := e.notifier()
	alerts := alertapi.New(store, notifier)
	datasets := datasetapi.New(store)
	api := httpapi.New(httpapi.Options{
		Cursors:       cursors,
		OTLPProxy:     proxy,
		Keys:          e.keys,
		Store:         store,
		Logger:        e.settings.Logger,
		MaxBodyBytes:  e.apiMaxBodySize(),
		Setups:        e.setups,
		Organizations: e.orgs,
		Mounts:        []httpapi.Mount{annotationapi.New(store), alerts, datasets, experimentapi.New(store, evalrunner.New(custom, metered))},
		MonitoringStatus: &monitoringstatus.Reader{
			Store: store, Tracker: e.status, CollectorID: e.collectorID, Live: max(3*e.pollInterval(), 30*time.Second),
			Setups: func(env string) monitoringstatus.SetupSummary {
				return monitoringstatus.SetupSummary(e.setups.Summary(env))
			},
			Judge: func(ctx context.Context, env string) (monitoringstatus.JudgeBacklog, error) {
				b, err := judgequeue.Pending(ctx, store, env)
				return monitoringstatus.JudgeBacklog{Items: b.Items, Oldest: b.Oldest}, err
			},
		},
		EvaluatorLimits: httpapi.EvaluatorLimits{
			MaxConcurrent: e.cfg.EvaluatorLimits.MaxConcurrentPerKey,
			TimePerSecond: e.cfg.EvaluatorLimits.TimePerSecond,
			Burst:         e.cfg.EvaluatorLimits.Burst,
			MaxWait:       e.cfg.EvaluatorLimits.MaxWait,
		},
		Health:           func(r *http.Request) error { return store.Ping(r.Context()) },
		CustomEvaluators: custom,
	})
	var handler http.Handler = api
	if e.cfg.UI.Enabled {
		proxies, _ := e.cfg.trustedProxies() // validated with the config
		prices, err := e.cfg.Pricing.priceTable()
		if err != nil {
			_ = ln.Close()
			e.setups.Shutdown()
			_ = store.Close()
			return fmt.Errorf("evalapi: %w", err)
		}
		con, err := console.New(console.Options{
			Prices: prices,
			Keys:   e.keys, Store: store, Setups: e.setups, StaticMonitors: e.StaticMonitors,
			SessionKeys: e.sessionKeys(store), SessionTTL: e.cfg.UI.SessionTTL, Cursors: cursors,
			SecureCookies: e.cfg.ServerConfig.TLS.HasValue(), MaxBodyBytes: e.cfg.ServerConfig.MaxRequestBodySize,
			GroundTruthAttribute: engine.DefaultGroundTruth, Logger: e.settings.Logger,
			AcquireEvaluation: api.AcquireEvaluation,
			TrustedProxies:    proxies,
			Alerts:            alerts,
			Datasets:          datasets,
			Judges:            custom,
			SearchOff:         e.cfg.Warehouse.Backend == "sqlite" && !e.cfg.Warehouse.SearchIndex,
		})
		if err != nil {
			_ = ln.Close()
			e.setups.Shutdown()
			_ = store.Close()
			return fmt.Errorf("evalapi: %w", err)
		}
		handler = console.Mount(api, con)
	}
	// The server's own body limit must let OTLP bodies through to the
	// proxy; the API applies max_request_body_size to its routes itself.
	serverCfg := e.cfg.ServerConfig
	serverCfg.MaxRequestBodySize = e.apiMaxBodySize()
	if e.proxy != nil {
		serverCfg.MaxRequestBodySize = max(serverCfg.MaxRequestBodySize, e.proxyMaxBodySize())
	}
	srv, err := serverCfg.ToServer(ctx, host.GetExtensions(), e.settings.TelemetrySettings, handler)
	if err != nil {
		_ = ln.Close()
		e.setups.Shutdown()
		_ = store.Close()
		return fmt.Errorf("evalapi: create HTTP server: %w", err)
	}
	e.server = srv
	e.settings.Logger.Info("evalcol /v2 API listening", zap.String("endpoint", ln.Addr().String()), zap.Bool("console", e.cfg.UI.Enabled))
	bg, cancel := context.WithCancel(context.Background())
	e.bg = cancel
	e.wg.Add(1)
	go func() {
		defer e.wg.Done()
		e.orgKeys.Run(bg, e.pollInterval())
	}()
	runner := &alerting.Runner{Store: store, Notifier: notifier, Logger: e.settings.Logger, Holder: e.collectorID,
		Interval: e.cfg.Alerts.EvaluationInterval}
	e.wg.Add(1)
	go func() {
		defer e.wg.Done()
		runner.Run(bg)
	}()
	q := e.cfg.Judge.Queue
	e.judgeWorker = judgequeue.NewWorker(judgequeue.Options{
		Store: store, Evaluators: custom, Judge: metered, Holder: e.collectorID,
		Workers: q.Workers, Lease: q.Lease, MaxAttempts: q.MaxAttempts, SpanWait: q.SpanWait,
		Budget:               judgequeue.Budget{DailyCalls: e.cfg.Judge.Budget.DailyCallsPerEnvironment, DailyTokens: e.cfg.Judge.Budget.DailyTokensPerEnvironment},
		GroundTruthAttribute: engine.DefaultGroundTruth, Logger: e.settings.Logger,
	})
	e.wg.Add(1)
	go func() {
		defer e.wg.Done()
		e.judgeWorker.Run(bg)
	}()
	reporter := &monitoringstatus.Reporter{Store: store, Tracker: e.status, CollectorID: e.collectorID, Logger: e.settings.Logger}
	e.wg.Add(1)
	go func() {
		defer e.wg.Done()
		reporter.Run(bg, e.pollInterval())
	}()
	e.wg.Add(1)
	go func() {
		defer e.wg.Done()
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			componentstatus.ReportStatus(host, componentstatus.NewFatalErrorEvent(err))
		}
	}()
	if e.telemetry, err = newTelemetry(e.settings.MeterProvider, e.setups); err != nil {
		return errors.Join(fmt.Errorf("evalapi: %w", err), e.Shutdown(ctx))
	}
	return nil
}

// notifier sends alert notifications to the configured webhooks.
func (e *evalAPI) notifier() *alerting.Notifier {
	n := &alerting.Notifier{Webhooks: map[string]alerting.Webhook{}, ConsoleURL: strings.TrimSuffix(e.cfg.Alerts.ConsoleURL, "/")}
	for name, w := range e.cfg.Alerts.Webhooks {
		n.Webhooks[name] = alerting.Webhook{URL: w.URL, Secret: string(w.Secret), Format: w.Format, Timeout: w.Timeout}
	}
	return n
}

func (e *evalAPI) openStore(ctx context.Context) (warehouse.Store, error) {
	prices, err := e.cfg.Pricing.priceTable() // the trace stats price spans as they are stored
	if err != nil {
		return nil, fmt.Errorf("evalapi: %w", err)
	}
	switch e.cfg.Warehouse.Backend {
	case "sqlite":
		if dir := filepath.Dir(e.cfg.Warehouse.Path); dir != "" {
			if err := os.MkdirAll(dir, 0o750); err != nil {
				return nil, fmt.Errorf("evalapi: create warehouse directory %s: %w", dir, err)
			}
		}
		s, err := sqlite.Open(ctx, e.cfg.Warehouse.Path, sqlite.Options{Retention: e.retention(), OnPruneError: e.logPruneError, Logger: e.settings.Logger,
			SkipIntegrityCheck: !e.cfg.Warehouse.IntegrityCheck, NoSearchIndex: !e.cfg.Warehouse.SearchIndex, Prices: prices})
		if err != nil {
			if errors.Is(err, sqlite.ErrCorrupt) {
				return nil, fmt.Errorf("evalapi: warehouse: %w", err) // names the file and what to do
			}
			return nil, fmt.Errorf("evalapi: open warehouse %s: %w", e.cfg.Warehouse.Path, err)
		}
		return s, nil
	case "clickhouse":
		w := e.cfg.Warehouse
		// Lazily: the collector starts while ClickHouse is down; /healthz
		// reports it, queries answer 503, and the exporter retries.
		s, err := clickhouse.OpenLazy(clickhouse.Options{
			Addr: w.Endpoint, Database: w.Database, Username: w.Username, Password: string(w.Password), Cluster: w.Cluster,
			Retention: e.retention(), OnPruneError: e.logPruneError, Logger: e.settings.Logger, Prices: prices,
		})
		if err != nil {
			return nil, fmt.Errorf("evalapi: warehouse: %w", err)
		}
		if err := s.Ping(ctx); err != nil {
			e.settings.Logger.Warn("ClickHouse warehouse is not reachable yet; evalcol starts anyway and retries", zap.String("endpoint", w.Endpoint), zap.Error(err))
		}
		return s, nil
	default:
		return nil, fmt.Errorf("evalapi: unknown warehouse backend %q", e.cfg.Warehouse.Backend)
	}
}

// judgeClient returns the client of the judge providers: the configured
// ones, else openai / anthropic from the environment. It logs their names
// and endpoints, never their keys.
func (e *evalAPI) judgeClient() (*judge.Client, error) {
	providers := e.cfg.Judge.judgeProviders(os.Getenv)
	c, err := judge.New(providers)
	if err != nil {
		return nil, err
	}
	for _, p := range providers {
		base := "(official endpoint)"
		if u, err := url.Parse(p.BaseURL); p.BaseURL != "" && err == nil {
			base = u.Redacted() // no password of a user:password@ URL
		}
		e.settings.Logger.Info("judge provider for custom evaluators", zap.String("name", p.Name), zap.String("type", p.Type),
			zap.String("base_url", base), zap.Bool("api_key_set", p.APIKey != ""))
	}
	return c, nil
}

// retention is the store's retention from the configuration.
func (e *evalAPI) retention() warehouse.Retention {
	r := e.cfg.Warehouse.Retention
	return warehouse.Retention{Spans: r.Spans, MetricPoints: r.MetricPoints, Interval: r.Interval}
}

// logPruneError reports a failed run of the warehouse's pruning job (the
// next run tries again).
func (e *evalAPI) logPruneError(err error) {
	e.settings.Logger.Warn("warehouse retention: pruning failed; retrying at the next interval", zap.Error(err))
}

// Shutdown stops the server, letting requests in flight finish, then closes
// the warehouse. The collector shuts pipelines down before extensions, so
// the exporter has flushed by then.
func (e *evalAPI) Shutdown(ctx context.Context) error {
	var errs []error
	if e.telemetry != nil {
		errs = append(errs, e.telemetry.close())
	}
	if e.server != nil {
		if err := e.server.Shutdown(ctx); err != nil {
			errs = append(errs, fmt.Errorf("evalapi: stop HTTP server: %w", err))
		}
	}
	if e.bg != nil {
		e.bg()
	}
	e.wg.Wait()
	if e.setups != nil {
		e.setups.Shutdown()
	}
	if e.store != nil {
		if err := e.store.Close(); err != nil {
			errs = append(errs, fmt.Errorf("evalapi: close warehouse: %w", err))
		}
	}
	return errors.Join(errs...)
}

// Index returns the compiled auto monitor setups, indexed by what they
// select (monitor.Provider).
func (e *evalAPI) Index() *monitor.Index { return e.monitors.Index() }

// Evaluated records that a setup's monitor evaluated a span
// (monitor.Provider); the setup moves to in_progress.
func (e *evalAPI) Evaluated(id string) {
	if e.setups != nil {
		e.setups.Evaluated(id)
	}
}

// SpansEvaluated records the spans the evaluator processor evaluated
// (engine.Observer), for the monitoring status.
func (e *evalAPI) SpansEvaluated(at time.Time, spans []monitoringstatus.MatchedSpan) {
	e.status.Matched(at, spans)
}

// SpansStored records spans the warehouse exporter stored.
func (e *evalAPI) SpansStored(at time.Time, spans []warehouse.Span) { e.status.Stored(at, spans) }

// SpansNotStored records spans the warehouse refused (final: dropped).
func (e *evalAPI) SpansNotStored(at time.Time, spans []warehouse.Span, err error, final bool) {
	e.status.NotStored(at, spans, err, final)
}

// SetStaticMonitors records the static monitors of an evaluator processor
// (monitor.StaticRegistry), for the console.
func (e *evalAPI) SetStaticMonitors(source string, monitors []*monitor.Monitor) {
	e.staticMu.Lock()
	defer e.staticMu.Unlock()
	if e.static == nil {
		e.static = map[string][]*monitor.Monitor{}
	}
	e.static[source] = monitors
}

// StaticMonitors returns the static monitors every evaluator processor
// reported, by processor id; nil when none reported.
func (e *evalAPI) StaticMonitors() []*monitor.Monitor {
	e.staticMu.Lock()
	defer e.staticMu.Unlock()
	if e.static == nil {
		return nil
	}
	sources := make([]string, 0, len(e.static))
	for s := range e.static {
		sources = append(sources, s)
	}
	sort.Strings(sources)
	out := []*monitor.Monitor{}
	for _, s := range sources {
		out = append(out, e.static[s]...)
	}
	return out
}

// Warehouse returns the store; it is nil before Start.
func (e *evalAPI) Warehouse() warehouse.Store { return e.store }

// errUnauthenticated is what an OTLP request without a valid key gets.
var errUnauthenticated = errors.New("missing or invalid API key: send Authorization: Bearer <key>")

// Authenticate implements extensionauth.Server for the OTLP receivers: the
// Authorization header must carry a configured API key ("Bearer <key>" or
// the bare key). The key's tenant is put in the client info of the context.
func (e *evalAPI) Authenticate(ctx context.Context, sources map[string][]string) (context.Context, error) {
	var header string
	for _, name := range []string{"authorization", "Authorization"} {
		if v := sources[name]; len(v) > 0 {
			header = v[0]
			break
		}
	}
	t, ok := e.keys.Lookup(tenant.SecretFromAuthorization(header))
	if !ok {
		return ctx, errUnauthenticated
	}
	return tenant.NewClientContext(ctx, t), nil
}

// Defer keeps the work of custom evaluators in the warehouse's judge
// queue (engine.Deferrer), before the evaluator processor lets the spans
// on; the queue's worker judges it in the background.
func (e *evalAPI) Defer(ctx context.Context, work []engine.Deferred) error {
	if e.store == nil {
		return errors.New("evalapi: the warehouse is not open")
	}
	if err := judgequeue.Enqueue(ctx, e.store, e.projectOf, work, time.Now()); err != nil {
		return err
	}
	if e.judgeWorker != nil {
		e.judgeWorker.Wake()
	}
	return nil
}

// HasJudgeProvider reports whether name is a configured judge provider
// (the evaluator processor checks its monitors' judges at start).
func (e *evalAPI) HasJudgeProvider(name string) bool { return e.judges != nil && e.judges.Has(name) }

// JudgeProviders lists the configured judge providers.
func (e *evalAPI) JudgeProviders() []string {
	if e.judges == nil {
		return nil
	}
	return e.judges.Providers()
}

// projectOf returns the organization and project of an environment: of
// its first API key in the YAML, else of its runtime organization (whose
// environments are in the default project).
func (e *evalAPI) projectOf(env string) (string, string) {
	for _, k := range e.cfg.APIKeys {
		if k.Environment == env {
			return k.OrganizationID, k.ProjectID
		}
	}
	if e.orgKeys != nil {
		if org, ok := e.orgKeys.OrganizationOf(env); ok {
			return org, organizations.DefaultProject
		}
	}
	return "", ""
}

// OrganizationOf returns the organization id of the first API key of
// environment env, or of the runtime organization env belongs to ("" when
// none has it). The exporter labels metric points with it.
func (e *evalAPI) OrganizationOf(env string) string {
	org, _ := e.projectOf(env)
	return org
}

// pollInterval is how often the collector syncs with the warehouse.
func (e *evalAPI) pollInterval() time.Duration {
	if e.cfg.SetupPollInterval > 0 {
		return e.cfg.SetupPollInterval
	}
	return defaultSetupPollInterval
}

// sessionSecretSetting is the warehouse setting holding the generated
// console session secret.
const sessionSecretSetting = "console.session_secret"

// sessionKeys returns the secrets that sign console sessions: the
// configured ui.session_secret, else a random one kept in the warehouse
// (generated by the first collector that needs it), so that sessions
// survive restarts and every collector sharing the warehouse accepts them.
func (e *evalAPI) sessionKeys(store warehouse.Store) console.KeySource {
	if e.cfg.UI.SessionSecret != "" {
		return console.StaticKeys(string(e.cfg.UI.SessionSecret))
	}
	return func(ctx context.Context) ([][]byte, error) {
		secret := make([]byte, 32)
		_, _ = rand.Read(secret)
		return store.InitSetting(ctx, sessionSecretSetting, secret)
	}
}

// cursorSecretSetting is the warehouse setting holding the generated
// secret that seals pagination cursors.
const cursorSecretSetting = "api.cursor_secret"

// cursorKeys returns the secrets that seal the API's and the console's
// cursors: a random one kept in the warehouse (generated by the first
// collector that needs it), so that every collector sharing the warehouse
// accepts the others' cursors, and a restart keeps them valid.
func (e *evalAPI) cursorKeys(store warehouse.Store) cursorseal.KeySource {
	return func(ctx context.Context) ([][]byte, error) {
		secret := make([]byte, 32)
		_, _ = rand.Read(secret)
		return store.InitSetting(ctx, cursorSecretSetting, secret)
	}
}

// GetHTTPHandler implements extensionmiddleware.HTTPServer for the OTLP/HTTP
// receiver (middlewares: [{id: evalapi}]): spans the pipeline rejected are
// reported in the export response's partial_success.
func (e *evalAPI) GetHTTPHandler(context.Context) (extensionmiddleware.WrapHTTPHandlerFunc, error) {
	return func(_ context.Context, next http.Handler) (http.Handler, error) {
		return partialsuccess.HTTPHandler(next), nil
	}, nil
}

// GetGRPCServerOptions implements extensionmiddleware.GRPCServer for the
// OTLP/gRPC receiver, as GetHTTPHandler does for HTTP; it also makes the
// server answer a request that is not valid protobuf INVALID_ARGUMENT
// (grpc-go says INTERNAL, which senders retry).
func (e *evalAPI) GetGRPCServerOptions(context.Context) ([]grpc.ServerOption, error) {
	dec, err := otlpgrpcdecode.New()
	if err != nil {
		return nil, fmt.Errorf("evalapi: gRPC middleware: %w", err)
	}
	return append(dec.ServerOptions(), grpc.ChainUnaryInterceptor(partialsuccess.UnaryServerInterceptor)), nil
}

// apiMaxBodySize is the body limit of the /v2 routes.
func (e *evalAPI) apiMaxBodySize() int64 {
	if n := e.cfg.ServerConfig.MaxRequestBodySize; n > 0 {
		return n
	}
	return defaultMaxBodySize
}

// proxyMaxBodySize is the largest OTLP body the API port forwards before
// the receiver's own limit is known.
func (e *evalAPI) proxyMaxBodySize() int64 {
	if n := e.cfg.OTLPProxyMaxRequestBodySize; n > 0 {
		return n
	}
	return otlpproxy.DefaultReceiverMaxBodySize
}

// learnProxyLimit gives the OTLP proxy the receiver's max_request_body_size
// from the collector's configuration (NotifyConfigSnapshot hands it over
// after the extensions started and before the pipelines start, so the proxy
// knows it before any OTLP flows).
func (e *evalAPI) learnProxyLimit(conf *confmap.Conf) {
	if e.proxy != nil && conf != nil {
		e.proxy.LearnReceiverLimit(conf, e.proxyMaxBodySize())
	}
}
