package evaluatorprocessor

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"go.opentelemetry.io/collector/component"
	"go.uber.org/zap"

	"github.com/evalcol/evalcol/internal/monitor"
)

// Config is the configuration of the evaluator processor.
type Config struct {
	// Monitors are the static monitors.
	Monitors []MonitorConfig `mapstructure:"monitors"`
	// API is the id of the evalapi extension whose auto monitor setups
	// apply as well; unset means static monitors only.
	API *component.ID `mapstructure:"api"`
	// Workers bounds the evaluations that run at once (default GOMAXPROCS;
	// 0 means the default).
	Workers int `mapstructure:"workers"`
	// Timeout bounds one evaluation (default 2s).
	Timeout time.Duration `mapstructure:"timeout"`
	// MaxTextBytes truncates longer evaluator text inputs at a UTF-8
	// boundary (default 64 KiB).
	MaxTextBytes int `mapstructure:"max_text_bytes"`
	// GroundTruthAttribute is the span attribute that supplies the
	// ground_truth and reference inputs (default
	// gen_ai.evaluation.ground_truth).
	GroundTruthAttribute string `mapstructure:"ground_truth_attribute"`

	// prevent unkeyed literal initialization
	_ struct{}
}

// MonitorConfig is one static monitor.
type MonitorConfig struct {
	// Name identifies the monitor; it is the evalcol.monitor.id of its results.
	Name string `mapstructure:"name"`
	// Evaluators lists evaluator slugs, or {name: slug, config: {...}}.
	Evaluators []EvaluatorConfig `mapstructure:"evaluators"`
	// Condition is an OTTL condition on the span; empty selects every span.
	Condition string `mapstructure:"condition"`
	// SampleRate is the fraction of traces evaluated, 0..1 (default 1).
	SampleRate *float64 `mapstructure:"sample_rate"`
	// Inputs maps an evaluator input field to an OTTL value expression that
	// supplies it instead of the default mapping.
	Inputs map[string]string `mapstructure:"inputs"`
	// Level is span (default: each matching span is evaluated) or trace:
	// a matching span makes its trace a candidate, evaluated once as a
	// whole (its trajectory) after QuietPeriod without a new span, the
	// result on the root span. Trace level needs api.
	Level string `mapstructure:"level"`
	// QuietPeriod is how long a trace-level monitor waits for a trace's
	// next span (default 30s).
	QuietPeriod time.Duration `mapstructure:"quiet_period"`
}

// Monitor levels.
const (
	LevelSpan  = "span"
	LevelTrace = "trace"
)

// EvaluatorConfig is one evaluator of a monitor. In YAML it is either the
// evaluator's slug, a map {name: slug, config: {...}}, or {custom: slug}.
type EvaluatorConfig struct {
	// Name is the prebuilt evaluator's slug.
	Name string `mapstructure:"name"`
	// Config is the evaluator's config (thresholds, regex, ...).
	Config map[string]any `mapstructure:"config"`
	// Custom is the slug of a custom evaluator (an LLM judge created
	// through /v2/evaluators) of the span's project. Its work is queued in
	// the warehouse by the api extension and judged after the span is
	// stored; it needs api.
	Custom string `mapstructure:"custom"`
	// Judge runs the prebuilt evaluator Name through an LLM judge of the
	// api extension (a provider of its judge configuration, and a model)
	// instead of offline; its answer has the evaluator's output fields.
	// Like a custom evaluator's, its work is queued; it needs api.
	Judge *JudgeConfig `mapstructure:"judge"`
}

// JudgeConfig names the LLM that judges for a prebuilt evaluator.
type JudgeConfig struct {
	Provider string `mapstructure:"provider"`
	Model    string `mapstructure:"model"`
}

// UnmarshalText accepts the short form: a bare slug.
func (e *EvaluatorConfig) UnmarshalText(text []byte) error {
	e.Name = string(text)
	return nil
}

var _ component.Config = (*Config)(nil)

// Validate checks the configuration: monitor names, evaluator slugs and
// configs, OTTL conditions and input expressions, sample rates, workers,
// timeout and max_text_bytes.
func (c *Config) Validate() error {
	var errs []error
	if c.Workers < 0 {
		errs = append(errs, fmt.Errorf("workers: must not be negative, got %d", c.Workers))
	}
	if c.Timeout <= 0 {
		errs = append(errs, fmt.Errorf("timeout: must be positive, got %s", c.Timeout))
	}
	if c.MaxTextBytes <= 0 {
		errs = append(errs, fmt.Errorf("max_text_bytes: must be positive, got %d", c.MaxTextBytes))
	}
	if c.API != nil && c.API.Type().String() == "" {
		errs = append(errs, errors.New("api: must name an extension"))
	}
	for i, m := range c.Monitors {
		switch m.Level {
		case "", LevelSpan:
			if m.QuietPeriod != 0 {
				errs = append(errs, fmt.Errorf("monitors[%d].quiet_period: only a monitor of level trace waits for a quiet period", i))
			}
		case LevelTrace:
			if c.API == nil {
				errs = append(errs, fmt.Errorf("monitors[%d].level: trace needs api: the evalapi extension keeps the traces' work until they are complete", i))
			}
			if m.QuietPeriod < 0 || m.QuietPeriod > time.Hour {
				errs = append(errs, fmt.Errorf("monitors[%d].quiet_period: must be between 0 (default %s) and 1h, got %s", i, monitor.DefaultQuietPeriod, m.QuietPeriod))
			}
		default:
			errs = append(errs, fmt.Errorf("monitors[%d].level: %q is not span or trace", i, m.Level))
		}
		for j, e := range m.Evaluators {
			switch {
			case e.Judge != nil && e.Custom != "":
				errs = append(errs, fmt.Errorf("monitors[%d].evaluators[%d]: custom %q has its own judge; judge is for a prebuilt evaluator", i, j, e.Custom))
			case e.Custom != "" && e.Name != "":
				errs = append(errs, fmt.Errorf("monitors[%d].evaluators[%d]: name %q and custom %q: give one of them", i, j, e.Name, e.Custom))
			case e.Custom != "" && len(e.Config) > 0:
				errs = append(errs, fmt.Errorf("monitors[%d].evaluators[%d]: custom %q takes no config (a custom evaluator's prompt and model are its own)", i, j, e.Custom))
			case e.Custom != "" && c.API == nil:
				errs = append(errs, fmt.Errorf("monitors[%d].evaluators[%d]: custom %q needs api: the evalapi extension queues and judges custom evaluators", i, j, e.Custom))
			case e.Judge != nil && c.API == nil:
				errs = append(errs, fmt.Errorf("monitors[%d].evaluators[%d].judge: needs api: the evalapi extension queues the judge's work and holds its providers", i, j))
			case e.Judge != nil && (e.Judge.Provider == "" || e.Judge.Model == ""):
				errs = append(errs, fmt.Errorf("monitors[%d].evaluators[%d].judge: provider and model are both required", i, j))
			}
		}
	}
	if _, err := c.compileMonitors(component.TelemetrySettings{Logger: zap.NewNop()}); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// specs returns the monitor specs of the static monitors.
func (c *Config) specs() []monitor.Spec {
	specs := make([]monitor.Spec, len(c.Monitors))
	for i, m := range c.Monitors {
		rate := 1.0
		if m.SampleRate != nil {
			rate = *m.SampleRate
		}
		s := monitor.Spec{ID: m.Name, Name: m.Name, Condition: m.Condition, SampleRate: rate, Inputs: m.Inputs,
			Trace: m.Level == LevelTrace, QuietPeriod: m.QuietPeriod}
		for _, e := range m.Evaluators {
			if e.Custom != "" {
				s.Evaluators = append(s.Evaluators, monitor.EvaluatorSpec{Slug: e.Custom, Custom: true})
				continue
			}
			spec := monitor.EvaluatorSpec{Slug: e.Name, Config: e.Config}
			if e.Judge != nil {
				spec.Judge = &monitor.JudgeRef{Provider: e.Judge.Provider, Model: e.Judge.Model}
			}
			s.Evaluators = append(s.Evaluators, spec)
		}
		specs[i] = s
	}
	return specs
}

// compileMonitors compiles the static monitors; errors name the monitor by
// index and name.
func (c *Config) compileMonitors(set component.TelemetrySettings) ([]*monitor.Monitor, error) {
	compiler, err := monitor.NewCompiler(set)
	if err != nil {
		return nil, err
	}
	var errs []error
	seen := make(map[string]int, len(c.Monitors))
	out := make([]*monitor.Monitor, 0, len(c.Monitors))
	for i, spec := range c.specs() {
		if strings.TrimSpace(spec.Name) == "" {
			errs = append(errs, fmt.Errorf("monitors[%d].name: must not be empty", i))
			continue
		}
		if j, dup := seen[spec.Name]; dup {
			errs = append(errs, fmt.Errorf("monitors[%d].name: %q is already the name of monitors[%d]", i, spec.Name, j))
			continue
		}
		seen[spec.Name] = i
		m, err := compiler.Compile(spec)
		if err != nil {
			errs = append(errs, fmt.Errorf("monitors[%d]: %w", i, err))
			continue
		}
		out = append(out, m)
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return out, nil
}
