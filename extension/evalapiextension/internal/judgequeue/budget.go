package judgequeue

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/evalcol/evalcol/evaluators"
	"github.com/evalcol/evalcol/internal/judge"
	"github.com/evalcol/evalcol/internal/warehouse"
)

// UsageKind is the document kind of an environment's judge usage of one
// UTC day (id YYYY-MM-DD, scope the environment).
const UsageKind = "judge_usage"

// Budget caps an environment's online judging per UTC day (0: no limit).
type Budget struct {
	DailyCalls  int64
	DailyTokens int64
}

// Usage is an environment's online judging of one day.
type Usage struct {
	Day          string                    `json:"day"`
	Calls        int64                     `json:"calls"`
	InputTokens  int64                     `json:"input_tokens"`
	OutputTokens int64                     `json:"output_tokens"`
	ByEvaluator  map[string]EvaluatorUsage `json:"by_evaluator,omitempty"`
}

// Tokens is the day's input and output tokens together.
func (u Usage) Tokens() int64 { return u.InputTokens + u.OutputTokens }

// EvaluatorUsage is one evaluator's share of a day's usage, also by the
// judge model it called (so that a price per token gives its cost).
type EvaluatorUsage struct {
	Calls        int64                 `json:"calls"`
	InputTokens  int64                 `json:"input_tokens"`
	OutputTokens int64                 `json:"output_tokens"`
	ByModel      map[string]ModelUsage `json:"by_model,omitempty"`
}

// ModelUsage is the calls and tokens of one judge model.
type ModelUsage struct {
	Calls        int64 `json:"calls"`
	InputTokens  int64 `json:"input_tokens"`
	OutputTokens int64 `json:"output_tokens"`
}

func dayOf(t time.Time) string { return t.UTC().Format(time.DateOnly) }

// DayUsage returns an environment's usage of the day of at (zero when
// nothing was spent).
func DayUsage(ctx context.Context, store warehouse.DocumentStore, env string, at time.Time) (Usage, error) {
	u, _, err := readUsage(ctx, store, env, dayOf(at))
	return u, err
}

func readUsage(ctx context.Context, store warehouse.DocumentStore, env, day string) (Usage, warehouse.Document, error) {
	d, err := store.GetDocument(ctx, UsageKind, scopeOf(env), day)
	if errors.Is(err, warehouse.ErrNotFound) {
		return Usage{Day: day}, warehouse.Document{}, nil
	}
	if err != nil {
		return Usage{}, d, fmt.Errorf("judge usage: read: %w", err)
	}
	var u Usage
	if err := json.Unmarshal(d.Body, &u); err != nil {
		return Usage{}, d, fmt.Errorf("judge usage: decode: %w", err)
	}
	return u, d, nil
}

// exceeded reports whether env's budget of the day of now is spent, and
// why.
func (b Budget) exceeded(ctx context.Context, store warehouse.DocumentStore, env string, now time.Time) (string, bool, error) {
	if b.DailyCalls <= 0 && b.DailyTokens <= 0 {
		return "", false, nil
	}
	u, err := DayUsage(ctx, store, env, now)
	if err != nil {
		return "", false, err
	}
	switch {
	case b.DailyCalls > 0 && u.Calls >= b.DailyCalls:
		return fmt.Sprintf("the environment's daily judge budget is spent: %d of %d calls on %s (UTC); judging resumes tomorrow", u.Calls, b.DailyCalls, u.Day), true, nil
	case b.DailyTokens > 0 && u.Tokens() >= b.DailyTokens:
		return fmt.Sprintf("the environment's daily judge budget is spent: %d of %d tokens on %s (UTC); judging resumes tomorrow", u.Tokens(), b.DailyTokens, u.Day), true, nil
	}
	return "", false, nil
}

// spend counts one call of slug to model and its tokens in env's usage of
// the day of at (compare-and-set, retried when another writer came first).
func (b Budget) spend(ctx context.Context, store warehouse.DocumentStore, env, slug, model string, usage judge.Usage, at time.Time) error {
	day := dayOf(at)
	for range 8 {
		u, d, err := readUsage(ctx, store, env, day)
		if err != nil {
			return err
		}
		u.Calls++
		u.InputTokens += usage.InputTokens
		u.OutputTokens += usage.OutputTokens
		if u.ByEvaluator == nil {
			u.ByEvaluator = map[string]EvaluatorUsage{}
		}
		e := u.ByEvaluator[slug]
		e.Calls++
		e.InputTokens += usage.InputTokens
		e.OutputTokens += usage.OutputTokens
		if e.ByModel == nil {
			e.ByModel = map[string]ModelUsage{}
		}
		m := e.ByModel[model]
		m.Calls, m.InputTokens, m.OutputTokens = m.Calls+1, m.InputTokens+usage.InputTokens, m.OutputTokens+usage.OutputTokens
		e.ByModel[model] = m
		u.ByEvaluator[slug] = e
		body, err := json.Marshal(u)
		if err != nil {
			return fmt.Errorf("judge usage: encode: %w", err)
		}
		if d.ID == "" {
			err = store.CreateDocument(ctx, warehouse.Document{Kind: UsageKind, Scope: scopeOf(env), ID: day, Body: body})
		} else {
			d.Body, d.Version = body, d.Version+1
			err = store.UpdateDocument(ctx, d)
		}
		if !errors.Is(err, warehouse.ErrConflict) {
			if err != nil {
				return fmt.Errorf("judge usage: write: %w", err)
			}
			return nil
		}
	}
	return errors.New("judge usage: too many concurrent writers")
}

// evaluation is the outcome as an evaluation of the item's monitor on its
// span: the judge's output and verdict, the first numeric output as the
// score, and an explanation naming the model, version and tokens.
func (o *Outcome) evaluation(it *Item) warehouse.Evaluation {
	e := warehouse.Evaluation{Name: it.Slug, MonitorID: it.MonitorID, Time: o.At.UnixMilli(), Output: o.Output, Verdict: o.Verdict}
	switch {
	case o.Score != nil:
		e.ScoreValue = *o.Score
	case o.Verdict == warehouse.VerdictPass:
		e.ScoreValue = 1
	}
	if o.Verdict != "" {
		e.ScoreLabel = o.Verdict
	}
	if o.ScoreLabel != "" {
		e.ScoreLabel = o.ScoreLabel
	}
	e.Explanation = o.Explanation
	if o.ErrorType != "" {
		e.Error = o.ErrorType + ": " + o.Error
		if o.ErrorType != ErrorSkipped {
			e.Verdict = warehouse.VerdictError
		}
	}
	if o.Model != "" {
		summary := fmt.Sprintf("judged by %s (provider %s), evaluator %s version %d: %d input and %d output tokens",
			o.Model, o.Provider, o.EvaluatorID, o.Version, o.InputTokens, o.OutputTokens)
		if o.EvaluatorID == "" {
			summary = fmt.Sprintf("judged by %s (provider %s) instead of the offline model: %d input and %d output tokens",
				o.Model, o.Provider, o.InputTokens, o.OutputTokens)
		}
		e.Explanation = &evaluators.Explanation{Summary: summary,
			Parts: map[string]float64{"version": float64(o.Version), "input_tokens": float64(o.InputTokens), "output_tokens": float64(o.OutputTokens)}}
	}
	return e
}
