package spanconv

import (
	"strings"
	"testing"

	"go.opentelemetry.io/collector/pdata/ptrace"
)

func TestExceptionEventKeptAsAttributes(t *testing.T) {
	td := ptrace.NewTraces()
	spans := td.ResourceSpans().AppendEmpty().ScopeSpans().AppendEmpty().Spans()
	add := func(id byte, own map[string]any, exceptions ...map[string]any) {
		sp := spans.AppendEmpty()
		sp.SetTraceID([16]byte{id})
		sp.SetSpanID([8]byte{id})
		_ = sp.Attributes().FromRaw(own)
		for _, e := range exceptions {
			ev := sp.Events().AppendEmpty()
			ev.SetName("exception")
			_ = ev.Attributes().FromRaw(e)
		}
		other := sp.Events().AppendEmpty()
		other.SetName("retry")
		other.Attributes().PutStr("exception.type", "not an exception event")
	}
	long := strings.Repeat("frame\n", 5000)
	add(1, nil,
		map[string]any{"exception.type": "TimeoutError", "exception.message": "first"},
		map[string]any{"exception.type": "openai.RateLimitError", "exception.message": "429 <b>Too Many</b>", "exception.stacktrace": long})
	add(2, map[string]any{"exception.type": "set by the app"}, map[string]any{"exception.type": "ValueError", "exception.message": "bad"})
	add(3, map[string]any{"x": "y"})
	b := Traces(td, Options{DefaultEnvironment: "prod"})
	if len(b.Spans) != 3 {
		t.Fatalf("%d spans", len(b.Spans))
	}
	a := b.Spans[0].SpanAttributes
	if a[AttrExceptionType] != "openai.RateLimitError" || a[AttrExceptionMessage] != "429 <b>Too Many</b>" {
		t.Errorf("span 1: %v, want the last exception event", a)
	}
	if st := a[AttrExceptionStacktrace]; len(st) > maxStacktraceBytes+8 || !strings.HasPrefix(st, "frame\n") || !strings.HasSuffix(st, "…") {
		t.Errorf("stack trace of %d bytes, want it cut to %d and marked", len(st), maxStacktraceBytes)
	}
	if a := b.Spans[1].SpanAttributes; a[AttrExceptionType] != "set by the app" || a[AttrExceptionMessage] != "bad" {
		t.Errorf("span 2: %v, want the span's own attribute kept and the event's message added", a)
	}
	if a := b.Spans[2].SpanAttributes; len(a) != 1 {
		t.Errorf("span 3 without an exception: %v", a)
	}
}
