// Package evaluators is evalcol's evaluator library: a catalogue of the 35
// evaluators of the /v2 API, the 18 of its interface and the 17 other
// prebuilt slugs of Traceloop's SDKs (slug, category, input, config and
// output schemas), request validation driven by that catalogue, and one
// implementation per evaluator.
//
// The package is pure Go and never imports the collector. Everything an
// evaluator needs (compiled regexes, lexicons, trained models) is embedded
// and loaded once; every evaluator is safe for concurrent use.
package evaluators
