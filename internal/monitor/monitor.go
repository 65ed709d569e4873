// Package monitor holds compiled evaluation monitors: which spans a monitor
// selects (an OTTL condition on the span context), which evaluators it runs
// with which config, how many traces it samples and, optionally, OTTL value
// expressions that supply evaluator inputs. It also translates the init
// rules of auto monitor setups into OTTL conditions and defines the Provider
// through which the evalapi extension hands live monitors to the processor.
package monitor

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/open-telemetry/opentelemetry-collector-contrib/pkg/ottl"
	"github.com/open-telemetry/opentelemetry-collector-contrib/pkg/ottl/contexts/ottlspan"
	"github.com/open-telemetry/opentelemetry-collector-contrib/pkg/ottl/ottlfuncs"
	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/evalcol/evalcol/evaluators"
)

// Monitor is a compiled monitor. It is immutable once compiled and safe for
// concurrent use.
type Monitor struct {
	// ID identifies the monitor in evaluation results (evalcol.monitor.id).
	ID string
	// Name is the human-readable name.
	Name string
	// Evaluators are the evaluators the monitor runs on each matching span.
	Evaluators []Binding
	// SampleRate is the fraction of traces evaluated, 0..1 (0 evaluates none).
	SampleRate float64
	// Inputs maps an evaluator input field name to the OTTL expression that
	// supplies it; fields not listed take the default mapping.
	Inputs map[string]*Expr
	// Trace marks a trace-level monitor: a matching span makes its trace
	// a candidate, and the evaluators run once on the whole trace when no
	// new span arrived for QuietPeriod (agent evaluators judge a
	// trajectory, not one span); the result goes on the trace's root span.
	Trace       bool
	QuietPeriod time.Duration

	condition *ottl.Condition[*ottlspan.TransformContext] // nil matches every span
	// lazy, when set, compiles the condition at its first evaluation (see
	// Compile); condition is then nil.
	lazy   *lazyCondition
	source string
	// selection lets an Index skip the monitor for spans it cannot match
	// (nil: a candidate for every span).
	selection *Selection
}

// DefaultQuietPeriod is how long a trace-level monitor waits for a trace's
// next span before it evaluates the trace.
const DefaultQuietPeriod = 30 * time.Second

// Binding is one evaluator of a monitor with its config.
type Binding struct {
	Slug   string
	Config map[string]any
	// Def is the catalogue's evaluator; nil for a custom evaluator.
	Def *evaluators.Definition
	// Custom marks a custom evaluator (an LLM judge of the span's
	// project, resolved by slug when it runs): the engine queues its work
	// instead of running it on the span's way to the warehouse.
	Custom bool
	// Judge, when set, runs the prebuilt evaluator through an LLM judge
	// of the evalapi extension instead of offline (queued like a custom
	// evaluator); its answer has the evaluator's own output fields.
	Judge *JudgeRef
}

// JudgeRef names the LLM that judges for a prebuilt evaluator: a provider
// of the evalapi extension's judge configuration and a model.
type JudgeRef struct {
	Provider, Model string
}

// NewBinding resolves slug in the evaluator catalogue and validates config
// against it. The error names the slug or the offending config field.
func NewBinding(slug string, config map[string]any) (Binding, error) {
	def, ok := evaluators.Lookup(slug)
	if !ok {
		return Binding{}, fmt.Errorf("unknown evaluator %q (known: %s)", slug, strings.Join(evaluators.Slugs(), ", "))
	}
	// Every input present, so that NewRequest checks only the config.
	probe := make(map[string]any, len(def.Inputs))
	for _, f := range def.Inputs {
		probe[f.Name] = ""
	}
	if _, err := def.NewRequest(probe, config); err != nil {
		return Binding{}, fmt.Errorf("evaluator %q: %w", slug, err)
	}
	return Binding{Slug: slug, Config: config, Def: def}, nil
}

// NewCustomBinding binds the custom evaluator slug. Custom evaluators
// belong to a project, so the slug is resolved when the work runs (an
// unknown one is recorded then as the evaluation's error); here it only
// must not be empty nor a prebuilt evaluator's.
func NewCustomBinding(slug string) (Binding, error) {
	if strings.TrimSpace(slug) == "" {
		return Binding{}, errors.New("custom evaluator: the slug must not be empty")
	}
	if _, ok := evaluators.Lookup(slug); ok {
		return Binding{}, fmt.Errorf("custom evaluator %q: the slug is a prebuilt evaluator's; name it without custom", slug)
	}
	return Binding{Slug: slug, Custom: true}, nil
}

// Condition returns the OTTL condition source, "" when the monitor matches
// every span.
func (m *Monitor) Condition() string { return m.source }

// Matches reports whether the span satisfies the monitor's condition. A
// condition that fails to evaluate does not match.
func (m *Monitor) Matches(ctx context.Context, span ptrace.Span, scope ptrace.ScopeSpans, resource ptrace.ResourceSpans) bool {
	if m.condition == nil && m.lazy == nil {
		return true
	}
	tctx := ottlspan.NewTransformContext(resource, scope, span)
	defer tctx.Close()
	return m.MatchesContext(ctx, tctx)
}

// MatchesContext is Matches on an OTTL span context the caller already
// holds (and may reuse for several monitors and for Inputs).
func (m *Monitor) MatchesContext(ctx context.Context, tctx *ottlspan.TransformContext) bool {
	cond := m.condition
	if m.lazy != nil {
		cond = m.lazy.get()
		if cond == nil {
			return false
		}
	}
	if cond == nil {
		return true
	}
	ok, err := cond.Eval(ctx, tctx)
	return err == nil && ok
}

// lazyCondition is an OTTL condition compiled at its first use. A compiled
// condition is a tree of small pointer-holding objects: 10 000 auto
// monitor setups held about 30 MB of them, which the garbage collector
// marked at every cycle (a fifth of the collector's CPU under load),
// although the Index never hands a span to a setup of another workflow.
// The source was checked when the monitor was compiled.
type lazyCondition struct {
	once   sync.Once
	parser *ottl.Parser[*ottlspan.TransformContext]
	source string
	cond   *ottl.Condition[*ottlspan.TransformContext]
}

// get returns the compiled condition, nil if it does not compile (which
// Compile ruled out).
func (l *lazyCondition) get() *ottl.Condition[*ottlspan.TransformContext] {
	l.once.Do(func() {
		if c, err := l.parser.ParseCondition(l.source); err == nil {
			l.cond = c
		}
		l.parser = nil
	})
	return l.cond
}

// Expr is a compiled OTTL value expression on the span context.
type Expr struct {
	source string
	expr   *ottl.ValueExpression[*ottlspan.TransformContext]
}

// String returns the expression's source.
func (e *Expr) String() string { return e.source }

// EvalString evaluates the expression and renders its value as evaluator
// input text: strings as themselves, numbers and booleans in their JSON form,
// maps and lists as JSON. ok is false when the value is nil or empty.
func (e *Expr) EvalString(ctx context.Context, tctx *ottlspan.TransformContext) (s string, ok bool, err error) {
	v, err := e.expr.Eval(ctx, tctx)
	if err != nil {
		return "", false, fmt.Errorf("input expression %s: %w", e.source, err)
	}
	s = valueText(v)
	return s, s != "", nil
}

func valueText(v any) string {
	switch t := v.(type) {
	case nil:
		return ""
	case string:
		return t
	case pcommon.Value:
		return t.AsString()
	case pcommon.Map:
		return mapJSON(t)
	case pcommon.Slice:
		b, _ := json.Marshal(t.AsRaw())
		return string(b)
	case int64:
		return strconv.FormatInt(t, 10)
	case float64:
		return strconv.FormatFloat(t, 'g', -1, 64)
	case bool:
		return strconv.FormatBool(t)
	case []byte:
		return string(t)
	default:
		b, err := json.Marshal(t)
		if err != nil {
			return fmt.Sprint(t)
		}
		return string(b)
	}
}

func mapJSON(m pcommon.Map) string {
	b, _ := json.Marshal(m.AsRaw())
	return string(b)
}

// Spec is the uncompiled form of a monitor, as configured in YAML or built
// from an auto monitor setup.
type Spec struct {
	ID   string
	Name string
	// Evaluators lists the evaluators to run, at least one.
	Evaluators []EvaluatorSpec
	// Condition is an OTTL condition on the span context ("" = every span).
	Condition string
	// SampleRate is the fraction of traces to evaluate, 0..1.
	SampleRate float64
	// Inputs maps evaluator input field names to OTTL value expressions.
	Inputs map[string]string
	// Trace and QuietPeriod make a trace-level monitor (see Monitor).
	Trace       bool
	QuietPeriod time.Duration
	// Selection, when set, states what Condition implies (the monitor of
	// an auto monitor setup: environment, entity and selector
	// equalities), so that an Index skips the monitor for other spans. It
	// must never exclude a span Condition matches.
	Selection *Selection
}

// EvaluatorSpec names an evaluator and its config.
type EvaluatorSpec struct {
	Slug   string
	Config map[string]any
	// Custom names a custom evaluator (an LLM judge) by Slug; it takes no
	// Config.
	Custom bool
	// Judge runs the prebuilt evaluator Slug through an LLM judge.
	Judge *JudgeRef
}

// Compiler compiles monitor specs. It is safe for concurrent use.
type Compiler struct {
	parser ottl.Parser[*ottlspan.TransformContext]
}

// NewCompiler returns a compiler of OTTL span conditions and expressions
// with the standard OTTL converters. set must carry a logger.
func NewCompiler(set component.TelemetrySettings) (*Compiler, error) {
	p, err := ottlspan.NewParser(ottlfuncs.StandardConverters[*ottlspan.TransformContext](), set)
	if err != nil {
		return nil, fmt.Errorf("creating OTTL span parser: %w", err)
	}
	return &Compiler{parser: p}, nil
}

// CompileCondition checks an OTTL span condition.
func (c *Compiler) CompileCondition(condition string) error {
	_, err := c.parser.ParseCondition(condition)
	return err
}

// Compile validates and compiles a monitor spec. Errors name the offending
// part: an unknown evaluator slug, a bad config value, an OTTL syntax error,
// an input that no evaluator of the monitor takes, a sample rate outside
// 0..1.
func (c *Compiler) Compile(spec Spec) (*Monitor, error) {
	if len(spec.Evaluators) == 0 {
		return nil, fmt.Errorf("monitor %q: evaluators must not be empty", spec.Name)
	}
	if !(spec.SampleRate >= 0 && spec.SampleRate <= 1) {
		return nil, fmt.Errorf("monitor %q: sample_rate must be between 0 and 1, got %g", spec.Name, spec.SampleRate)
	}
	m := &Monitor{ID: spec.ID, Name: spec.Name, SampleRate: spec.SampleRate, source: spec.Condition, selection: spec.Selection,
		Trace: spec.Trace, QuietPeriod: spec.QuietPeriod}
	if spec.Trace && spec.QuietPeriod <= 0 {
		m.QuietPeriod = DefaultQuietPeriod
	}
	for _, e := range spec.Evaluators {
		var (
			b   Binding
			err error
		)
		if e.Custom {
			b, err = NewCustomBinding(e.Slug)
		} else {
			b, err = NewBinding(e.Slug, e.Config)
			if err == nil && e.Judge != nil {
				if e.Judge.Provider == "" || e.Judge.Model == "" {
					err = fmt.Errorf("evaluator %q: judge needs a provider and a model", e.Slug)
				}
				b.Judge = e.Judge
			}
		}
		if err != nil {
			return nil, fmt.Errorf("monitor %q: %w", spec.Name, err)
		}
		m.Evaluators = append(m.Evaluators, b)
	}
	if strings.TrimSpace(spec.Condition) != "" {
		cond, err := c.parser.ParseCondition(spec.Condition)
		if err != nil {
			return nil, fmt.Errorf("monitor %q: condition: %w", spec.Name, err)
		}
		if spec.Selection != nil {
			// An indexed monitor (an auto monitor setup) is a candidate
			// for few spans, often none: its condition is compiled again
			// when it first is, and the checked one dropped.
			m.lazy = &lazyCondition{parser: &c.parser, source: spec.Condition}
		} else {
			m.condition = cond
		}
	}
	if len(spec.Inputs) > 0 {
		m.Inputs = make(map[string]*Expr, len(spec.Inputs))
		names := make([]string, 0, len(spec.Inputs))
		for name := range spec.Inputs {
			names = append(names, name)
		}
		sort.Strings(names) // deterministic error reporting
		for _, name := range names {
			if !takesInput(m.Evaluators, name) {
				return nil, fmt.Errorf("monitor %q: inputs.%s: no evaluator of the monitor takes an input called %q", spec.Name, name, name)
			}
			ve, err := c.parser.ParseValueExpression(spec.Inputs[name])
			if err != nil {
				return nil, fmt.Errorf("monitor %q: inputs.%s: %w", spec.Name, name, err)
			}
			m.Inputs[name] = &Expr{source: spec.Inputs[name], expr: ve}
		}
	}
	return m, nil
}

// takesInput reports whether an evaluator of bs takes an input called
// name. A custom evaluator may take any: its input schema is its
// project's, read when it runs.
func takesInput(bs []Binding, name string) bool {
	for _, b := range bs {
		if b.Custom {
			return true
		}
		if _, ok := b.Def.Input(name); ok {
			return true
		}
	}
	return false
}
