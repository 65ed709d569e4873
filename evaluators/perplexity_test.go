package evaluators

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"
)

func TestPerplexity(t *testing.T) {
	tests := []struct {
		name, logprobs string
		want           float64
	}{
		{"two minus ones give e", `[-1,-1]`, math.E},
		{"certain model", `[0, 0, 0]`, 1},
		{"negative zero", `[-0.0]`, 1},
		{"single value", `[-0.5]`, 1.6487212707001282},
		{"token objects", `[{"token":"a","logprob":-1},{"token":"b","logprob":-3}]`, 7.38905609893065},
		{"mixed numbers and objects", `[-1, {"token":"x","logprob":-3}]`, 7.38905609893065},
		{"extra object fields", `[{"token":"a","logprob":-1,"bytes":[97],"top_logprobs":[]}]`, math.E},
		{"white space around", " \n[ -1 , -1 ]\t", math.E},
		{"exponent notation", `[-1e0, -10e-1]`, math.E},
		{"large but finite", `[-700]`, 1.0142320547350045e304},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := evaluateOK(t, "perplexity", map[string]any{"logprobs": tt.logprobs}, nil)
			got, ok := res["perplexity_score"].(float64)
			if !ok || math.Abs(got-tt.want) > 1e-12*tt.want {
				t.Errorf("perplexity_score = %v, want %v", res["perplexity_score"], tt.want)
			}
		})
	}
}

func TestPerplexityInvalid(t *testing.T) {
	const notArray = `input.logprobs must be a JSON array of numbers or of {"token", "logprob"} objects serialized into a string`
	const notNumber0 = `input.logprobs[0] must be a number or an object with a numeric "logprob"`
	tests := []struct {
		name  string
		input map[string]any
		want  string
	}{
		{"missing", map[string]any{}, "input.logprobs is required"},
		{"a JSON array instead of a string", map[string]any{"logprobs": []any{-1.0}}, "input.logprobs must be a string, got array"},
		{"not JSON", map[string]any{"logprobs": "minus one"}, notArray},
		{"empty string", map[string]any{"logprobs": ""}, notArray},
		{"JSON null", map[string]any{"logprobs": "null"}, notArray},
		{"JSON object", map[string]any{"logprobs": `{"logprob": -1}`}, notArray},
		{"JSON number", map[string]any{"logprobs": `-1`}, notArray},
		{"NaN literal", map[string]any{"logprobs": `[-1, NaN]`}, notArray},
		{"Infinity literal", map[string]any{"logprobs": `[-Infinity]`}, notArray},
		{"empty array", map[string]any{"logprobs": `[]`}, "input.logprobs must not be an empty array"},
		{"null element", map[string]any{"logprobs": `[null]`}, notNumber0},
		{"string element", map[string]any{"logprobs": `["-1"]`}, notNumber0},
		{"NaN string", map[string]any{"logprobs": `["NaN"]`}, notNumber0},
		{"boolean element", map[string]any{"logprobs": `[true]`}, notNumber0},
		{"nested array", map[string]any{"logprobs": `[[-1]]`}, notNumber0},
		{"object without logprob", map[string]any{"logprobs": `[{"token":"a"}]`}, notNumber0},
		{"object with null logprob", map[string]any{"logprobs": `[{"token":"a","logprob":null}]`}, notNumber0},
		{"object with string logprob", map[string]any{"logprobs": `[{"token":"a","logprob":"-1"}]`}, notNumber0},
		{"bad second element", map[string]any{"logprobs": `[-1, "x"]`}, `input.logprobs[1] must be a number or an object with a numeric "logprob"`},
		{"number beyond float64", map[string]any{"logprobs": `[-1e999]`}, notNumber0},
		{"positive log probability", map[string]any{"logprobs": `[-1, 0.5]`}, "input.logprobs[1] is 0.5, but a log probability is at most 0"},
		{"overflow", map[string]any{"logprobs": `[-1000]`}, "input.logprobs: perplexity overflows a float64 (mean log probability -1000)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := Evaluate(context.Background(), "perplexity", tt.input, nil)
			if err == nil {
				t.Fatalf("Evaluate = %v, want an error", res)
			}
			checkInvalidInput(t, err, "input.logprobs", tt.want)
		})
	}
}

func BenchmarkPerplexity(b *testing.B) {
	lps := make([]string, 200)
	for i := range lps {
		lps[i] = fmt.Sprintf("%.4f", -0.01*float64(i%97)-0.001)
	}
	input := map[string]any{"logprobs": "[" + strings.Join(lps, ",") + "]"}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Evaluate(context.Background(), "perplexity", input, nil); err != nil {
			b.Fatal(err)
		}
	}
}

func TestParseNumberArrayMatchesJSON(t *testing.T) {
	// The fast path accepts exactly what encoding/json accepts as an array
	// of numbers, with the same values; everything else falls back.
	for _, s := range []string{
		`[-1,-2.5]`, ` [ -0.5 , -1e-3 ,-2E+1 ] `, `[]`, `[0]`, `[-0]`, "[\n-1\t]",
		`[01]`, `[-]`, `[1.]`, `[.5]`, `[1e]`, `[+1]`, `[1,]`, `[,1]`, `[1 2]`, `[NaN]`, `[Infinity]`, `[0x10]`, `[1_0]`,
		`[null]`, `[{"logprob":-1}]`, `["-1"]`, `[1e999]`, `[[1]]`, `1`, `[1`,
	} {
		got, ok := parseNumberArray(s)
		var want []float64
		err := json.Unmarshal([]byte(s), &want)
		jsonOK := err == nil && want != nil && !strings.Contains(s, "null")
		if ok != jsonOK {
			t.Errorf("%q: fast path ok=%v, encoding/json ok=%v (%v)", s, ok, jsonOK, err)
			continue
		}
		if ok && fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%q: fast path %v, encoding/json %v", s, got, want)
		}
	}
}
