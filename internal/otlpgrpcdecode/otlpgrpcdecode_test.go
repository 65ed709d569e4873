package otlpgrpcdecode

import (
	"context"
	"testing"
	"time"

	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.opentelemetry.io/collector/pdata/pmetric/pmetricotlp"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/collector/pdata/ptrace/ptraceotlp"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/encoding"
	"google.golang.org/grpc/mem"
	"google.golang.org/grpc/status"
)

// request decodes body with the codec into a fresh OTLP trace or metrics
// request, as the gRPC server does, and runs the interceptor on it; it
// returns the status code the sender would get.
func request(t *testing.T, d *Decoder, body []byte, metrics bool) codes.Code {
	t.Helper()
	c := codec{delegate: encoding.GetCodecV2("proto"), d: d}
	var req any
	if metrics {
		req = pmetricotlp.NewExportRequest()
	} else {
		req = ptraceotlp.NewExportRequest()
	}
	// pdata's public requests wrap the internal messages the server uses;
	// their proto methods are the same, so decode through a shim.
	shim := &publicMessage{req: req}
	if err := c.Unmarshal(mem.BufferSlice{mem.SliceBuffer(body)}, shim); err != nil {
		return status.Code(err)
	}
	_, err := d.UnaryServerInterceptor(context.Background(), shim, &grpc.UnaryServerInfo{FullMethod: "/x.TraceService/Export"},
		func(context.Context, any) (any, error) { return nil, nil })
	return status.Code(err)
}

// publicMessage gives a pdata public request the proto methods of the
// internal messages.
type publicMessage struct{ req any }

func (p *publicMessage) SizeProto() int {
	b, _ := p.marshal()
	return len(b)
}

func (p *publicMessage) MarshalProto(buf []byte) int {
	b, _ := p.marshal()
	return copy(buf, b)
}

func (p *publicMessage) UnmarshalProto(b []byte) error {
	switch r := p.req.(type) {
	case ptraceotlp.ExportRequest:
		return r.UnmarshalProto(b)
	case pmetricotlp.ExportRequest:
		return r.UnmarshalProto(b)
	}
	return nil
}

func (p *publicMessage) marshal() ([]byte, error) {
	switch r := p.req.(type) {
	case ptraceotlp.ExportRequest:
		return r.MarshalProto()
	case pmetricotlp.ExportRequest:
		return r.MarshalProto()
	}
	return nil, nil
}

func TestGarbageIsInvalidArgument(t *testing.T) {
	d, err := New()
	if err != nil {
		t.Fatal(err)
	}
	clock := time.Unix(1_800_000_000, 0)
	d.now = func() time.Time { return clock }

	td := ptrace.NewTraces()
	td.ResourceSpans().AppendEmpty().ScopeSpans().AppendEmpty().Spans().AppendEmpty().SetName("s")
	valid, _ := ptraceotlp.NewExportRequestFromTraces(td).MarshalProto()
	md := pmetric.NewMetrics()
	md.ResourceMetrics().AppendEmpty().ScopeMetrics().AppendEmpty().Metrics().AppendEmpty().SetName("m")
	validMetrics, _ := pmetricotlp.NewExportRequestFromMetrics(md).MarshalProto()

	if got := request(t, d, valid, false); got != codes.OK {
		t.Fatalf("valid traces: %v", got)
	}
	if got := request(t, d, []byte{0x0f, 0xff}, false); got != codes.InvalidArgument {
		t.Errorf("garbage traces: %v, want InvalidArgument", got)
	}
	if got := request(t, d, []byte{0x0a, 0x50}, true); got != codes.InvalidArgument {
		t.Errorf("garbage metrics: %v, want InvalidArgument", got)
	}
	for name, body := range map[string][]byte{"traces": valid, "metrics": validMetrics, "empty": nil} {
		if got := request(t, d, body, name == "metrics"); got != codes.OK {
			t.Errorf("valid %s right after garbage: %v, want OK", name, got)
		}
	}
	// A request that holds the marker itself is refused only while the
	// codec made one recently; long after, it is a request like any other.
	if got := request(t, d, d.marker, false); got != codes.InvalidArgument {
		t.Errorf("marker within the window: %v", got)
	}
	clock = clock.Add(checkWindow + time.Second)
	if got := request(t, d, d.marker, false); got != codes.OK {
		t.Errorf("marker after the window: %v, want OK (not checked)", got)
	}
}
