package evaluatorprocessor

import (
	"context"
	"fmt"
	"strings"

	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/processor"

	"github.com/evalcol/evalcol/internal/engine"
	"github.com/evalcol/evalcol/internal/monitor"
	"github.com/evalcol/evalcol/processor/evaluatorprocessor/internal/metadata"
)

// evaluatorProcessor wires the evaluation logic into the collector: it
// compiles the static monitors and, at Start, finds the extension that
// provides the dynamic ones.
type evaluatorProcessor struct {
	cfg    *Config
	id     component.ID
	static []*monitor.Monitor
	proc   *engine.Processor
}

func newEvaluatorProcessor(set processor.Settings, cfg *Config) (*evaluatorProcessor, error) {
	static, err := cfg.compileMonitors(set.TelemetrySettings)
	if err != nil {
		return nil, err
	}
	proc, err := engine.New(engine.Settings{
		Static:               static,
		Workers:              cfg.Workers,
		Timeout:              cfg.Timeout,
		MaxTextBytes:         cfg.MaxTextBytes,
		GroundTruthAttribute: cfg.GroundTruthAttribute,
		Logger:               set.Logger,
		MeterProvider:        set.MeterProvider,
		ScopeName:            metadata.ScopeName,
	})
	if err != nil {
		return nil, err
	}
	return &evaluatorProcessor{cfg: cfg, id: set.ID, static: static, proc: proc}, nil
}

// start looks up the api extension, when configured, as the provider of
// dynamic monitors, and tells it the static monitors (for its console).
func (p *evaluatorProcessor) start(_ context.Context, host component.Host) error {
	if p.cfg.API == nil {
		return nil
	}
	ext, ok := host.GetExtensions()[*p.cfg.API]
	if !ok {
		return fmt.Errorf("api: extension %q not found: configure it under extensions and list it in service.extensions", p.cfg.API.String())
	}
	prov, ok := ext.(monitor.Provider)
	if !ok {
		return fmt.Errorf("api: extension %q (%T) does not provide monitors; it must be an evalapi extension", p.cfg.API.String(), ext)
	}
	p.proc.SetProvider(prov)
	if d, ok := ext.(engine.Deferrer); ok {
		p.proc.SetDeferrer(d)
	}
	if err := checkJudges(p.static, ext); err != nil {
		return fmt.Errorf("api: extension %q: %w", p.cfg.API.String(), err)
	}
	if reg, ok := ext.(monitor.StaticRegistry); ok {
		reg.SetStaticMonitors(p.id.String(), p.static)
	}
	return nil
}

// shutdown stops the engine's asynchronous metrics.
func (p *evaluatorProcessor) shutdown(context.Context) error {
	return p.proc.Close()
}

// judgeProviders is what the api extension says of its judge providers.
type judgeProviders interface {
	HasJudgeProvider(name string) bool
	JudgeProviders() []string
}

// checkJudges fails when a monitor runs an evaluator through a judge
// provider the extension does not have.
func checkJudges(monitors []*monitor.Monitor, ext component.Component) error {
	jp, ok := ext.(judgeProviders)
	for _, m := range monitors {
		for _, b := range m.Evaluators {
			if b.Judge == nil {
				continue
			}
			if !ok {
				return fmt.Errorf("monitor %q: evaluator %q names judge provider %q, but the extension has no judges", m.Name, b.Slug, b.Judge.Provider)
			}
			if !jp.HasJudgeProvider(b.Judge.Provider) {
				return fmt.Errorf("monitor %q: evaluator %q names judge provider %q, which the extension's judge.providers does not configure (configured: %s)",
					m.Name, b.Slug, b.Judge.Provider, strings.Join(jp.JudgeProviders(), ", "))
			}
		}
	}
	return nil
}
