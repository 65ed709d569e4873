package console

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"sort"
	"strconv"
	"time"

	"go.uber.org/zap"

	"github.com/evalcol/evalcol/evaluators"
	"github.com/evalcol/evalcol/extension/evalapiextension/internal/customevaluators"
	"github.com/evalcol/evalcol/internal/judge"
	"github.com/evalcol/evalcol/internal/tenant"
	"github.com/evalcol/evalcol/internal/warehouse"
)

// JudgeRunner runs a tenant's custom evaluators (customevaluators.API):
// the playground of an LLM judge.
type JudgeRunner interface {
	JudgeLister
	Resolve(ctx context.Context, t tenant.Tenant, ref string) (customevaluators.Version, error)
	Run(ctx context.Context, t tenant.Tenant, ref string, input map[string]any) (judge.Result, customevaluators.Version, error)
}

// customPlayground is the playground's form of a custom evaluator: its
// input schema as text fields (numbers and booleans are typed when sent).
func customPlayground(v customevaluators.Version) *evaluators.Definition {
	def := &evaluators.Definition{Slug: v.Slug, Category: evaluators.Category("LLM judge (custom evaluator, version " + strconv.FormatInt(v.Version, 10) + ")"),
		Description: v.Definition.Description, PassDoc: "the judge answers passed (or pass) true"}
	if def.Description == "" {
		def.Description = v.Definition.Name
	}
	for _, f := range v.Definition.InputSchema {
		def.Inputs = append(def.Inputs, evaluators.Field{Name: f.Name, Type: evaluators.TypeString, Description: f.Description})
	}
	return def
}

// customEvaluator resolves the slug of a playground request among the
// session's project's custom evaluators; ok false when it answered.
func (c *Console) customEvaluator(w http.ResponseWriter, r *http.Request) (customevaluators.Version, bool) {
	slug := r.PathValue("slug")
	if c.opts.Judges == nil {
		c.renderError(w, r, http.StatusNotFound, "Unknown evaluator", "There is no evaluator "+quote(slug)+" in the catalogue.")
		return customevaluators.Version{}, false
	}
	t, _ := tenant.FromContext(r.Context())
	v, err := c.opts.Judges.Resolve(r.Context(), t, slug)
	switch {
	case errors.Is(err, warehouse.ErrNotFound):
		c.renderError(w, r, http.StatusNotFound, "Unknown evaluator", "There is no evaluator "+quote(slug)+" in the catalogue, nor a custom evaluator of this project.")
		return v, false
	case err != nil:
		c.unavailable(w, r, err)
		return v, false
	}
	return v, true
}

// runJudgePlayground runs a custom evaluator on the form's input.
func (c *Console) runJudgePlayground(w http.ResponseWriter, r *http.Request) {
	v, ok := c.customEvaluator(w, r)
	if !ok {
		return
	}
	def := customPlayground(v)
	values := map[string]string{}
	input := map[string]any{}
	for _, f := range v.Definition.InputSchema {
		key := "input." + f.Name
		s := r.PostFormValue(key)
		values[key] = s
		if s != "" {
			input[f.Name] = judge.ParseValue(f.Type, s)
		}
	}
	data := playgroundData{Def: def}
	status := http.StatusOK
	t, _ := tenant.FromContext(r.Context())
	start := time.Now()
	res, ran, err := c.opts.Judges.Run(r.Context(), t, v.Slug, input)
	if err != nil {
		status = http.StatusBadGateway
		if je, ok := judge.AsError(err); ok {
			if je.Kind == judge.KindInput {
				status = http.StatusBadRequest
			}
			data.Error = "The judge did not answer a verdict: " + je.Error()
		} else {
			c.opts.Logger.Error("console playground: custom evaluator failed", zap.String("evaluator", v.Slug), zap.Error(err))
			data.Error = "The evaluator failed (internal error); the collector's log has the details."
			status = http.StatusInternalServerError
		}
	} else {
		data.Result = judgeRunResult(res, ran, time.Since(start))
	}
	data.Inputs, data.Config = formFields(def, values, nil)
	c.render(w, r, status, "playground", page{Title: v.Slug + " playground", Nav: "evaluators", Data: data})
}

// judgeRunResult is a judge's answer as the playground shows it, with the
// model, version and tokens as the explanation.
func judgeRunResult(res judge.Result, v customevaluators.Version, elapsed time.Duration) *runResult {
	out := &runResult{Elapsed: formatElapsed(elapsed), Score: "none"}
	if res.Verdict.Passed != nil {
		out.Verdict = evaluators.VerdictFail
		if *res.Verdict.Passed {
			out.Verdict = evaluators.VerdictPass
		}
	}
	if res.Verdict.Score != nil {
		out.Score = formatScore(*res.Verdict.Score)
	}
	keys := make([]string, 0, len(res.Output))
	for k := range res.Output {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		out.Fields = append(out.Fields, resultField{Name: k, Value: valueText(res.Output[k])})
	}
	b, _ := json.MarshalIndent(res.Output, "", "  ")
	out.JSON = string(b)
	out.Explanation = &evaluators.Explanation{Summary: "judged by " + v.Definition.Model + " (provider " + v.Definition.Provider + "), version " +
		strconv.FormatInt(v.Version, 10) + ", " + res.Mode + " mode: " + strconv.FormatInt(res.Usage.InputTokens, 10) + " input and " +
		strconv.FormatInt(res.Usage.OutputTokens, 10) + " output tokens"}
	return out
}
