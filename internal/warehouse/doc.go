// Package warehouse is evalcol's storage layer: the span and metric-point
// model, the Store interface the rest of evalcol holds, the
// backend-independent span and metric queries with their cursors, and the
// one query path (QueryPath) that runs every query over a Backend.
//
// Backends live in sub-packages (sqlite, clickhouse); storetest holds
// the conformance suite each backend runs. The /v2 wire format belongs to
// the HTTP layer (extension/evalapiextension/internal/httpapi). See
// README.md for the query semantics (filter fields, operators, cursors,
// limits).
package warehouse
