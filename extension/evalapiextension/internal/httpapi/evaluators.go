package httpapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"time"

	"go.uber.org/zap"

	"github.com/evalcol/evalcol/evaluators"
	"github.com/evalcol/evalcol/internal/tenant"
)

// executeRequest is the evaluator request envelope.
type executeRequest struct {
	Input  json.RawMessage `json:"input"`
	Config json.RawMessage `json:"config"`
}

// guardrailResponse is the answer of /v2/guardrails/<slug>/execute.
type guardrailResponse struct {
	Result evaluators.Result `json:"result"`
	Pass   bool              `json:"pass"`
	// Explanation is answered to explain=true only (null when the
	// evaluator has nothing to add, e.g. a detector that found nothing).
	Explanation *evaluators.Explanation `json:"explanation,omitempty"`
}

// explanationField is the key of the explanation in the flat answer of
// the execute endpoints to explain=true; no evaluator output is named so.
const explanationField = "explanation"

// explainParam reads the explain query parameter: true asks for each
// result's explanation beside the spec's output.
func explainParam(r *http.Request) (bool, error) {
	v := r.URL.Query().Get("explain")
	if v == "" {
		return false, nil
	}
	b, err := strconv.ParseBool(v)
	if err != nil {
		return false, fmt.Errorf("explain must be true or false, got %q", v)
	}
	return b, nil
}

func (a *API) execute(guardrail bool) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		slug := executeSlug(r)
		if slug == "" {
			writeError(w, http.StatusNotFound, "no such endpoint: "+r.Method+" "+r.URL.Path)
			return
		}
		def, ok := evaluators.Lookup(slug)
		if !ok && a.opts.CustomEvaluators != nil {
			a.opts.CustomEvaluators.Execute(w, r, slug, guardrail)
			return
		}
		if !ok {
			writeError(w, http.StatusNotFound, fmt.Sprintf("unknown evaluator %q", slug))
			return
		}
		explain, err := explainParam(r)
		if err != nil {
			writeError(w, http.StatusBadRequest, err.Error())
			return
		}
		body, ok := readBody(w, r)
		if !ok {
			return
		}
		if a.limiter != nil {
			release, lerr := a.limiter.acquire(r.Context(), KeyFingerprint(tenant.SecretFromAuthorization(r.Header.Get("Authorization"))))
			if lerr != nil {
				writeLimitError(w, lerr)
				return
			}
			start := time.Now()
			defer func() { release(time.Since(start)) }()
		}
		var env executeRequest
		if err := decodeObject(body, &env); err != nil {
			writeError(w, http.StatusBadRequest, err.Error())
			return
		}
		input, err := decodeField(env.Input, "input", true)
		if err != nil {
			writeError(w, http.StatusBadRequest, err.Error())
			return
		}
		config, err := decodeField(env.Config, "config", false)
		if err != nil {
			writeError(w, http.StatusBadRequest, err.Error())
			return
		}
		req, err := def.NewRequest(input, config)
		if err == nil {
			var res evaluators.Result
			res, err = a.opts.RunEvaluator(r.Context(), def, req)
			if err == nil {
				var expl *evaluators.Explanation
				if explain {
					expl = def.Explain(r.Context(), req, res)
				}
				switch {
				case guardrail:
					writeJSON(w, http.StatusOK, guardrailResponse{Result: def.GuardrailResult(res), Pass: def.Pass(res), Explanation: expl})
				case explain:
					out := make(map[string]any, len(res)+1)
					for k, v := range res {
						out[k] = v
					}
					out[explanationField] = expl
					writeJSON(w, http.StatusOK, out)
				default:
					writeJSON(w, http.StatusOK, res)
				}
				return
			}
		}
		a.writeEvalError(w, slug, err)
	}
}

// executeSlug returns the evaluator slug of an execute path:
// /v2/guardrails/<slug>/execute, /v2/evaluators/execute/<slug> or
// /v2/evaluators/<slug>/execute ("" for another path).
func executeSlug(r *http.Request) string {
	if slug := r.PathValue("slug"); slug != "" {
		return slug
	}
	first, second := r.PathValue("first"), r.PathValue("second")
	switch {
	case first == "execute":
		return second
	case second == "execute":
		return first
	}
	return ""
}

// decodeField decodes an optional JSON object field of the envelope.
func decodeField(raw json.RawMessage, name string, required bool) (map[string]any, error) {
	if len(raw) == 0 || string(raw) == "null" {
		if required {
			return nil, fmt.Errorf("%s is required: send {\"%s\": {...}}", name, name)
		}
		return nil, nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil || m == nil {
		return nil, fmt.Errorf("%s must be a JSON object", name)
	}
	for k, v := range m {
		f, err := finiteNumbers(v, name+"."+k)
		if err != nil {
			return nil, err
		}
		m[k] = f
	}
	return m, nil
}

// finiteNumbers replaces the json.Number values in v (decoded with
// UseNumber) by float64, as json.Unmarshal would, and names the field of a
// number no float64 holds (1e999) instead of failing the whole object.
func finiteNumbers(v any, path string) (any, error) {
	switch t := v.(type) {
	case json.Number:
		f, err := strconv.ParseFloat(string(t), 64)
		if err != nil || math.IsInf(f, 0) {
			return nil, fmt.Errorf("%s: %s is out of range: numbers must be finite 64-bit floats (magnitude below 1.8e308)", path, t)
		}
		return f, nil
	case map[string]any:
		for k, e := range t {
			f, err := finiteNumbers(e, path+"."+k)
			if err != nil {
				return nil, err
			}
			t[k] = f
		}
	case []any:
		for i, e := range t {
			f, err := finiteNumbers(e, path+"["+strconv.Itoa(i)+"]")
			if err != nil {
				return nil, err
			}
			t[i] = f
		}
	}
	return v, nil
}

func (a *API) writeEvalError(w http.ResponseWriter, slug string, err error) {
	status := http.StatusInternalServerError
	var e *evaluators.Error
	if asEvalError(err, &e) {
		status = e.HTTPStatus()
	}
	if status >= 500 {
		a.opts.Logger.Error("evaluator failed", zap.String("evaluator", slug), zap.Error(err))
		writeError(w, status, "internal error")
		return
	}
	// The whole message: a pattern's compile error says what is wrong.
	writeError(w, status, e.Error())
}

// evaluatorInfo is one prebuilt entry of GET /v2/evaluators.
type evaluatorInfo struct {
	*evaluators.Definition
	Source string   `json:"source"`
	Paths  []string `json:"paths"`
}
