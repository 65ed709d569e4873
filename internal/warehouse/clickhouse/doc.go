// Package clickhouse is the warehouse backend that several evalcol
// collectors share: spans, metric points and monitor setups in one
// ClickHouse database (or cluster), through the native protocol of
// github.com/ClickHouse/clickhouse-go/v2. The schema runs on ClickHouse
// 18.16 (Debian's): parallel Array(String) key/value columns instead of
// Map, Int64 millisecond timestamps, ReplacingMergeTree for idempotent
// writes. It passes the storetest conformance suite; see README.md for the
// schema, the paging snapshot and the known limits.
package clickhouse
