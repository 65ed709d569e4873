package evaluatorprocessor

import (
	"context"
	"strings"
	"sync"
	"testing"

	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/collector/consumer/consumertest"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/collector/processor/processortest"

	"github.com/evalcol/evalcol/internal/monitor"
	"github.com/evalcol/evalcol/processor/evaluatorprocessor/internal/metadata"
)

func TestFactory(t *testing.T) {
	// Type and config struct: lifecycle_test.go.
	f := NewFactory()
	if f.TracesStability() != component.StabilityLevelAlpha {
		t.Errorf("traces stability = %v", f.TracesStability())
	}
	cfg := f.CreateDefaultConfig()
	if err := cfg.(*Config).Validate(); err != nil {
		t.Errorf("default config invalid: %v", err)
	}
}

// llmTraces is one chat span as the OpenLLMetry SDK sends it.
func llmTraces() ptrace.Traces {
	td := ptrace.NewTraces()
	s := td.ResourceSpans().AppendEmpty().ScopeSpans().AppendEmpty().Spans().AppendEmpty()
	s.SetName("openai.chat")
	s.SetTraceID([16]byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16})
	s.SetSpanID([8]byte{1, 2, 3, 4, 5, 6, 7, 8})
	a := s.Attributes()
	a.PutStr("gen_ai.operation.name", "chat")
	a.PutStr("gen_ai.prompt.0.role", "user")
	a.PutStr("gen_ai.prompt.0.content", "Count my words please")
	a.PutStr("gen_ai.completion.0.role", "assistant")
	a.PutStr("gen_ai.completion.0.content", "You wrote four words.")
	return td
}

func eventMonitors(td ptrace.Traces) []string {
	var ids []string
	events := td.ResourceSpans().At(0).ScopeSpans().At(0).Spans().At(0).Events()
	for i := 0; i < events.Len(); i++ {
		v, _ := events.At(i).Attributes().Get("evalcol.monitor.id")
		ids = append(ids, v.Str())
	}
	return ids
}

func TestLifecycleStaticMonitor(t *testing.T) {
	f := NewFactory()
	cfg := f.CreateDefaultConfig().(*Config)
	cfg.Monitors = []MonitorConfig{{Name: "counts", Evaluators: []EvaluatorConfig{{Name: "word-count"}}, Condition: `attributes["gen_ai.operation.name"] == "chat"`}}
	sink := new(consumertest.TracesSink)
	p, err := f.CreateTraces(context.Background(), processortest.NewNopSettings(metadata.Type), cfg, sink)
	if err != nil {
		t.Fatal(err)
	}
	if !p.Capabilities().MutatesData {
		t.Error("the processor adds events, so it must declare MutatesData")
	}
	if err := p.Start(context.Background(), componenttest.NewNopHost()); err != nil {
		t.Fatal(err)
	}
	if err := p.ConsumeTraces(context.Background(), llmTraces()); err != nil {
		t.Fatal(err)
	}
	if err := p.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	got := sink.AllTraces()
	if len(got) != 1 || got[0].SpanCount() != 1 {
		t.Fatalf("sink got %d batches", len(got))
	}
	if ids := eventMonitors(got[0]); len(ids) != 1 || ids[0] != "counts" {
		t.Errorf("events by monitor = %v, want [counts]", ids)
	}
}

func TestCreateRejectsInvalidMonitors(t *testing.T) {
	cfg := NewFactory().CreateDefaultConfig().(*Config)
	cfg.Monitors = []MonitorConfig{{Name: "m", Evaluators: []EvaluatorConfig{{Name: "nope"}}}}
	_, err := NewFactory().CreateTraces(context.Background(), processortest.NewNopSettings(metadata.Type), cfg, consumertest.NewNop())
	if err == nil || !strings.Contains(err.Error(), `unknown evaluator "nope"`) {
		t.Fatalf("err = %v", err)
	}
}

type host map[component.ID]component.Component

func (h host) GetExtensions() map[component.ID]component.Component { return h }

// providerExtension stands in for the evalapi extension.
type providerExtension struct {
	component.StartFunc
	component.ShutdownFunc
	monitor.Set
	mu        sync.Mutex
	evaluated []string
}

func (e *providerExtension) Evaluated(id string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.evaluated = append(e.evaluated, id)
}

type plainExtension struct {
	component.StartFunc
	component.ShutdownFunc
}

func TestStartFindsProvider(t *testing.T) {
	evalapi := component.MustNewID("evalapi")
	compiler, err := monitor.NewCompiler(componenttest.NewNopTelemetrySettings())
	if err != nil {
		t.Fatal(err)
	}
	dyn, err := compiler.Compile(monitor.Spec{ID: "setup-7", Name: "auto", SampleRate: 1, Evaluators: []monitor.EvaluatorSpec{{Slug: "char-count"}}})
	if err != nil {
		t.Fatal(err)
	}
	prov := &providerExtension{}
	prov.Replace([]*monitor.Monitor{dyn})

	tests := []struct {
		name    string
		host    host
		wantErr string
	}{
		{"provider found", host{evalapi: prov}, ""},
		{"extension missing", host{}, `api: extension "evalapi" not found`},
		{"extension of another kind", host{evalapi: &plainExtension{}}, `api: extension "evalapi" (*evaluatorprocessor.plainExtension) does not provide monitors`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := NewFactory().CreateDefaultConfig().(*Config)
			cfg.API = &evalapi
			sink := new(consumertest.TracesSink)
			p, err := NewFactory().CreateTraces(context.Background(), processortest.NewNopSettings(metadata.Type), cfg, sink)
			if err != nil {
				t.Fatal(err)
			}
			err = p.Start(context.Background(), tt.host)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("Start() = %v, want an error containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer func() {
				if err := p.Shutdown(context.Background()); err != nil {
					t.Error(err)
				}
			}()
			if err := p.ConsumeTraces(context.Background(), llmTraces()); err != nil {
				t.Fatal(err)
			}
			if ids := eventMonitors(sink.AllTraces()[0]); len(ids) != 1 || ids[0] != "setup-7" {
				t.Errorf("events by monitor = %v, want [setup-7]", ids)
			}
			prov.mu.Lock()
			defer prov.mu.Unlock()
			if len(prov.evaluated) != 1 || prov.evaluated[0] != "setup-7" {
				t.Errorf("Evaluated calls = %v, want [setup-7]", prov.evaluated)
			}
		})
	}
}

func TestShutdownWithoutStart(t *testing.T) {
	processortest.VerifyShutdown(t, NewFactory(), NewFactory().CreateDefaultConfig())
}
