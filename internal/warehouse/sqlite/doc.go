// Package sqlite is the embedded warehouse backend: one SQLite file in WAL
// mode (pure Go, modernc.org/sqlite), a single writer connection and a pool
// of read-only connections. See ../README.md for the schema, the query
// plans and the measured speed.
package sqlite
