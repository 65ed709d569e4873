// Package otlpproxy forwards the OTLP/HTTP requests posted to the evalapi
// extension's API port (POST /v1/traces, /v1/metrics, /v1/logs) to the
// collector's own OTLP/HTTP receiver, with bodies up to the receiver's own
// limit, so that an SDK configured with one base URL reaches both the API
// and the receiver.
package otlpproxy

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"

	"go.opentelemetry.io/collector/confmap"
	"go.uber.org/zap"
)

// DefaultReceiverMaxBodySize is the OTLP/HTTP receiver's
// max_request_body_size when its config does not set one (confighttp's
// default).
const DefaultReceiverMaxBodySize = 20 << 20

// Proxy forwards POST /v1/traces, /v1/metrics and /v1/logs of the API
// port to the OTLP/HTTP receiver, with bodies up to the receiver's own
// limit; a larger body is answered 413 here (the receiver would answer it
// 400, which reads like a malformed request).
type Proxy struct {
	target string
	proxy  *httputil.ReverseProxy
	logger *zap.Logger
	// limit is the largest body forwarded: otlp_proxy_max_request_body_size,
	// lowered to the receiver's max_request_body_size once the collector's
	// configuration is known.
	limit atomic.Int64
}

// New returns a proxy to the receiver at endpoint (an http(s) URL the
// configuration checked) forwarding bodies of at most limit bytes.
func New(endpoint string, limit int64, logger *zap.Logger) *Proxy {
	target, _ := url.Parse(endpoint) // checked by Validate
	p := &Proxy{target: endpoint, proxy: httputil.NewSingleHostReverseProxy(target), logger: logger}
	p.limit.Store(limit)
	p.proxy.ErrorHandler = p.failed
	return p
}

// ServeHTTP forwards one request.
func (p *Proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	limit := p.limit.Load()
	if r.ContentLength > limit {
		p.tooLarge(w, limit)
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, limit)
	p.proxy.ServeHTTP(w, r)
}

// failed answers a request the proxy could not forward: 413 when the
// (chunked) body passed the limit, 502 when the receiver is not reachable.
func (p *Proxy) failed(w http.ResponseWriter, r *http.Request, err error) {
	var tooBig *http.MaxBytesError
	if errors.As(err, &tooBig) {
		p.tooLarge(w, tooBig.Limit)
		return
	}
	p.logger.Warn("forwarding OTLP to the receiver failed", zap.String("target", p.target), zap.Error(err))
	writeProxyError(w, http.StatusBadGateway, "the OTLP receiver behind otlp_proxy_endpoint is not reachable")
}

func (p *Proxy) tooLarge(w http.ResponseWriter, limit int64) {
	writeProxyError(w, http.StatusRequestEntityTooLarge,
		fmt.Sprintf("request body exceeds the OTLP receiver's limit of %d bytes (max_request_body_size); send smaller batches", limit))
}

func writeProxyError(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = fmt.Fprintf(w, "{\"error\":%s}\n", strconv.Quote(msg))
}

// LearnReceiverLimit lowers the proxy's limit to the max_request_body_size
// of the OTLP/HTTP receiver it forwards to, found in the collector's
// effective configuration, and warns when that receiver accepts more than
// otlp_proxy_max_request_body_size (configured) lets through.
func (p *Proxy) LearnReceiverLimit(conf *confmap.Conf, configured int64) {
	limit, ok := receiverLimit(conf, p.target)
	if !ok {
		return
	}
	if limit > configured {
		p.logger.Warn("the OTLP receiver accepts larger bodies than the API port forwards; raise otlp_proxy_max_request_body_size",
			zap.Int64("receiver_max_request_body_size", limit), zap.Int64("otlp_proxy_max_request_body_size", configured))
		return
	}
	p.limit.Store(limit)
}

// receiverLimit returns the max_request_body_size of the OTLP receiver
// whose HTTP endpoint the proxy target names (same port; same host, a
// wildcard or both loopback). With several, the smallest.
func receiverLimit(conf *confmap.Conf, target string) (int64, bool) {
	u, err := url.Parse(target)
	if err != nil {
		return 0, false
	}
	port := u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[u.Scheme]
	}
	receivers, err := conf.Sub("receivers")
	if err != nil {
		return 0, false
	}
	var best int64
	found := false
	for name := range receivers.ToStringMap() {
		if typ, _, _ := strings.Cut(name, "/"); typ != "otlp" {
			continue
		}
		httpConf, err := receivers.Sub(name + confmap.KeyDelimiter + "protocols" + confmap.KeyDelimiter + "http")
		if err != nil || !receivers.IsSet(name+confmap.KeyDelimiter+"protocols"+confmap.KeyDelimiter+"http") {
			continue
		}
		endpoint, _ := httpConf.Get("endpoint").(string)
		if endpoint == "" {
			endpoint = "localhost:4318"
		}
		host, rport, err := net.SplitHostPort(endpoint)
		if err != nil || rport != port || !sameHost(host, u.Hostname()) {
			continue
		}
		limit := int64(DefaultReceiverMaxBodySize)
		if n, ok := asInt64(httpConf.Get("max_request_body_size")); ok && n > 0 {
			limit = n
		}
		if !found || limit < best {
			best, found = limit, true
		}
	}
	return best, found
}

func sameHost(a, b string) bool {
	wildcard := func(h string) bool { return h == "" || h == "0.0.0.0" || h == "::" }
	loopback := func(h string) bool {
		if h == "localhost" {
			return true
		}
		ip := net.ParseIP(h)
		return ip != nil && ip.IsLoopback()
	}
	return strings.EqualFold(a, b) || wildcard(a) || wildcard(b) || (loopback(a) && loopback(b))
}

func asInt64(v any) (int64, bool) {
	switch n := v.(type) {
	case int:
		return int64(n), true
	case int64:
		return n, true
	case uint64:
		return int64(n), true
	case float64:
		return int64(n), true
	case string:
		i, err := strconv.ParseInt(n, 10, 64)
		return i, err == nil
	}
	return 0, false
}
