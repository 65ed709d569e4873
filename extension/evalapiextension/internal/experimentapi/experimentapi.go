// Package experimentapi serves /v2/experiments as Traceloop's SDKs call
// it (client.experiment.run of the Node SDK 0.27.0): an experiment runs
// an app over a published dataset version; each run records the app's
// output for every row (a task) and the evaluators' results on it (an
// execution, run synchronously and read back at its stream URL). Runs
// are summarised per evaluator, so that two runs compare, and export as
// CSV or JSON. Everything is kept as warehouse documents, per
// organization and project.
package experimentapi

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"runtime"
	"sort"
	"strconv"
	"time"

	"github.com/evalcol/evalcol/evaluators"
	"github.com/evalcol/evalcol/extension/evalapiextension/internal/httpjson"
	"github.com/evalcol/evalcol/internal/dataset"
	"github.com/evalcol/evalcol/internal/randid"
	"github.com/evalcol/evalcol/internal/tenant"
	"github.com/evalcol/evalcol/internal/warehouse"
)

// Warehouse document kinds.
const (
	Kind          = "experiment"           // scope: org/project
	RunKind       = "experiment_run"       // scope: the experiment's id
	TaskKind      = "experiment_task"      // scope: the run's id
	ExecutionKind = "experiment_execution" // scope: the run's id
)

// Limits.
const (
	MaxTasksPerRun = 50_000
	maxTaskBytes   = 128 << 10
)

// Result is what an evaluator gave for one task.
type Result struct {
	Output map[string]any
	// Verdict is "pass", "fail" or "" (none).
	Verdict string
	// Score is the evaluator's score (nil: none).
	Score *float64
	// Version is the evaluator version that ran ("" for prebuilt ones).
	Version string
}

// Runner runs an evaluator (a prebuilt or a custom slug) of the tenant on
// an input with a config.
type Runner func(ctx context.Context, t tenant.Tenant, slug string, input, config map[string]any) (Result, error)

// RunPrebuilt runs the prebuilt evaluator slug (ok false when there is
// none of that slug).
func RunPrebuilt(ctx context.Context, slug string, input, config map[string]any) (res Result, ok bool, err error) {
	def, ok := evaluators.Lookup(slug)
	if !ok {
		return Result{}, false, nil
	}
	req, err := def.NewRequest(input, config)
	if err != nil {
		return Result{}, true, err
	}
	out, err := def.Run(ctx, req)
	if err != nil {
		return Result{}, true, err
	}
	return Result{Output: out, Verdict: string(evaluators.VerdictOf(def.Slug, out, "")), Score: ScoreOf(out, def.Score)}, true, nil
}

// Store is what the service needs of the warehouse.
type Store interface {
	warehouse.DocumentStore
	WriteMetricPoints(ctx context.Context, pts []warehouse.MetricPoint) error
}

// Service serves the experiment routes.
type Service struct {
	store Store
	run   Runner
	now   func() time.Time
	// slots bounds the evaluator runs of all requests at once (an SDK
	// runs many rows in parallel; ingest and other keys keep the rest of
	// the CPU).
	slots chan struct{}
}

// New returns the service; run runs evaluators.
func New(store Store, run Runner) *Service {
	return &Service{store: store, run: run, now: time.Now, slots: make(chan struct{}, max(1, runtime.GOMAXPROCS(0)/2))}
}

// runBounded runs an evaluator in one of the service's slots.
func (s *Service) runBounded(ctx context.Context, t tenant.Tenant, slug string, input, config map[string]any) (Result, error) {
	select {
	case s.slots <- struct{}{}:
	case <-ctx.Done():
		return Result{}, ctx.Err()
	}
	defer func() { <-s.slots }()
	return s.run(ctx, t, slug, input, config)
}

// Routes are the service's paths.
func (s *Service) Routes() []httpjson.Route {
	return []httpjson.Route{
		{Pattern: "/v2/experiments", Handlers: map[string]http.HandlerFunc{http.MethodGet: s.list}},
		{Pattern: "/v2/experiments/initialize", Handlers: map[string]http.HandlerFunc{http.MethodPut: s.initialize}},
		{Pattern: "/v2/experiments/run-in-github", Handlers: map[string]http.HandlerFunc{http.MethodPost: s.runInGitHub}},
		{Pattern: "/v2/experiments/{slug}", Handlers: map[string]http.HandlerFunc{http.MethodGet: s.get}},
		{Pattern: "/v2/experiments/{slug}/runs/{run}/tasks", Handlers: map[string]http.HandlerFunc{http.MethodPost: s.createTask}},
		{Pattern: "/v2/experiments/{slug}/runs/{run}/tasks/{task}", Handlers: map[string]http.HandlerFunc{http.MethodPost: s.execute}},
		{Pattern: "/v2/experiments/{slug}/runs/{run}/executions/{execution}", Handlers: map[string]http.HandlerFunc{http.MethodGet: s.execution}},
		{Pattern: "/v2/experiments/{slug}/runs/{run}/export/{format}", Handlers: map[string]http.HandlerFunc{http.MethodGet: s.export}},
		{Pattern: "/v2/evaluators/{slug}/executions", Handlers: map[string]http.HandlerFunc{http.MethodPost: s.executeEvaluator}},
		{Pattern: "/v2/evaluators/{slug}/executions/{execution}", Handlers: map[string]http.HandlerFunc{http.MethodGet: s.evaluatorExecution}},
	}
}

// Experiment is an experiment's stored body.
type Experiment struct {
	ID             string         `json:"id"`
	Slug           string         `json:"slug"`
	DatasetSlug    string         `json:"dataset_slug"`
	EvaluatorSlugs []string       `json:"evaluator_slugs"`
	Metadata       map[string]any `json:"metadata,omitempty"`
	CreatedAt      time.Time      `json:"created_at"`
}

// Run is one run of an experiment.
type Run struct {
	ID             string         `json:"id"`
	ExperimentID   string         `json:"experiment_id"`
	DatasetSlug    string         `json:"dataset_slug"`
	DatasetVersion string         `json:"dataset_version"`
	EvaluatorSlugs []string       `json:"evaluator_slugs"`
	Metadata       map[string]any `json:"metadata,omitempty"`
	CreatedAt      time.Time      `json:"created_at"`
}

// Task is the app's output for one dataset row.
type Task struct {
	ID        string         `json:"id"`
	Input     map[string]any `json:"input"`
	Output    map[string]any `json:"output"`
	CreatedAt time.Time      `json:"created_at"`
}

// Execution is one evaluator's result on one task.
type Execution struct {
	ID               string         `json:"id"`
	TaskID           string         `json:"task_id"`
	EvaluatorSlug    string         `json:"evaluator_slug"`
	EvaluatorVersion string         `json:"evaluator_version,omitempty"`
	Result           map[string]any `json:"result"`
	Verdict          string         `json:"verdict,omitempty"`
	Score            *float64       `json:"score,omitempty"`
	Error            string         `json:"error,omitempty"`
	CreatedAt        time.Time      `json:"created_at"`
}

type notFound struct{ what string }

func (e notFound) Error() string { return e.what + " not found" }

// IsNotFound reports whether err says that an experiment, run, task or
// execution does not exist.
func IsNotFound(err error) bool {
	var nf notFound
	return errors.As(err, &nf)
}

type badRequest struct{ msg string }

func (e badRequest) Error() string { return e.msg }

func answerError(w http.ResponseWriter, err error) {
	var nf notFound
	var br badRequest
	switch {
	case errors.As(err, &nf):
		httpjson.WriteError(w, http.StatusNotFound, err.Error())
	case errors.As(err, &br):
		httpjson.WriteError(w, http.StatusBadRequest, err.Error())
	case errors.Is(err, warehouse.ErrConflict):
		httpjson.WriteError(w, http.StatusConflict, "conflict: "+err.Error())
	case warehouse.IsRetryable(err):
		httpjson.WriteError(w, http.StatusServiceUnavailable, "warehouse unavailable, retry later")
	default:
		httpjson.WriteError(w, http.StatusInternalServerError, "internal error")
	}
}

func getBody[T any](ctx context.Context, st warehouse.DocumentStore, kind, scope, key, what string) (T, warehouse.Document, error) {
	var v T
	d, err := st.GetDocument(ctx, kind, scope, key)
	if errors.Is(err, warehouse.ErrNotFound) {
		return v, d, notFound{fmt.Sprintf("%s %q", what, key)}
	}
	if err != nil {
		return v, d, err
	}
	if err := json.Unmarshal(d.Body, &v); err != nil {
		return v, d, fmt.Errorf("decode %s %s: %w", what, d.ID, err)
	}
	return v, d, nil
}

func put(ctx context.Context, st warehouse.DocumentStore, kind, scope, id, slug string, v any) error {
	body, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("encode %s: %w", kind, err)
	}
	return st.CreateDocument(ctx, warehouse.Document{Kind: kind, Scope: scope, ID: id, Slug: slug, Body: body})
}

// initializeRequest is the body of PUT /v2/experiments/initialize.
type initializeRequest struct {
	Slug                  string         `json:"slug"`
	DatasetSlug           string         `json:"dataset_slug"`
	DatasetVersion        string         `json:"dataset_version"`
	EvaluatorSlugs        []string       `json:"evaluator_slugs"`
	ExperimentMetadata    map[string]any `json:"experiment_metadata"`
	ExperimentRunMetadata map[string]any `json:"experiment_run_metadata"`
}

func (s *Service) initialize(w http.ResponseWriter, r *http.Request) {
	t, _ := tenant.FromContext(r.Context())
	var req initializeRequest
	if !httpjson.ReadObject(w, r, &req) {
		return
	}
	exp, run, err := s.start(r.Context(), t, req)
	if err != nil {
		answerError(w, err)
		return
	}
	httpjson.WriteJSON(w, http.StatusOK, map[string]any{"experiment": exp, "run": run})
}

// start checks the dataset version a run names and records the run (and
// the experiment, on its first run).
func (s *Service) start(ctx context.Context, t tenant.Tenant, req initializeRequest) (Experiment, Run, error) {
	if !dataset.ValidSlug(req.Slug) {
		return Experiment{}, Run{}, badRequest{fmt.Sprintf("slug: %q is not an experiment slug: 1 to 64 of a-z, 0-9 and '-'", req.Slug)}
	}
	if req.Slug == "initialize" || req.Slug == "run-in-github" {
		return Experiment{}, Run{}, badRequest{fmt.Sprintf("slug: %q is a path of the API, not an experiment slug", req.Slug)}
	}
	if req.DatasetSlug != "" {
		dd, err := s.store.GetDocument(ctx, dataset.Kind, t.ProjectScope(), req.DatasetSlug)
		if errors.Is(err, warehouse.ErrNotFound) {
			return Experiment{}, Run{}, notFound{fmt.Sprintf("dataset %q", req.DatasetSlug)}
		}
		if err != nil {
			return Experiment{}, Run{}, err
		}
		if req.DatasetVersion != "" {
			if _, err := s.store.GetDocument(ctx, dataset.VersionKind, dd.ID, req.DatasetVersion); errors.Is(err, warehouse.ErrNotFound) {
				return Experiment{}, Run{}, notFound{fmt.Sprintf("version %q of dataset %q (publish it first)", req.DatasetVersion, req.DatasetSlug)}
			} else if err != nil {
				return Experiment{}, Run{}, err
			}
		}
	}
	exp, _, err := getBody[Experiment](ctx, s.store, Kind, t.ProjectScope(), req.Slug, "experiment")
	var nf notFound
	if errors.As(err, &nf) {
		exp = Experiment{ID: randid.New(), Slug: req.Slug, DatasetSlug: req.DatasetSlug, EvaluatorSlugs: req.EvaluatorSlugs,
			Metadata: req.ExperimentMetadata, CreatedAt: s.now().UTC()}
		err = put(ctx, s.store, Kind, t.ProjectScope(), exp.ID, exp.Slug, exp)
		if errors.Is(err, warehouse.ErrConflict) { // created meanwhile by another run
			exp, _, err = getBody[Experiment](ctx, s.store, Kind, t.ProjectScope(), req.Slug, "experiment")
		}
	}
	if err != nil {
		return exp, Run{}, err
	}
	run := Run{ID: randid.New(), ExperimentID: exp.ID, DatasetSlug: req.DatasetSlug, DatasetVersion: req.DatasetVersion,
		EvaluatorSlugs: req.EvaluatorSlugs, Metadata: req.ExperimentRunMetadata, CreatedAt: s.now().UTC()}
	return exp, run, put(ctx, s.store, RunKind, exp.ID, run.ID, "", run)
}

// githubRequest is the body of POST /v2/experiments/run-in-github: the
// SDK ran the app in a pull request's CI and sends the outputs for
// evaluation here.
type githubRequest struct {
	ExperimentSlug        string         `json:"experiment_slug"`
	DatasetSlug           string         `json:"dataset_slug"`
	DatasetVersion        string         `json:"dataset_version"`
	EvaluatorSlugs        []string       `json:"evaluator_slugs"`
	ExperimentMetadata    map[string]any `json:"experiment_metadata"`
	ExperimentRunMetadata map[string]any `json:"experiment_run_metadata"`
	GitHubContext         map[string]any `json:"github_context"`
	TaskResults           []struct {
		Input  map[string]any `json:"input"`
		Output map[string]any `json:"output"`
		Error  string         `json:"error"`
	} `json:"task_results"`
}

// runInGitHub stores the task results of a run made in GitHub Actions and
// evaluates them here (evalcol calls nothing outside).
func (s *Service) runInGitHub(w http.ResponseWriter, r *http.Request) {
	t, _ := tenant.FromContext(r.Context())
	var req githubRequest
	if !httpjson.ReadObject(w, r, &req) {
		return
	}
	if len(req.TaskResults) > MaxTasksPerRun {
		answerError(w, badRequest{fmt.Sprintf("task_results: at most %d a run", MaxTasksPerRun)})
		return
	}
	meta := req.ExperimentRunMetadata
	if meta == nil {
		meta = map[string]any{}
	}
	if req.GitHubContext != nil {
		meta["github_context"] = req.GitHubContext
	}
	exp, run, err := s.start(r.Context(), t, initializeRequest{Slug: req.ExperimentSlug, DatasetSlug: req.DatasetSlug, DatasetVersion: req.DatasetVersion,
		EvaluatorSlugs: req.EvaluatorSlugs, ExperimentMetadata: req.ExperimentMetadata, ExperimentRunMetadata: meta})
	if err != nil {
		answerError(w, err)
		return
	}
	evaluated := 0
	for _, tr := range req.TaskResults {
		task := Task{ID: randid.New(), Input: tr.Input, Output: tr.Output, CreatedAt: s.now().UTC()}
		if err := put(r.Context(), s.store, TaskKind, run.ID, task.ID, "", task); err != nil {
			answerError(w, err)
			return
		}
		if tr.Error != "" {
			continue // the app failed on this row: nothing to judge
		}
		for _, slug := range req.EvaluatorSlugs {
			if _, err := s.evaluate(r.Context(), t, exp, run, task.ID, slug, tr.Output, nil); err != nil {
				answerError(w, err)
				return
			}
			evaluated++
		}
	}
	httpjson.WriteJSON(w, http.StatusOK, map[string]any{"experiment_id": exp.ID, "experiment_slug": exp.Slug, "run_id": run.ID,
		"tasks": len(req.TaskResults), "evaluations": evaluated})
}

// runOf reads the experiment of the path and its run.
func (s *Service) runOf(ctx context.Context, t tenant.Tenant, slug, runID string) (Experiment, Run, error) {
	exp, _, err := getBody[Experiment](ctx, s.store, Kind, t.ProjectScope(), slug, "experiment")
	if err != nil {
		return exp, Run{}, err
	}
	run, _, err := getBody[Run](ctx, s.store, RunKind, exp.ID, runID, "run")
	return exp, run, err
}

func (s *Service) createTask(w http.ResponseWriter, r *http.Request) {
	t, _ := tenant.FromContext(r.Context())
	body, ok := httpjson.ReadBody(w, r)
	if !ok {
		return
	}
	if len(body) > maxTaskBytes {
		answerError(w, badRequest{fmt.Sprintf("a task is at most %d bytes", maxTaskBytes)})
		return
	}
	var req struct {
		Input  map[string]any `json:"input"`
		Output map[string]any `json:"output"`
	}
	if err := httpjson.DecodeObject(body, &req); err != nil {
		answerError(w, badRequest{err.Error()})
		return
	}
	_, run, err := s.runOf(r.Context(), t, r.PathValue("slug"), r.PathValue("run"))
	if err != nil {
		answerError(w, err)
		return
	}
	task := Task{ID: randid.New(), Input: req.Input, Output: req.Output, CreatedAt: s.now().UTC()}
	if err := put(r.Context(), s.store, TaskKind, run.ID, task.ID, "", task); err != nil {
		answerError(w, err)
		return
	}
	httpjson.WriteJSON(w, http.StatusCreated, map[string]any{"id": task.ID})
}

// executeRequest is the body of POST .../tasks/{task}.
type executeRequest struct {
	EvaluatorSlug      string                    `json:"evaluator_slug"`
	EvaluatorVersion   string                    `json:"evaluator_version"`
	InputSchemaMapping map[string]map[string]any `json:"input_schema_mapping"`
	EvaluatorConfig    map[string]any            `json:"evaluator_config"`
}

func (s *Service) execute(w http.ResponseWriter, r *http.Request) {
	t, _ := tenant.FromContext(r.Context())
	var req executeRequest
	if !httpjson.ReadObject(w, r, &req) {
		return
	}
	if req.EvaluatorSlug == "" {
		answerError(w, badRequest{"evaluator_slug: is required"})
		return
	}
	exp, run, err := s.runOf(r.Context(), t, r.PathValue("slug"), r.PathValue("run"))
	if err != nil {
		answerError(w, err)
		return
	}
	task, _, err := getBody[Task](r.Context(), s.store, TaskKind, run.ID, r.PathValue("task"), "task")
	if err != nil {
		answerError(w, err)
		return
	}
	// The SDK sends the task's output as {field: {source: value}}; a
	// field it left out is taken from the task's output, then its input.
	input := map[string]any{}
	for _, src := range []map[string]any{task.Input, task.Output} {
		for k, v := range src {
			input[k] = v
		}
	}
	for k, m := range req.InputSchemaMapping {
		if v, ok := m["source"]; ok {
			input[k] = v
		}
	}
	ex, err := s.evaluate(r.Context(), t, exp, run, task.ID, req.EvaluatorSlug, input, req.EvaluatorConfig)
	if err != nil {
		answerError(w, err)
		return
	}
	httpjson.WriteJSON(w, http.StatusOK, map[string]any{"execution_id": ex.ID,
		"stream_url": fmt.Sprintf("/experiments/%s/runs/%s/executions/%s", exp.Slug, run.ID, ex.ID)})
}

func (s *Service) execution(w http.ResponseWriter, r *http.Request) {
	t, _ := tenant.FromContext(r.Context())
	_, run, err := s.runOf(r.Context(), t, r.PathValue("slug"), r.PathValue("run"))
	if err != nil {
		answerError(w, err)
		return
	}
	ex, _, err := getBody[Execution](r.Context(), s.store, ExecutionKind, run.ID, r.PathValue("execution"), "execution")
	if err != nil {
		answerError(w, err)
		return
	}
	s.writeExecution(w, ex)
}

// writeExecution answers an execution as Traceloop's backend does: the
// evaluator's output under result.evaluator_result.
func (s *Service) writeExecution(w http.ResponseWriter, ex Execution) {
	result := map[string]any{"evaluator_result": ex.Result, "verdict": ex.Verdict}
	out := map[string]any{"execution_id": ex.ID, "evaluator_slug": ex.EvaluatorSlug, "result": result, "status": "completed"}
	if ex.Error != "" {
		out["status"], out["error"] = "failed", ex.Error
		result["evaluator_result"], result["error"] = nil, ex.Error
	}
	httpjson.WriteJSON(w, http.StatusOK, out)
}

// evaluate runs one evaluator on a task of a run and stores the
// execution (an evaluator that fails is an execution with its error) and
// its metric points; the error is the warehouse's.
func (s *Service) evaluate(ctx context.Context, t tenant.Tenant, exp Experiment, run Run, taskID, slug string, input, config map[string]any) (Execution, error) {
	ex := Execution{ID: randid.New(), TaskID: taskID, EvaluatorSlug: slug, CreatedAt: s.now().UTC()}
	res, err := s.runBounded(ctx, t, slug, input, config)
	if err != nil {
		ex.Error = err.Error()
	} else {
		ex.Result, ex.Verdict, ex.Score, ex.EvaluatorVersion = res.Output, res.Verdict, res.Score, res.Version
	}
	if err := put(ctx, s.store, ExecutionKind, run.ID, ex.ID, "", ex); err != nil {
		return ex, err
	}
	return ex, s.store.WriteMetricPoints(ctx, points(t, exp, run, ex))
}

// points are an execution's results as metric points of the key's
// environment (source "experiment"): one per number or boolean output,
// named "<evaluator>.<field>" as production evaluations are, labelled
// with the experiment, run, task, dataset version and verdict, so that
// /v2/metrics and dashboards read experiments beside production.
func points(t tenant.Tenant, exp Experiment, run Run, ex Execution) []warehouse.MetricPoint {
	labels := map[string]string{"evaluator_name": ex.EvaluatorSlug, "experiment": exp.Slug, "experiment_run": run.ID, "experiment_task": ex.TaskID,
		"dataset": run.DatasetSlug, "dataset_version": run.DatasetVersion, "metric_source": warehouse.SourceExperiment}
	if ex.Verdict != "" {
		labels["verdict"] = ex.Verdict
	}
	if ex.Error != "" {
		labels["verdict"] = "error"
	}
	fields := make([]string, 0, len(ex.Result))
	for k := range ex.Result {
		fields = append(fields, k)
	}
	sort.Strings(fields)
	var pts []warehouse.MetricPoint
	for _, f := range fields {
		p := warehouse.MetricPoint{Environment: t.Environment, OrganizationID: t.OrganizationID, MetricName: ex.EvaluatorSlug + "." + f,
			Source: warehouse.SourceExperiment, EventTime: ex.CreatedAt.UnixMilli(), Labels: labels}
		switch v := ex.Result[f].(type) {
		case bool:
			p.BoolValue = &v
		default:
			n := ScoreOf(ex.Result, f)
			if n == nil {
				continue
			}
			p.NumericValue = n
		}
		pts = append(pts, p)
	}
	return pts
}

// EvaluatorExecutionKind keeps the results of POST
// /v2/evaluators/{slug}/executions until they are read (scope: the
// tenant's org/project).
const EvaluatorExecutionKind = "evaluator_execution"

// executeEvaluator runs one evaluator, prebuilt or custom, on a mapped
// input (the SDK's customEvaluatorGuard): the result waits at its stream
// URL.
func (s *Service) executeEvaluator(w http.ResponseWriter, r *http.Request) {
	t, _ := tenant.FromContext(r.Context())
	var req executeRequest
	if !httpjson.ReadObject(w, r, &req) {
		return
	}
	slug := r.PathValue("slug")
	input := map[string]any{}
	for k, m := range req.InputSchemaMapping {
		if v, ok := m["source"]; ok {
			input[k] = v
		}
	}
	ex := Execution{ID: randid.New(), EvaluatorSlug: slug, CreatedAt: s.now().UTC()}
	res, err := s.runBounded(r.Context(), t, slug, input, req.EvaluatorConfig)
	if err != nil {
		ex.Error = err.Error()
	} else {
		ex.Result, ex.Verdict, ex.Score, ex.EvaluatorVersion = res.Output, res.Verdict, res.Score, res.Version
	}
	if err := put(r.Context(), s.store, EvaluatorExecutionKind, t.ProjectScope(), ex.ID, "", ex); err != nil {
		answerError(w, err)
		return
	}
	httpjson.WriteJSON(w, http.StatusOK, map[string]any{"execution_id": ex.ID,
		"stream_url": fmt.Sprintf("/v2/evaluators/%s/executions/%s", slug, ex.ID)})
}

// evaluatorExecution answers an execution's result once, then forgets it
// (guards call once per request: kept results would only pile up).
func (s *Service) evaluatorExecution(w http.ResponseWriter, r *http.Request) {
	t, _ := tenant.FromContext(r.Context())
	ex, _, err := getBody[Execution](r.Context(), s.store, EvaluatorExecutionKind, t.ProjectScope(), r.PathValue("execution"), "execution")
	if err == nil && ex.EvaluatorSlug != r.PathValue("slug") {
		err = notFound{fmt.Sprintf("execution %q of evaluator %q", r.PathValue("execution"), r.PathValue("slug"))}
	}
	if err != nil {
		answerError(w, err)
		return
	}
	if err := s.store.DeleteDocument(r.Context(), EvaluatorExecutionKind, t.ProjectScope(), ex.ID); err != nil && !errors.Is(err, warehouse.ErrNotFound) {
		answerError(w, err)
		return
	}
	s.writeExecution(w, ex)
}

// all reads every document of a kind and scope.
func all[T any](ctx context.Context, st warehouse.DocumentStore, kind, scope string) ([]T, error) {
	var out []T
	var after int64
	for {
		docs, err := st.ListDocuments(ctx, warehouse.DocumentQuery{Kind: kind, Scope: scope, AfterSeq: after})
		if err != nil {
			return nil, err
		}
		for _, d := range docs {
			var v T
			if err := json.Unmarshal(d.Body, &v); err != nil {
				return nil, fmt.Errorf("decode %s %s: %w", kind, d.ID, err)
			}
			out = append(out, v)
		}
		if len(docs) < warehouse.MaxDocumentPage || len(out) >= MaxTasksPerRun*8 {
			return out, nil
		}
		after = docs[len(docs)-1].Seq
	}
}

// EvaluatorSummary is one evaluator's results in a run.
type EvaluatorSummary struct {
	Count  int     `json:"count"`
	Pass   int     `json:"pass"`
	Fail   int     `json:"fail"`
	Errors int     `json:"errors"`
	Mean   float64 `json:"mean_score"`
	scored int
}

// RunSummary is a run with its results per evaluator.
type RunSummary struct {
	Run
	Tasks      int                          `json:"tasks"`
	Evaluators map[string]*EvaluatorSummary `json:"evaluators"`
}

// Summarize reads a run's tasks and executions into a summary.
func Summarize(ctx context.Context, st warehouse.DocumentStore, run Run) (RunSummary, error) {
	sum := RunSummary{Run: run, Evaluators: map[string]*EvaluatorSummary{}}
	tasks, err := all[Task](ctx, st, TaskKind, run.ID)
	if err != nil {
		return sum, err
	}
	sum.Tasks = len(tasks)
	execs, err := all[Execution](ctx, st, ExecutionKind, run.ID)
	if err != nil {
		return sum, err
	}
	for _, ex := range execs {
		es := sum.Evaluators[ex.EvaluatorSlug]
		if es == nil {
			es = &EvaluatorSummary{}
			sum.Evaluators[ex.EvaluatorSlug] = es
		}
		es.Count++
		switch {
		case ex.Error != "":
			es.Errors++
		case ex.Verdict == "pass":
			es.Pass++
		case ex.Verdict == "fail":
			es.Fail++
		}
		if ex.Score != nil {
			es.Mean = (es.Mean*float64(es.scored) + *ex.Score) / float64(es.scored+1)
			es.scored++
		}
	}
	return sum, nil
}

func (s *Service) list(w http.ResponseWriter, r *http.Request) {
	t, _ := tenant.FromContext(r.Context())
	exps, err := all[Experiment](r.Context(), s.store, Kind, t.ProjectScope())
	if err != nil {
		answerError(w, err)
		return
	}
	if exps == nil {
		exps = []Experiment{}
	}
	httpjson.WriteJSON(w, http.StatusOK, map[string]any{"experiments": exps, "total": len(exps)})
}

// Runs returns an experiment's runs, newest first, each summarised.
func Runs(ctx context.Context, st warehouse.DocumentStore, t tenant.Tenant, slug string) (Experiment, []RunSummary, error) {
	exp, _, err := getBody[Experiment](ctx, st, Kind, t.ProjectScope(), slug, "experiment")
	if err != nil {
		return exp, nil, err
	}
	runs, err := all[Run](ctx, st, RunKind, exp.ID)
	if err != nil {
		return exp, nil, err
	}
	out := make([]RunSummary, 0, len(runs))
	for _, run := range runs {
		sum, err := Summarize(ctx, st, run)
		if err != nil {
			return exp, nil, err
		}
		out = append(out, sum)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].CreatedAt.After(out[j].CreatedAt) })
	return exp, out, nil
}

func (s *Service) get(w http.ResponseWriter, r *http.Request) {
	t, _ := tenant.FromContext(r.Context())
	exp, runs, err := Runs(r.Context(), s.store, t, r.PathValue("slug"))
	if err != nil {
		answerError(w, err)
		return
	}
	httpjson.WriteJSON(w, http.StatusOK, map[string]any{"experiment": exp, "runs": runs})
}

func (s *Service) export(w http.ResponseWriter, r *http.Request) {
	t, _ := tenant.FromContext(r.Context())
	format := r.PathValue("format")
	if format != "csv" && format != "json" {
		answerError(w, notFound{fmt.Sprintf("export format %q (csv or json)", format)})
		return
	}
	_, run, err := s.runOf(r.Context(), t, r.PathValue("slug"), r.PathValue("run"))
	if err != nil {
		answerError(w, err)
		return
	}
	tasks, err := all[Task](r.Context(), s.store, TaskKind, run.ID)
	if err != nil {
		answerError(w, err)
		return
	}
	execs, err := all[Execution](r.Context(), s.store, ExecutionKind, run.ID)
	if err != nil {
		answerError(w, err)
		return
	}
	byTask := map[string][]Execution{}
	for _, ex := range execs {
		byTask[ex.TaskID] = append(byTask[ex.TaskID], ex)
	}
	type exported struct {
		TaskID      string                    `json:"task_id"`
		Input       map[string]any            `json:"input"`
		Output      map[string]any            `json:"output"`
		Evaluations map[string]map[string]any `json:"evaluations"`
	}
	rows := make([]exported, 0, len(tasks))
	evalNames := map[string]bool{}
	for _, task := range tasks {
		e := exported{TaskID: task.ID, Input: task.Input, Output: task.Output, Evaluations: map[string]map[string]any{}}
		for _, ex := range byTask[task.ID] {
			res := map[string]any{"verdict": ex.Verdict, "result": ex.Result}
			if ex.Error != "" {
				res["error"] = ex.Error
			}
			e.Evaluations[ex.EvaluatorSlug] = res
			evalNames[ex.EvaluatorSlug] = true
		}
		rows = append(rows, e)
	}
	if format == "json" {
		httpjson.WriteJSON(w, http.StatusOK, rows)
		return
	}
	names := make([]string, 0, len(evalNames))
	for n := range evalNames {
		names = append(names, n)
	}
	sort.Strings(names)
	var buf bytes.Buffer
	cw := csv.NewWriter(&buf)
	header := []string{"task_id", "input", "output"}
	for _, n := range names {
		header = append(header, n+".verdict", n+".result")
	}
	_ = cw.Write(header)
	for _, e := range rows {
		in, _ := json.Marshal(e.Input)
		outp, _ := json.Marshal(e.Output)
		rec := []string{e.TaskID, string(in), string(outp)}
		for _, n := range names {
			res, _ := json.Marshal(e.Evaluations[n]["result"])
			verdict, _ := e.Evaluations[n]["verdict"].(string)
			if e.Evaluations[n] == nil {
				res = nil
			}
			rec = append(rec, verdict, string(res))
		}
		_ = cw.Write(rec)
	}
	cw.Flush()
	w.Header().Set("Content-Type", "text/csv; charset=utf-8")
	_, _ = w.Write(buf.Bytes())
}

// ScoreOf returns the number a result holds under field, if any.
func ScoreOf(out map[string]any, field string) *float64 {
	switch v := out[field].(type) {
	case float64:
		return &v
	case int64:
		f := float64(v)
		return &f
	case int:
		f := float64(v)
		return &f
	case float32:
		f := float64(v)
		return &f
	case bool:
		f := 0.0
		if v {
			f = 1
		}
		return &f
	case string:
		if f, err := strconv.ParseFloat(v, 64); err == nil {
			return &f
		}
	}
	return nil
}
