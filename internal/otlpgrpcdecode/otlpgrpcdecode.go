// Package otlpgrpcdecode makes the OTLP/gRPC receiver answer a request
// that is not valid protobuf with INVALID_ARGUMENT (the sender's mistake,
// not to be retried) instead of INTERNAL. grpc-go decodes a unary request
// before any interceptor runs and turns every decoding error into
// INTERNAL, so the fix takes two parts, installed together as server
// options by the evalapi extension's receiver middleware:
//
//   - a codec that wraps the registered "proto" codec: when an OTLP
//     export request does not decode, it decodes a marker request instead
//     (one resource carrying an attribute with a per-process random value)
//     and reports success;
//   - a unary interceptor that answers a marker request INVALID_ARGUMENT
//     before it reaches the pipeline.
//
// The interceptor compares requests with the marker only for a while
// after the codec made one (a marker is small: the size is checked
// first), so valid traffic pays nothing otherwise.
package otlpgrpcdecode

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"strings"
	"sync/atomic"
	"time"

	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/collector/pdata/ptrace/ptraceotlp"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/encoding"
	"google.golang.org/grpc/mem"
	"google.golang.org/grpc/status"
)

// markerAttribute is the resource attribute of a marker request.
const markerAttribute = "evalcol.invalid_otlp_request"

// checkWindow is how long after the codec made a marker the interceptor
// looks for one: the interceptor of a request runs right after its
// decoding, unless authentication refused the request in between.
const checkWindow = 10 * time.Second

// otlpMessage is what pdata's OTLP request messages implement (the
// interface of its gRPC codec).
type otlpMessage interface {
	SizeProto() int
	MarshalProto([]byte) int
	UnmarshalProto([]byte) error
}

// Decoder holds the marker of one process and when the codec last made one.
type Decoder struct {
	marker []byte
	last   atomic.Int64 // Unix ns of the last marker decoded, 0 for none
	now    func() time.Time
}

// New returns a Decoder with a fresh random marker.
func New() (*Decoder, error) {
	var nonce [16]byte
	if _, err := rand.Read(nonce[:]); err != nil {
		return nil, err
	}
	td := ptrace.NewTraces()
	td.ResourceSpans().AppendEmpty().Resource().Attributes().PutStr(markerAttribute, hex.EncodeToString(nonce[:]))
	// The field numbers of resource_spans / resource_metrics /
	// resource_logs / resource_profiles and of their resource are all 1:
	// these bytes decode into any OTLP export request as one resource.
	marker, err := ptraceotlp.NewExportRequestFromTraces(td).MarshalProto()
	if err != nil {
		return nil, err
	}
	return &Decoder{marker: marker, now: time.Now}, nil
}

// ServerOptions are the gRPC server options that install the codec and
// the interceptor.
func (d *Decoder) ServerOptions() []grpc.ServerOption {
	return []grpc.ServerOption{
		grpc.ForceServerCodecV2(codec{delegate: encoding.GetCodecV2("proto"), d: d}),
		grpc.ChainUnaryInterceptor(d.UnaryServerInterceptor),
	}
}

// codec is the registered "proto" codec, with OTLP requests that do not
// decode turned into the marker.
type codec struct {
	delegate encoding.CodecV2
	d        *Decoder
}

func (c codec) Name() string { return "proto" }

func (c codec) Marshal(v any) (mem.BufferSlice, error) { return c.delegate.Marshal(v) }

func (c codec) Unmarshal(data mem.BufferSlice, v any) error {
	err := c.delegate.Unmarshal(data, v)
	if err == nil {
		return nil
	}
	m, ok := v.(otlpMessage)
	if !ok || m.UnmarshalProto(c.d.marker) != nil {
		return err
	}
	c.d.last.Store(c.d.now().UnixNano())
	return nil
}

// errInvalid is the status of a request that did not decode.
func errInvalid(method string) error {
	service := strings.TrimPrefix(method, "/")
	if i := strings.LastIndex(service, "/"); i > 0 {
		service = service[:i]
	}
	return status.Errorf(codes.InvalidArgument, "the request is not a valid protobuf Export request of %s: it cannot be decoded (do not retry it)", service)
}

// UnaryServerInterceptor answers INVALID_ARGUMENT to a request the codec
// could not decode (the marker); other requests go on.
func (d *Decoder) UnaryServerInterceptor(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
	if last := d.last.Load(); last != 0 && d.now().UnixNano()-last < int64(checkWindow) {
		if m, ok := req.(otlpMessage); ok && m.SizeProto() == len(d.marker) {
			buf := make([]byte, len(d.marker))
			if bytes.Equal(buf[:m.MarshalProto(buf)], d.marker) {
				method := ""
				if info != nil {
					method = info.FullMethod
				}
				return nil, errInvalid(method)
			}
		}
	}
	return handler(ctx, req)
}
