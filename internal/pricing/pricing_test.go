package pricing

import (
	"math"
	"strings"
	"testing"
)

func TestLookup(t *testing.T) {
	tab, err := Default()
	if err != nil {
		t.Fatalf("Default: %v", err)
	}
	if tab.Len() < 40 {
		t.Fatalf("the shipped table prices %d models, want the common ones of five vendors", tab.Len())
	}
	for _, tc := range []struct {
		name, model string
		want        Price
		ok          bool
	}{
		{"exact", "gpt-4o", Price{2.50, 10.00}, true},
		{"case", "GPT-4o-Mini", Price{0.15, 0.60}, true},
		{"dated suffix", "gpt-4o-2024-08-06", Price{2.50, 10.00}, true},
		{"compact date", "claude-3-5-haiku-20241022", Price{0.80, 4.00}, true},
		{"four-digit stamp", "gpt-4-turbo-0125", Price{10.00, 30.00}, true},
		{"provider prefix", "openai/gpt-4o", Price{2.50, 10.00}, true},
		{"prefix and date", "anthropic/claude-sonnet-4-20250514", Price{3.00, 15.00}, true},
		{"google resource name", "models/gemini-2.5-flash", Price{0.30, 2.50}, true},
		{"hosted llama", "meta-llama/Llama-3.3-70B-Instruct-Turbo", Price{0.88, 0.88}, true},
		{"mistral alias", "mistral-large-latest", Price{2.00, 6.00}, true},
		{"a longer name is another model", "gpt-4o-mini-2024-07-18", Price{0.15, 0.60}, true},
		{"unknown", "my-finetune", Price{}, false},
		{"empty", "", Price{}, false},
		{"a date alone is not stripped into a known name", "gpt-2024-08-06", Price{}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := tab.Lookup(tc.model)
			if ok != tc.ok || got != tc.want {
				t.Errorf("Lookup(%q) = %+v, %v; want %+v, %v", tc.model, got, ok, tc.want, tc.ok)
			}
		})
	}
}

func TestCostAndOverride(t *testing.T) {
	tab, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	// 1000 input and 500 output tokens of gpt-4o: 0.0025 + 0.005.
	if c, ok := tab.Cost("gpt-4o-2024-08-06", 1000, 500); !ok || math.Abs(c-0.0075) > 1e-12 {
		t.Errorf("Cost = %v, %v; want 0.0075", c, ok)
	}
	if c, ok := tab.Cost("my-model", 1000, 500); ok || c != 0 {
		t.Errorf("an unknown model costs %v, %v; want no cost", c, ok)
	}
	over := tab.With(map[string]Price{"My-Model": {0.5, 1.5}, "gpt-4o": {1, 2}})
	if c, ok := over.Cost("my-model", 2_000_000, 1_000_000); !ok || c != 2.5 {
		t.Errorf("an added model costs %v, %v; want 2.5", c, ok)
	}
	if p, _ := over.Lookup("openai/gpt-4o-2024-08-06"); p != (Price{1, 2}) {
		t.Errorf("an overridden model (prefixed, dated) is priced %+v, want the override", p)
	}
	if p, _ := tab.Lookup("gpt-4o"); p != (Price{2.50, 10.00}) {
		t.Errorf("With changed the table it extends: %+v", p)
	}
	var none *Table
	if _, ok := none.Cost("gpt-4o", 1, 1); ok {
		t.Error("a nil table prices a model")
	}
}

func TestValidateModels(t *testing.T) {
	if err := ValidateModels(map[string]Price{"a": {0, 0}, "b": {0.5, 1.5}}); err != nil {
		t.Errorf("valid prices: %v", err)
	}
	for _, tc := range []struct {
		name   string
		models map[string]Price
		want   string
	}{
		{"negative input", map[string]Price{"m": {-1, 1}}, "m: input_per_million: must not be negative, got -1"},
		{"negative output", map[string]Price{"m": {1, -0.5}}, "m: output_per_million: must not be negative, got -0.5"},
		{"not a number", map[string]Price{"m": {math.NaN(), 1}}, "m: input_per_million: must be a finite number"},
		{"empty name", map[string]Price{" ": {1, 1}}, "a model name must not be empty"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := ValidateModels(tc.models)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("ValidateModels = %v, want %q", err, tc.want)
			}
		})
	}
}

func TestParseRejects(t *testing.T) {
	for _, tc := range []struct{ name, yaml, want string }{
		{"unknown field", "vendors: {x: {read: '2026-01-01', models: {m: {input: 1, output: 1, cached: 2}}}}", "field cached not found"},
		{"negative", "vendors: {x: {read: '2026-01-01', models: {m: {input: -1, output: 1}}}}", "x: m: input_per_million: must not be negative"},
		{"no date", "vendors: {x: {models: {m: {input: 1, output: 1}}}}", "vendor x: no read date"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := parse([]byte(tc.yaml))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("parse = %v, want %q", err, tc.want)
			}
		})
	}
}
