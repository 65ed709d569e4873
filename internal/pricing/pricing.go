// Package pricing prices LLM tokens per model: a table of list prices
// shipped as data (prices.yaml, USD per million input and output tokens,
// dated per vendor) that an operator extends or overrides, and the
// matching of the model names spans report to its entries.
package pricing

import (
	"bytes"
	_ "embed"
	"errors"
	"fmt"
	"math"
	"regexp"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"
)

//go:embed prices.yaml
var defaultPrices []byte

// Price is a model's list price in USD per million tokens.
type Price struct {
	InputPerMillion  float64
	OutputPerMillion float64
}

// Validate checks that both prices are finite and not negative; the
// error names the field (input_per_million or output_per_million).
func (p Price) Validate() error {
	var errs []error
	for _, f := range []struct {
		name string
		v    float64
	}{{"input_per_million", p.InputPerMillion}, {"output_per_million", p.OutputPerMillion}} {
		switch {
		case math.IsNaN(f.v) || math.IsInf(f.v, 0):
			errs = append(errs, fmt.Errorf("%s: must be a finite number", f.name))
		case f.v < 0:
			errs = append(errs, fmt.Errorf("%s: must not be negative, got %g", f.name, f.v))
		}
	}
	return errors.Join(errs...)
}

// Cost is the price of in input and out output tokens.
func (p Price) Cost(in, out int64) float64 {
	return (float64(in)*p.InputPerMillion + float64(out)*p.OutputPerMillion) / 1e6
}

// Table maps model names (lower case) to prices. A Table is immutable
// once built; the zero value prices nothing.
type Table struct {
	models map[string]Price
}

// file is the form of prices.yaml.
type file struct {
	Vendors map[string]struct {
		Read   string `yaml:"read"`
		Models map[string]struct {
			Input  float64 `yaml:"input"`
			Output float64 `yaml:"output"`
		} `yaml:"models"`
	} `yaml:"vendors"`
}

// Default returns the shipped table (prices.yaml).
func Default() (*Table, error) { return parse(defaultPrices) }

// parse reads a table in the form of prices.yaml; unknown fields and
// invalid prices are errors.
func parse(b []byte) (*Table, error) {
	var f file
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("pricing: %w", err)
	}
	t := &Table{models: map[string]Price{}}
	for vendor, v := range f.Vendors {
		if v.Read == "" {
			return nil, fmt.Errorf("pricing: vendor %s: no read date", vendor)
		}
		for name, m := range v.Models {
			p := Price{InputPerMillion: m.Input, OutputPerMillion: m.Output}
			if err := p.Validate(); err != nil {
				return nil, fmt.Errorf("pricing: %s: %s: %w", vendor, name, err)
			}
			t.models[strings.ToLower(name)] = p
		}
	}
	return t, nil
}

// With returns a table of t's prices and the overrides (which replace
// t's price of the same name, compared case-insensitively). It does not
// validate them: see ValidateModels.
func (t *Table) With(overrides map[string]Price) *Table {
	out := &Table{models: make(map[string]Price, t.Len()+len(overrides))}
	if t != nil {
		for k, p := range t.models {
			out.models[k] = p
		}
	}
	for k, p := range overrides {
		out.models[strings.ToLower(k)] = p
	}
	return out
}

// ValidateModels checks operator prices: a name, valid prices; errors
// name the model and the field.
func ValidateModels(models map[string]Price) error {
	names := make([]string, 0, len(models))
	for k := range models {
		names = append(names, k)
	}
	sort.Strings(names)
	var errs []error
	for _, k := range names {
		if strings.TrimSpace(k) == "" {
			errs = append(errs, errors.New("a model name must not be empty"))
			continue
		}
		if err := models[k].Validate(); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", k, err))
		}
	}
	return errors.Join(errs...)
}

// Len is the number of priced names.
func (t *Table) Len() int {
	if t == nil {
		return 0
	}
	return len(t.models)
}

// datedSuffix matches a release date or version stamp at the end of a
// model name: -2024-08-06, -20241022, -0613, -2411, @20241022, -v1:0 after
// a date.
var datedSuffix = regexp.MustCompile(`[-@](\d{4}-\d{2}-\d{2}|\d{8}|\d{4})(-v\d+(:\d+)?)?$`)

// Lookup returns the price of model: its exact name, else the name
// without a dated suffix (gpt-4o-2024-08-06 → gpt-4o), else without a
// provider prefix (openai/gpt-4o, models/gemini-2.5-pro, both rules
// together); ok is false for an unknown model.
func (t *Table) Lookup(model string) (p Price, ok bool) {
	if t == nil || model == "" {
		return p, false
	}
	name := strings.ToLower(strings.TrimSpace(model))
	for range 2 {
		if p, ok = t.models[name]; ok {
			return p, true
		}
		if undated := datedSuffix.ReplaceAllString(name, ""); undated != name {
			if p, ok = t.models[undated]; ok {
				return p, true
			}
		}
		i := strings.LastIndexByte(name, '/')
		if i < 0 {
			break
		}
		name = name[i+1:]
	}
	return p, false
}

// Cost prices in input and out output tokens of model; ok is false when
// the model is unknown (no cost, rather than a wrong one).
func (t *Table) Cost(model string, in, out int64) (cost float64, ok bool) {
	p, ok := t.Lookup(model)
	if !ok {
		return 0, false
	}
	return p.Cost(in, out), true
}
