// Package judgequeue is the persistent queue of online judge work: the
// custom evaluators (LLM judges) that monitors and auto monitor setups run
// on incoming spans. A judge call takes seconds, so the OTLP answer never
// waits for one: the evaluator processor hands the work to Enqueue, which
// keeps it in the warehouse (as documents) before the spans are
// acknowledged; workers judge it in the background, bounded, and append
// the results to the stored spans as evaluations.
//
// An item is judged at most once per successful call: the judge's answer
// is written into the item before it is appended and deleted, so a
// collector killed after the call appends the kept answer on restart
// instead of calling again. A collector killed during a call calls again
// once the item's lease ends.
package judgequeue

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/evalcol/evalcol/evaluators"
	"github.com/evalcol/evalcol/internal/engine"
	"github.com/evalcol/evalcol/internal/tenant"
	"github.com/evalcol/evalcol/internal/warehouse"
)

// Kind is the document kind of queued work; its scope is the span's
// environment.
const Kind = "judge_work"

// Item is one queued judgement: a custom evaluator on one stored span.
type Item struct {
	Environment    string            `json:"environment"`
	OrganizationID string            `json:"organization_id"`
	ProjectID      string            `json:"project_id"`
	TraceID        string            `json:"trace_id"`
	SpanID         string            `json:"span_id"`
	StartMs        int64             `json:"start_ms"`
	MonitorID      string            `json:"monitor_id"`
	MonitorName    string            `json:"monitor_name,omitempty"`
	Slug           string            `json:"slug"`
	Inputs         map[string]string `json:"inputs,omitempty"`
	EnqueuedAt     time.Time         `json:"enqueued_at"`
	// Custom marks a custom evaluator (an LLM judge); else Slug is a
	// prebuilt evaluator's (trace-level monitors), run with Config.
	Custom bool           `json:"custom,omitempty"`
	Config map[string]any `json:"config,omitempty"`
	// JudgeProvider and JudgeModel run the prebuilt evaluator Slug
	// through an LLM judge (see PrebuiltSpec).
	JudgeProvider string `json:"judge_provider,omitempty"`
	JudgeModel    string `json:"judge_model,omitempty"`
	// Trace marks trace-level work: the evaluator runs on the trace's
	// trajectory once no span arrived for QuietMs, its result on the root
	// span (TargetSpanID, once found). SeenSpans is the trace's span count
	// at the last look.
	Trace         bool   `json:"trace,omitempty"`
	QuietMs       int64  `json:"quiet_ms,omitempty"`
	SeenSpans     int    `json:"seen_spans,omitempty"`
	TargetSpanID  string `json:"target_span_id,omitempty"`
	TargetStartMs int64  `json:"target_start_ms,omitempty"`

	// Attempts counts the calls that failed in a way worth retrying.
	Attempts int `json:"attempts,omitempty"`
	// NotBefore delays the next attempt (a retry's backoff, a span not
	// stored yet).
	NotBefore time.Time `json:"not_before"`
	// Holder is the collector working on the item until LeaseUntil.
	Holder     string    `json:"holder,omitempty"`
	LeaseUntil time.Time `json:"lease_until"`
	LastError  string    `json:"last_error,omitempty"`
	// Outcome is set once the item is decided (judged, failed for good or
	// skipped); it is then appended and the item deleted.
	Outcome *Outcome `json:"outcome,omitempty"`
}

// tenant is the tenant whose project the item's evaluator belongs to.
func (it *Item) tenant() tenant.Tenant {
	return tenant.Tenant{Environment: it.Environment, OrganizationID: it.OrganizationID, ProjectID: it.ProjectID}
}

// Outcome is what a judgement decided.
type Outcome struct {
	Output  map[string]any `json:"output,omitempty"`
	Verdict string         `json:"verdict,omitempty"`
	Score   *float64       `json:"score,omitempty"`
	// EvaluatorID and Version name the evaluator version that ran.
	EvaluatorID  string `json:"evaluator_id,omitempty"`
	Version      int64  `json:"version,omitempty"`
	Model        string `json:"model,omitempty"`
	Provider     string `json:"provider,omitempty"`
	InputTokens  int64  `json:"input_tokens,omitempty"`
	OutputTokens int64  `json:"output_tokens,omitempty"`
	// ErrorType and Error are set when no judgement was made
	// (ErrorSkipped, ErrorJudge, ErrorInput, ErrorNotFound).
	ErrorType string    `json:"error_type,omitempty"`
	Error     string    `json:"error,omitempty"`
	At        time.Time `json:"at"`
	// ScoreLabel and Explanation are a prebuilt evaluator's.
	ScoreLabel  string                  `json:"score_label,omitempty"`
	Explanation *evaluators.Explanation `json:"explanation,omitempty"`
}

// The error types of outcomes without a judgement.
const (
	// ErrorSkipped: the environment's daily budget was spent.
	ErrorSkipped = "skipped"
	// ErrorJudge: the provider failed, or answered out of schema, past
	// the retries.
	ErrorJudge = "judge"
	// ErrorInput: the span lacks an input the evaluator needs.
	ErrorInput = "invalid_input"
	// ErrorNotFound: the evaluator, or the span, does not exist.
	ErrorNotFound = "not_found"
	// ErrorEvaluator: a prebuilt evaluator failed.
	ErrorEvaluator = "internal"
)

// Store is what the queue needs of the warehouse.
type Store interface {
	warehouse.DocumentStore
	QuerySpans(ctx context.Context, q warehouse.SpanQuery) (warehouse.SpanPage, error)
	warehouse.EvaluationAppender
}

// ProjectFunc returns the organization and project of an environment, for
// work queued without an authenticated tenant (the backfill of setups).
type ProjectFunc func(env string) (orgID, projectID string)

// itemID is the document id of the work of a monitor's evaluator on a
// span: a resent span queues it once.
func itemID(env, traceID, spanID, monitorID, slug string) string {
	h := sha256.New()
	for _, s := range []string{env, traceID, spanID, monitorID, slug} {
		h.Write([]byte(s))
		h.Write([]byte{0})
	}
	return "jw_" + hex.EncodeToString(h.Sum(nil)[:16])
}

// Enqueue keeps work in the warehouse; when it returns nil every item is
// stored (or was already). The tenant comes from ctx (the OTLP request's
// API key), else from project. Trace-level work is one item per trace,
// monitor and evaluator, due a quiet period after it was first queued.
func Enqueue(ctx context.Context, store warehouse.DocumentStore, project ProjectFunc, work []engine.Deferred, now time.Time) error {
	t, authenticated := tenant.FromContext(ctx)
	seen := make(map[string]bool, len(work))
	for _, w := range work {
		org, proj := t.OrganizationID, t.ProjectID
		if !authenticated || t.Environment != w.Environment {
			if project != nil {
				org, proj = project(w.Environment)
			}
		}
		it := Item{
			Environment: w.Environment, OrganizationID: org, ProjectID: proj,
			TraceID: w.TraceID.String(), SpanID: w.SpanID.String(), StartMs: w.Start.UnixMilli(),
			MonitorID: w.MonitorID, MonitorName: w.MonitorName, Slug: w.Slug, Inputs: w.Inputs,
			EnqueuedAt: now.UTC(), Custom: w.Custom, Config: w.Config,
		}
		if w.Judge != nil {
			it.JudgeProvider, it.JudgeModel = w.Judge.Provider, w.Judge.Model
		}
		id := itemID(w.Environment, it.TraceID, it.SpanID, it.MonitorID, it.Slug)
		if w.Trace {
			it.Trace, it.QuietMs, it.NotBefore = true, w.QuietPeriod.Milliseconds(), now.Add(w.QuietPeriod).UTC()
			id = itemID(w.Environment, it.TraceID, "", it.MonitorID, it.Slug)
		}
		if seen[id] {
			continue
		}
		seen[id] = true
		body, err := json.Marshal(it)
		if err != nil {
			return fmt.Errorf("judge queue: encode: %w", err)
		}
		scope := scopeOf(w.Environment)
		err = store.CreateDocument(ctx, warehouse.Document{Kind: Kind, Scope: scope, ID: id, Body: body})
		if err != nil && !errors.Is(err, warehouse.ErrConflict) {
			return fmt.Errorf("judge queue: keep the work of %s on span %s: %w", w.Slug, it.SpanID, err)
		}
	}
	return nil
}

// scopeOf is the document scope of an environment's work (never empty).
func scopeOf(env string) string {
	if env == "" {
		return "-"
	}
	return env
}

// Backlog is an environment's queued work.
type Backlog struct {
	// Items counts the queued items, up to MaxCounted.
	Items int64
	// Oldest is when the oldest item was queued (zero: none).
	Oldest time.Time
	// Retrying counts the items that failed at least once.
	Retrying int64
}

// MaxCounted bounds how many items Pending reads.
const MaxCounted = 10 * warehouse.MaxDocumentPage

// Pending returns the environment's queued work.
func Pending(ctx context.Context, store warehouse.DocumentStore, env string) (Backlog, error) {
	var b Backlog
	q := warehouse.DocumentQuery{Kind: Kind, Scope: scopeOf(env)}
	for b.Items < MaxCounted {
		docs, err := store.ListDocuments(ctx, q)
		if err != nil {
			return b, fmt.Errorf("judge queue: list: %w", err)
		}
		for _, d := range docs {
			var it Item
			if err := json.Unmarshal(d.Body, &it); err != nil {
				continue
			}
			b.Items++
			if b.Oldest.IsZero() || it.EnqueuedAt.Before(b.Oldest) {
				b.Oldest = it.EnqueuedAt
			}
			if it.Attempts > 0 {
				b.Retrying++
			}
		}
		if len(docs) < warehouse.MaxDocumentPage {
			break
		}
		q.AfterSeq = docs[len(docs)-1].Seq
	}
	return b, nil
}
