// Package warehouse is evalcol's storage layer: the span and metric-point
// model, the Store interface every backend implements, the parsing of the
// /v2 span and metric query parameters into backend-independent queries, and
// the cursors that page through them.
//
// Backends live in sub-packages (sqlite, clickhouse); storetest holds
// the conformance suite each backend runs. See README.md for the query
// semantics (filter fields, operators, cursors, limits).
package warehouse
