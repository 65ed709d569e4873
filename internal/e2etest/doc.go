// Package e2etest holds evalcol's end-to-end tests: a real collector
// (internal/testcollector) fed by the real OTel Go SDK exporters and read
// back through the real /v2 HTTP API.
package e2etest
