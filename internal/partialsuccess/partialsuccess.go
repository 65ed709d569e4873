// Package partialsuccess reports spans and metric data points a pipeline
// rejected back to the OTLP sender, in the partial_success field of the
// export response, as the OTLP
// specification asks ("the server MUST respond with partial_success when it
// rejects part of the data"). The collector's OTLP receiver never fills
// that field, so a receiver middleware (HTTP handler wrapper and gRPC
// interceptor, served by the evalapi extension) puts a Report in the
// request's context; a processor that drops invalid spans records them on
// it (Reject; RejectDataPoints for metric data points); after the pipeline
// returns, the middleware writes the count and message into the success
// answer (rejected_spans or rejected_data_points).
package partialsuccess

import (
	"bytes"
	"context"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"sync"

	"go.opentelemetry.io/collector/pdata/pmetric/pmetricotlp"
	"go.opentelemetry.io/collector/pdata/ptrace/ptraceotlp"
	"google.golang.org/grpc"
)

// Report collects the spans rejected while one OTLP request runs through
// the pipelines. It is safe for concurrent use.
type Report struct {
	mu      sync.Mutex
	reasons []rejection // in the order first reported
	// dataPoints: the rejections are of metric data points (a request
	// carries one signal).
	dataPoints bool
}

// rejection is the spans rejected for one reason.
type rejection struct {
	reason  string
	spans   int64
	message string
}

type contextKey struct{}

// NewContext returns ctx carrying a new, empty report.
func NewContext(ctx context.Context) (context.Context, *Report) {
	r := &Report{}
	return context.WithValue(ctx, contextKey{}, r), r
}

// Reject records that n spans of the request in ctx were rejected for
// reason (a short stable key, e.g. "invalid_id"), and message, the words
// the sender reads. A request that fans out to several pipelines is
// validated by each of them: for one reason the largest count is kept,
// not the sum; different reasons (different spans: a span rejected once is
// gone) add up, and their messages are joined. Without a report in ctx (no
// middleware on the receiver) it does nothing.
func Reject(ctx context.Context, reason string, n int64, message string) {
	reject(ctx, false, reason, n, message)
}

// RejectDataPoints is Reject for the metric data points of an OTLP
// metrics export (the answer's rejected_data_points).
func RejectDataPoints(ctx context.Context, reason string, n int64, message string) {
	reject(ctx, true, reason, n, message)
}

func reject(ctx context.Context, dataPoints bool, reason string, n int64, message string) {
	r, ok := ctx.Value(contextKey{}).(*Report)
	if !ok || n <= 0 {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.dataPoints = r.dataPoints || dataPoints
	for i := range r.reasons {
		if rj := &r.reasons[i]; rj.reason == reason {
			if n > rj.spans {
				rj.spans, rj.message = n, message
			}
			return
		}
	}
	r.reasons = append(r.reasons, rejection{reason: reason, spans: n, message: message})
}

// Rejected returns the spans rejected so far and the message (the
// messages of every reason, joined by "; ").
func (r *Report) Rejected() (int64, string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	var n int64
	msgs := make([]string, 0, len(r.reasons))
	for _, rj := range r.reasons {
		n += rj.spans
		msgs = append(msgs, rj.message)
	}
	return n, strings.Join(msgs, "; ")
}

// The gRPC methods of OTLP trace and metrics exports.
const (
	traceExportMethod   = "/opentelemetry.proto.collector.trace.v1.TraceService/Export"
	metricsExportMethod = "/opentelemetry.proto.collector.metrics.v1.MetricsService/Export"
)

// exportResponse is an OTLP export response of either signal, as the
// middleware rewrites it.
type exportResponse interface {
	UnmarshalProto([]byte) error
	MarshalProto() ([]byte, error)
	UnmarshalJSON([]byte) error
	MarshalJSON() ([]byte, error)
	// merge adds n rejected items and msg to the partial success.
	merge(n int64, msg string)
}

type traceResponse struct{ ptraceotlp.ExportResponse }

func (r traceResponse) merge(n int64, msg string) {
	ps := r.PartialSuccess()
	ps.SetRejectedSpans(ps.RejectedSpans() + n)
	ps.SetErrorMessage(joinMessage(ps.ErrorMessage(), msg))
}

type metricsResponse struct{ pmetricotlp.ExportResponse }

func (r metricsResponse) merge(n int64, msg string) {
	ps := r.PartialSuccess()
	ps.SetRejectedDataPoints(ps.RejectedDataPoints() + n)
	ps.SetErrorMessage(joinMessage(ps.ErrorMessage(), msg))
}

// newResponse returns an empty export response of the signal: metrics
// when dataPoints.
func newResponse(dataPoints bool) exportResponse {
	if dataPoints {
		return metricsResponse{pmetricotlp.NewExportResponse()}
	}
	return traceResponse{ptraceotlp.NewExportResponse()}
}

// joinMessage appends msg to a partial success's message prev.
func joinMessage(prev, msg string) string {
	if prev == "" {
		return msg
	}
	return prev + "; " + msg
}

// otlpMessage is what the collector's internal OTLP gRPC messages
// implement (the interface of pdata's gRPC codec).
type otlpMessage interface {
	SizeProto() int
	MarshalProto([]byte) int
	UnmarshalProto([]byte) error
}

// UnaryServerInterceptor reports rejected spans and data points in the
// partial_success of successful OTLP/gRPC trace and metrics exports.
func UnaryServerInterceptor(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
	if info == nil || (info.FullMethod != traceExportMethod && info.FullMethod != metricsExportMethod) {
		return handler(ctx, req)
	}
	ctx, rep := NewContext(ctx)
	resp, err := handler(ctx, req)
	n, msg := rep.Rejected()
	if err != nil || n == 0 {
		return resp, err
	}
	m, ok := resp.(otlpMessage)
	if !ok {
		return resp, nil
	}
	buf := make([]byte, m.SizeProto())
	buf = buf[:m.MarshalProto(buf)]
	out := newResponse(info.FullMethod == metricsExportMethod)
	if err := out.UnmarshalProto(buf); err != nil {
		return resp, nil
	}
	out.merge(n, msg)
	enc, err := out.MarshalProto()
	if err != nil {
		return resp, nil
	}
	if err := m.UnmarshalProto(enc); err != nil {
		return resp, nil
	}
	return resp, nil
}

// HTTPHandler reports rejected spans and data points in the partial_success
// of successful OTLP/HTTP trace and metrics exports (protobuf or JSON, as
// the receiver answered).
// Answers without rejections pass through unbuffered.
func HTTPHandler(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx, rep := NewContext(r.Context())
		rw := &responseWriter{ResponseWriter: w, report: rep}
		next.ServeHTTP(rw, r.WithContext(ctx))
		if rw.buffering {
			rw.flush()
		}
	})
}

// responseWriter buffers a 200 answer when spans were rejected by the time
// the receiver writes its header (the pipeline has run by then), so that
// flush can rewrite it.
type responseWriter struct {
	http.ResponseWriter
	report      *Report
	wroteHeader bool
	buffering   bool
	buf         bytes.Buffer
}

func (w *responseWriter) WriteHeader(code int) {
	if w.wroteHeader {
		return
	}
	w.wroteHeader = true
	if n, _ := w.report.Rejected(); code == http.StatusOK && n > 0 {
		w.buffering = true
		return
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *responseWriter) Write(b []byte) (int, error) {
	if !w.wroteHeader {
		w.WriteHeader(http.StatusOK)
	}
	if w.buffering {
		return w.buf.Write(b)
	}
	return w.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach the underlying writer.
func (w *responseWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// flush writes the buffered answer with the rejections merged in. An
// answer it cannot decode is written unchanged.
func (w *responseWriter) flush() {
	n, msg := w.report.Rejected()
	w.report.mu.Lock()
	dataPoints := w.report.dataPoints
	w.report.mu.Unlock()
	body := w.buf.Bytes()
	mediaType, _, _ := mime.ParseMediaType(w.Header().Get("Content-Type"))
	resp := newResponse(dataPoints)
	var out []byte
	var err error
	switch mediaType {
	case "application/x-protobuf":
		if err = resp.UnmarshalProto(body); err == nil {
			resp.merge(n, msg)
			out, err = resp.MarshalProto()
		}
	case "application/json":
		if err = resp.UnmarshalJSON(body); err == nil {
			resp.merge(n, msg)
			out, err = resp.MarshalJSON()
		}
	default:
		err = http.ErrNotSupported
	}
	if err != nil {
		out = body
	}
	w.Header().Set("Content-Length", strconv.Itoa(len(out)))
	w.ResponseWriter.WriteHeader(http.StatusOK)
	_, _ = w.ResponseWriter.Write(out)
}
