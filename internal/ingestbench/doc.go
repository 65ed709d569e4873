// Package ingestbench holds benchmarks of the collector's per-request path
// around the evaluators and the warehouse writer, on load-test spans: OTLP
// decoding, the tenant stamp, the evaluator processor, the conversion to
// warehouse rows and their encoding (warehouse.Preparer). Only its tests
// have code.
package ingestbench
