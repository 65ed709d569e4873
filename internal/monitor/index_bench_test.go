package monitor

import (
	"fmt"
	"strings"
	"syscall"
	"testing"
	"time"

	"go.opentelemetry.io/collector/pdata/ptrace"
)

// BenchmarkCandidates: finding the setups that may match a span of an LLM
// application (workflow "support") among n setups of other workflows of
// its environment.
func BenchmarkCandidates(b *testing.B) {
	td := ptrace.NewTraces()
	rs := td.ResourceSpans().AppendEmpty()
	rs.Resource().Attributes().PutStr("service.name", "helpdesk")
	rs.Resource().Attributes().PutStr("deployment.environment.name", "production")
	ss := rs.ScopeSpans().AppendEmpty()
	s := ss.Spans().AppendEmpty()
	s.SetName("retrieve_documents.task")
	a := s.Attributes()
	a.PutStr("traceloop.span.kind", "task")
	a.PutStr("traceloop.workflow.name", "support")
	a.PutStr("traceloop.entity.name", "retrieve_documents")
	a.PutStr("traceloop.entity.path", "support.answer")
	a.PutStr("traceloop.entity.input", strings.Repeat("x", 1000))
	a.PutStr("traceloop.entity.output", strings.Repeat("y", 1000))
	a.PutStr("traceloop.association.properties.user_id", "user-1")
	a.PutStr("traceloop.association.properties.session_id", "session-1")
	a.PutInt("retrieval.documents.count", 4)
	a.PutStr("code.function", "retrieve_documents")
	types := []string{EntityWorkflow, EntityAgent, EntityEntity, EntitySpan, EntityService, EntityModel}
	for _, n := range []int{0, 10_000} {
		for _, mixed := range []bool{false, true} {
			ms := make([]*Monitor, n)
			for i := range ms {
				typ := EntityWorkflow
				if mixed {
					typ = types[i%len(types)]
				}
				ms[i] = &Monitor{selection: &Selection{Environment: "production", EntityType: typ, EntityValue: fmt.Sprint("entity-", i)}}
			}
			x := NewIndex(ms)
			b.Run(fmt.Sprintf("setups=%d/all_types=%v", n, mixed), func(b *testing.B) {
				var out []int
				cpu := cpuTime()
				for b.Loop() {
					rc := x.Resource(rs.Resource().Attributes())
					out = rc.Candidates(s, ss.Scope(), out)
				}
				// Wall time includes waiting for a CPU on a shared machine.
				b.ReportMetric(float64((cpuTime()-cpu).Nanoseconds())/float64(b.N), "cpu-ns/op")
				if len(out) != 0 {
					b.Fatal(out)
				}
			})
		}
	}
}

// cpuTime is the CPU time (user + system) this process has used.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
