package evaluationmetricsconnector

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/collector/connector/connectortest"
	"go.opentelemetry.io/collector/consumer/consumertest"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/evalcol/evalcol/connector/evaluationmetricsconnector/internal/aggregate"
	"github.com/evalcol/evalcol/connector/evaluationmetricsconnector/internal/metadata"
)

// evaluatedSpan returns a batch with one span that carries one
// toxicity-detector result, safe or not.
func evaluatedSpan(isSafe bool) ptrace.Traces {
	td := ptrace.NewTraces()
	rs := td.ResourceSpans().AppendEmpty()
	rs.Resource().Attributes().PutStr("service.name", "bot")
	sp := rs.ScopeSpans().AppendEmpty().Spans().AppendEmpty()
	sp.SetName("chat")
	ev := sp.Events().AppendEmpty()
	ev.SetName("gen_ai.evaluation.result")
	ev.Attributes().PutStr("gen_ai.evaluation.name", "toxicity-detector")
	ev.Attributes().PutStr("evalcol.monitor.id", "safety")
	label, score := "unsafe", 0.0
	if isSafe {
		label, score = "safe", 1.0
	}
	ev.Attributes().PutStr("gen_ai.evaluation.output.is_safe", label)
	ev.Attributes().PutStr("gen_ai.evaluation.score.label", label)
	ev.Attributes().PutDouble("gen_ai.evaluation.score.value", score)
	return td
}

// sumOf returns the evaluation count with verdict v in md.
func sumOf(md pmetric.Metrics, verdict string) int64 {
	var n int64
	rms := md.ResourceMetrics()
	for i := 0; i < rms.Len(); i++ {
		sms := rms.At(i).ScopeMetrics()
		for j := 0; j < sms.Len(); j++ {
			ms := sms.At(j).Metrics()
			for k := 0; k < ms.Len(); k++ {
				if m := ms.At(k); m.Name() == aggregate.MetricEvaluations {
					dps := m.Sum().DataPoints()
					for d := 0; d < dps.Len(); d++ {
						if v, ok := dps.At(d).Attributes().Get(aggregate.AttrVerdict); ok && v.Str() == verdict {
							n += dps.At(d).IntValue()
						}
					}
				}
			}
		}
	}
	return n
}

// TestConnectorFlushes: the connector sends the cumulative metrics of the
// results it consumed on every flush interval (nothing while it has none),
// and a last time at shutdown.
func TestConnectorFlushes(t *testing.T) {
	factory := NewFactory()
	cfg := factory.CreateDefaultConfig().(*Config)
	cfg.MetricsFlushInterval = 10 * time.Millisecond
	sink := new(consumertest.MetricsSink)
	c, err := factory.CreateTracesToMetrics(context.Background(), connectortest.NewNopSettings(metadata.Type), cfg, sink)
	if err != nil {
		t.Fatal(err)
	}
	if c.Capabilities().MutatesData {
		t.Error("the connector says it mutates data; it only reads spans")
	}
	if err := c.Start(context.Background(), componenttest.NewNopHost()); err != nil {
		t.Fatal(err)
	}
	time.Sleep(50 * time.Millisecond)
	if n := len(sink.AllMetrics()); n != 0 {
		t.Errorf("%d flushes before any evaluation, want none", n)
	}
	for _, safe := range []bool{true, true, false} {
		if err := c.ConsumeTraces(context.Background(), evaluatedSpan(safe)); err != nil {
			t.Fatal(err)
		}
	}
	deadline := time.Now().Add(10 * time.Second)
	for len(sink.AllMetrics()) == 0 {
		if time.Now().After(deadline) {
			t.Fatal("no metrics flushed within 10s")
		}
		time.Sleep(5 * time.Millisecond)
	}
	last := func() pmetric.Metrics { all := sink.AllMetrics(); return all[len(all)-1] }
	if pass, fail := sumOf(last(), "pass"), sumOf(last(), "fail"); pass != 2 || fail != 1 {
		t.Errorf("flushed counts pass %d, fail %d; want 2, 1", pass, fail)
	}
	if err := c.ConsumeTraces(context.Background(), evaluatedSpan(false)); err != nil {
		t.Fatal(err)
	}
	if err := c.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	if fail := sumOf(last(), "fail"); fail != 2 {
		t.Errorf("counts of the last flush (at shutdown) fail %d, want 2 (cumulative)", fail)
	}
}

// TestConnectorReportsConsumerError: an error of the next consumer comes
// back from Shutdown's last flush (and is logged by periodic flushes).
func TestConnectorReportsConsumerError(t *testing.T) {
	factory := NewFactory()
	cfg := factory.CreateDefaultConfig().(*Config)
	cfg.MetricsFlushInterval = time.Hour
	c, err := factory.CreateTracesToMetrics(context.Background(), connectortest.NewNopSettings(metadata.Type), cfg,
		consumertest.NewErr(errors.New("backend down")))
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Start(context.Background(), componenttest.NewNopHost()); err != nil {
		t.Fatal(err)
	}
	if err := c.ConsumeTraces(context.Background(), evaluatedSpan(true)); err != nil {
		t.Fatal(err)
	}
	if err := c.Shutdown(context.Background()); err == nil || !strings.HasSuffix(err.Error(), ": backend down") {
		t.Errorf("Shutdown = %v, want the consumer's error", err)
	}
}
