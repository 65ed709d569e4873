// Package sqlite is the embedded warehouse backend: one SQLite file in WAL
// mode (pure Go, modernc.org/sqlite), a single writer connection and a pool
// of read-only connections. See ../README.md for the schema, the query
// plans and the measured speed.
//
// The pure part of its index engine is package sqlite/internal/index:
// posting keys and hashes, posting ranges and filters (the SQL of their
// lists), sort index buckets, the cost model and the planners
// (index.PlanSpans, index.PlanPoints), which choose a read's access from
// statistics and return a printable plan. This package holds
// the store (open, migrations, documents, setups, orgs, retention), the
// writer (spans.go, metrics.go and the index writes), and the reads: they
// gather the planners' statistics in the read transaction (spanplan.go
// planSpans, pointplan.go planPoints) and execute the plans.
package sqlite
