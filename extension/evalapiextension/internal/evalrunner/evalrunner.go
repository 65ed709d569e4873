// Package evalrunner runs an evaluator by its slug for experiments: a
// prebuilt one offline, a prebuilt one through an LLM judge, or a custom
// one of the tenant's project.
package evalrunner

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/evalcol/evalcol/evaluators"
	"github.com/evalcol/evalcol/extension/evalapiextension/internal/customevaluators"
	"github.com/evalcol/evalcol/extension/evalapiextension/internal/experimentapi"
	"github.com/evalcol/evalcol/extension/evalapiextension/internal/judgequeue"
	"github.com/evalcol/evalcol/internal/tenant"
	"github.com/evalcol/evalcol/internal/warehouse"
)

// New returns the runner of experiments' evaluators: a prebuilt
// evaluator (through an LLM judge when its config has judge: {provider,
// model}), else a custom one of the tenant.
func New(custom *customevaluators.API, judges customevaluators.Judge) experimentapi.Runner {
	return func(ctx context.Context, t tenant.Tenant, slug string, input, config map[string]any) (experimentapi.Result, error) {
		if def, ok := evaluators.Lookup(slug); ok && config["judge"] != nil {
			return runJudged(ctx, judges, def, input, config)
		}
		if res, ok, err := experimentapi.RunPrebuilt(ctx, slug, input, config); ok {
			return res, err
		}
		res, v, err := custom.Run(ctx, t, slug, input)
		if errors.Is(err, warehouse.ErrNotFound) {
			return experimentapi.Result{}, fmt.Errorf("unknown evaluator %q", slug)
		}
		if err != nil {
			return experimentapi.Result{}, err
		}
		out := experimentapi.Result{Output: res.Output, Score: res.Verdict.Score, Version: strconv.FormatInt(v.Version, 10)}
		if res.Verdict.Passed != nil {
			out.Verdict = map[bool]string{true: "pass", false: "fail"}[*res.Verdict.Passed]
		}
		return out, nil
	}
}

// runJudged runs the prebuilt evaluator def through the LLM judge its
// config names (config.judge: {provider, model}); the answer has the
// evaluator's output fields and its catalogue entry decides the verdict.
func runJudged(ctx context.Context, judges customevaluators.Judge, def *evaluators.Definition, input, config map[string]any) (experimentapi.Result, error) {
	ref, _ := config["judge"].(map[string]any)
	provider, _ := ref["provider"].(string)
	model, _ := ref["model"].(string)
	if provider == "" || model == "" || len(ref) != 2 {
		return experimentapi.Result{}, fmt.Errorf("config.judge: give exactly a provider (one of %s) and a model", strings.Join(judges.Providers(), ", "))
	}
	if !judges.Has(provider) {
		return experimentapi.Result{}, fmt.Errorf("config.judge.provider: %q is not a judge provider of this collector (configured: %s)", provider, strings.Join(judges.Providers(), ", "))
	}
	res, err := judges.Run(ctx, judgequeue.PrebuiltSpec(def, provider, model, input), input)
	if err != nil {
		return experimentapi.Result{}, err
	}
	verdict, value, _ := judgequeue.PrebuiltVerdict(def, res.Output)
	return experimentapi.Result{Output: res.Output, Verdict: verdict, Score: &value}, nil
}
