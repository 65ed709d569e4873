// Package evalapiextension is the evalapi extension: it owns the warehouse
// handle, serves evalcol's Traceloop-compatible /v2 REST API over HTTP and
// authenticates API keys, for the REST API and, as an extensionauth.Server,
// for the OTLP receivers.
package evalapiextension
