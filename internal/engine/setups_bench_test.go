package engine

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/evalcol/evalcol/internal/monitor"
)

// defaultSafetyCondition is the static monitor of examples/config.yaml.
const defaultSafetyCondition = `attributes["gen_ai.operation.name"] == "chat" or attributes["llm.request.type"] == "chat" or attributes["openinference.span.kind"] == "LLM"`

// taskTraces is a batch of n spans of an LLM application's trace that are
// not LLM calls (OpenLLMetry task spans of workflow "support" with JSON
// input and output): the default safety monitor does not match them.
func taskTraces(n int) ptrace.Traces {
	td := ptrace.NewTraces()
	rs := td.ResourceSpans().AppendEmpty()
	rs.Resource().Attributes().PutStr("service.name", "helpdesk")
	rs.Resource().Attributes().PutStr("deployment.environment.name", "production")
	rs.Resource().Attributes().PutStr("telemetry.sdk.language", "python")
	ss := rs.ScopeSpans().AppendEmpty()
	ss.Scope().SetName("opentelemetry.instrumentation.langchain")
	payload := `{"query": "` + strings.Repeat("where is my parcel ", 50) + `"}`
	for i := range n {
		s := ss.Spans().AppendEmpty()
		s.SetName("retrieve_documents.task")
		s.SetTraceID(pcommon.TraceID{0xcd, byte(i), byte(i >> 8), 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16})
		s.SetSpanID(pcommon.SpanID{1, 2, 3, 4, 5, 6, byte(i >> 8), byte(i)})
		a := s.Attributes()
		a.PutStr("traceloop.span.kind", "task")
		a.PutStr("traceloop.workflow.name", "support")
		a.PutStr("traceloop.entity.name", "retrieve_documents")
		a.PutStr("traceloop.entity.path", "support.answer")
		a.PutStr("traceloop.entity.input", payload)
		a.PutStr("traceloop.entity.output", payload)
		a.PutStr("traceloop.association.properties.user_id", fmt.Sprint("user-", i%37))
		a.PutStr("traceloop.association.properties.session_id", fmt.Sprint("session-", i%11))
		a.PutInt("retrieval.documents.count", 4)
		a.PutStr("code.function", "retrieve_documents")
	}
	return td
}

// setupMonitors compiles n auto monitor setups as the evalapi extension
// does (monitor.SetupCondition) that match none of taskTraces' spans: in
// other environments, or in production on other workflows, or on other
// entities of every type. Without index, the monitors carry no Selection
// and every condition is evaluated on every span (as before the index).
func setupMonitors(b *testing.B, n int, where string, index bool) []*monitor.Monitor {
	b.Helper()
	key := fmt.Sprint(n, where, index)
	if ms, ok := compiledSetups[key]; ok {
		return ms // compiling 10 000 conditions takes seconds; b.Run calls twice
	}
	c, err := monitor.NewCompiler(componenttest.NewNopTelemetrySettings())
	if err != nil {
		b.Fatal(err)
	}
	types := []string{monitor.EntityWorkflow, monitor.EntityAgent, monitor.EntityEntity, monitor.EntitySpan, monitor.EntityService, monitor.EntityModel}
	ms := make([]*monitor.Monitor, n)
	for i := range ms {
		env, typ := "production", monitor.EntityWorkflow
		switch where {
		case "other_environments":
			env = fmt.Sprint("tenant-", i%100)
		case "same_environment_all_entity_types":
			typ = types[i%len(types)]
		}
		var rules []monitor.InitRule
		if i%3 == 0 {
			rules = []monitor.InitRule{{Op: monitor.OpEquals, Key: "gen_ai.request.model", Value: "gpt-4o"}}
		}
		cond, sel, err := monitor.SetupCondition(env, typ, fmt.Sprint("entity-", i), rules)
		if err != nil {
			b.Fatal(err)
		}
		if !index {
			sel = nil
		}
		if ms[i], err = c.Compile(monitor.Spec{ID: fmt.Sprint("setup-", i), Name: "s", SampleRate: 1, Condition: cond, Selection: sel,
			Evaluators: evs("toxicity-detector", "char-count")}); err != nil {
			b.Fatal(err)
		}
	}
	compiledSetups[key] = ms
	return ms
}

// compiledSetups caches setupMonitors' results across a benchmark's runs.
var compiledSetups = map[string][]*monitor.Monitor{}

type setProvider struct{ monitor.Set }

// cpuTime is the CPU time (user + system) this process has used.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func (*setProvider) Evaluated(string) {}

// BenchmarkSetupsNoMatch: the evaluator processor with the default
// config's static monitor, on a batch of 100 spans that no monitor
// matches, with 0 auto monitor setups and with 1 000 or 10 000 that select
// other environments, other workflows of the spans' environment, or other
// entities of every type there. ns/span should not grow with the number
// of setups. "no_index" evaluates every setup's condition on every span,
// as evalcol did before the index.
//
//	go test -run '^$' -bench SetupsNoMatch -count 6 ./internal/engine/
func BenchmarkSetupsNoMatch(b *testing.B) {
	for _, bc := range []struct {
		name   string
		setups int
		where  string
		index  bool
	}{
		{"setups=0", 0, "", true},
		{"setups=10000/other_environments", 10_000, "other_environments", true},
		{"setups=1000/same_environment_other_workflows", 1000, "same_environment_other_workflows", true},
		{"setups=10000/same_environment_other_workflows", 10_000, "same_environment_other_workflows", true},
		{"setups=1000/same_environment_all_entity_types", 1000, "same_environment_all_entity_types", true},
		{"setups=10000/same_environment_all_entity_types", 10_000, "same_environment_all_entity_types", true},
		{"setups=1000/same_environment_other_workflows/no_index", 1000, "same_environment_other_workflows", false},
	} {
		b.Run(bc.name, func(b *testing.B) {
			tp := newProc(b, Settings{Static: compile(b, monitor.Spec{Name: "safety", Evaluators: evs("toxicity-detector", "pii-detector"), Condition: defaultSafetyCondition})}, nil)
			prov := &setProvider{}
			prov.Replace(setupMonitors(b, bc.setups, bc.where, bc.index))
			tp.SetProvider(prov)
			td := taskTraces(100)
			ctx := context.Background()
			runtime.GC()
			b.ReportAllocs()
			cpu := cpuTime()
			for b.Loop() {
				if _, err := tp.ProcessTraces(ctx, td); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/100, "ns/span")
			// On a shared machine wall time includes waiting for a CPU;
			// the process's CPU time per span varies less.
			b.ReportMetric(float64((cpuTime()-cpu).Nanoseconds())/float64(b.N)/100, "cpu-ns/span")
		})
	}
}
