package evalapiextension

import (
	"context"
	"fmt"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"

	"github.com/evalcol/evalcol/extension/evalapiextension/internal/customevaluators"
	"github.com/evalcol/evalcol/extension/evalapiextension/internal/metadata"
	"github.com/evalcol/evalcol/internal/judge"
)

// Names of the judge's metrics (declared in metadata.yaml).
const (
	MetricJudgeCalls  = "otelcol_extension_evalapi_judge_calls"
	MetricJudgeTokens = "otelcol_extension_evalapi_judge_tokens"
)

// meteredJudge counts the calls of custom evaluators to their judge, by
// provider, model and outcome, and the tokens they used (issue 33: judge
// calls, tokens and errors beside the evaluation metrics).
type meteredJudge struct {
	customevaluators.Judge
	calls  metric.Int64Counter
	tokens metric.Int64Counter
}

func newMeteredJudge(mp metric.MeterProvider, inner customevaluators.Judge) (*meteredJudge, error) {
	meter := mp.Meter(metadata.ScopeName)
	calls, err := meter.Int64Counter(MetricJudgeCalls,
		metric.WithDescription("Calls of custom evaluators to their LLM judge, by provider, model and outcome (ok or error)."),
		metric.WithUnit("{call}"))
	if err != nil {
		return nil, fmt.Errorf("creating %s: %w", MetricJudgeCalls, err)
	}
	tokens, err := meter.Int64Counter(MetricJudgeTokens,
		metric.WithDescription("Tokens the LLM judge counted for custom evaluators, by provider, model and kind (input or output)."),
		metric.WithUnit("{token}"))
	if err != nil {
		return nil, fmt.Errorf("creating %s: %w", MetricJudgeTokens, err)
	}
	return &meteredJudge{Judge: inner, calls: calls, tokens: tokens}, nil
}

// Run calls the judge and records the call.
func (m *meteredJudge) Run(ctx context.Context, spec judge.Spec, input map[string]any) (judge.Result, error) {
	res, err := m.Judge.Run(ctx, spec, input)
	outcome := "ok"
	if err != nil {
		outcome = "error"
	}
	who := []attribute.KeyValue{attribute.String("provider", spec.Provider), attribute.String("model", spec.Model)}
	// The measurement outlives a cancelled request: the call was made.
	bg := context.WithoutCancel(ctx)
	m.calls.Add(bg, 1, metric.WithAttributes(append(who, attribute.String("outcome", outcome))...))
	if res.Usage.InputTokens > 0 {
		m.tokens.Add(bg, res.Usage.InputTokens, metric.WithAttributes(append(who, attribute.String("kind", "input"))...))
	}
	if res.Usage.OutputTokens > 0 {
		m.tokens.Add(bg, res.Usage.OutputTokens, metric.WithAttributes(append(who, attribute.String("kind", "output"))...))
	}
	return res, err
}
