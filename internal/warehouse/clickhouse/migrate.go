package clickhouse

import (
	"context"
	"fmt"
	"strings"
)

// schema renders table names and DDL for one database, on one server or
// on a cluster.
type schema struct {
	db      string
	cluster string
}

func newSchema(db, cluster string) schema { return schema{db: db, cluster: cluster} }

// table is the qualified name queries and inserts use: on a cluster, the
// Distributed table in front of the shards.
func (sc schema) table(name string) string { return "`" + sc.db + "`." + name }

// onCluster is the ON CLUSTER clause of DDL ("" on one server).
func (sc schema) onCluster() string {
	if sc.cluster == "" {
		return ""
	}
	return " ON CLUSTER " + sc.cluster
}

// tableDef is one table: columns, a MergeTree engine family member and
// its keys; shardKey spreads rows over the shards of a cluster (rows that
// must replace each other share it).
type tableDef struct {
	name      string
	columns   string
	engine    string // "MergeTree" or "ReplacingMergeTree"
	engineArg string // the version column of ReplacingMergeTree
	partition string
	orderBy   string
	shardKey  string
	settings  string
}

// create returns the statements creating t: one CREATE TABLE on a single
// server; on a cluster a replicated <name>_local table on every node and
// a Distributed <name> in front of them.
func (sc schema) create(t tableDef) []string {
	partition := ""
	if t.partition != "" {
		partition = " PARTITION BY " + t.partition
	}
	settings := ""
	if t.settings != "" {
		settings = " SETTINGS " + t.settings
	}
	if sc.cluster == "" {
		return []string{fmt.Sprintf("CREATE TABLE IF NOT EXISTS %s (%s) ENGINE = %s(%s)%s ORDER BY (%s)%s",
			sc.table(t.name), t.columns, t.engine, t.engineArg, partition, t.orderBy, settings)}
	}
	args := fmt.Sprintf("'/clickhouse/tables/{shard}/%s/%s', '{replica}'", sc.db, t.name)
	if t.engineArg != "" {
		args += ", " + t.engineArg
	}
	local := sc.table(t.name + "_local")
	return []string{
		fmt.Sprintf("CREATE TABLE IF NOT EXISTS %s%s (%s) ENGINE = Replicated%s(%s)%s ORDER BY (%s)%s",
			local, sc.onCluster(), t.columns, t.engine, args, partition, t.orderBy, settings),
		fmt.Sprintf("CREATE TABLE IF NOT EXISTS %s%s AS %s ENGINE = Distributed(%s, %s, %s_local, %s)",
			sc.table(t.name), sc.onCluster(), local, sc.cluster, sc.db, t.name, t.shardKey),
	}
}

// migration is one versioned schema step; a step recorded in
// schema_migrations never runs again, and every statement is idempotent
// (IF NOT EXISTS), so collectors starting at the same time may run the
// same step twice without harm.
type migration struct {
	version int
	name    string
	tables  []tableDef
}

// Columns shared knowledge: timestamps are Int64 Unix ms; seq is the
// insertion sequence number (see seqClock); ver = maxInt64 - seq makes
// ReplacingMergeTree keep the first insertion of a row.
var migrations = []migration{
	{1, "spans", []tableDef{{
		name: "spans",
		columns: `environment String, timestamp Int64, seq Int64, ver UInt64,
			duration Int64, total_tokens Int64,
			trace_id String, span_id String, parent_span_id String, trace_state String,
			span_name String, span_kind String, service_name String, scope_name String, scope_version String,
			status_code String, status_message String,
			workflow_name String, entity_name String, agent_name String,
			request_model String, response_model String, vendor String,
			resource_keys Array(String), resource_values Array(String),
			attr_keys Array(String), attr_values Array(String),
			prompt_keys Array(String), prompt_values Array(String),
			completion_keys Array(String), completion_values Array(String),
			input String, output String, evaluations String`,
		engine: "ReplacingMergeTree", engineArg: "ver",
		// A span is (environment, trace_id, span_id); a re-sent span has
		// the same timestamp, so the sort key both serves time-range
		// scans and identifies duplicates.
		partition: "intDiv(timestamp, 604800000)",
		orderBy:   "environment, timestamp, trace_id, span_id",
		shardKey:  "sipHash64(environment, trace_id)",
		// Spans are wide (attribute arrays): small granules keep the
		// rows read for a narrow time range few.
		settings: "index_granularity = 1024",
	}}},
	{2, "metric_points", []tableDef{{
		name: "metric_points",
		columns: `environment String, organization_id String, metric_name String, source String,
			event_time Int64, seq Int64, ver UInt64,
			bool_value Nullable(UInt8), numeric_value Nullable(Float64), enum_value Nullable(String),
			trace_id String, span_id String,
			label_keys Array(String), label_values Array(String),
			attr_keys Array(String), attr_values Array(String),
			identity UInt64`,
		engine: "ReplacingMergeTree", engineArg: "ver",
		// identity hashes the labels and attributes (sorted), the rest of
		// a point's identity is in the key.
		partition: "intDiv(event_time, 604800000)",
		orderBy:   "environment, event_time, metric_name, source, trace_id, span_id, identity",
		shardKey:  "sipHash64(environment, trace_id)",
		settings:  "index_granularity = 1024",
	}}},
	{3, "monitor_setups", []tableDef{{
		name: "monitor_setups",
		columns: `environment String, id String, row_ver Int64, deleted UInt8, created_seq Int64,
			external_id String, project_id String, entity_type String, entity_value String, status String,
			version Int64, body String`,
		engine: "ReplacingMergeTree", engineArg: "row_ver",
		orderBy:  "environment, id",
		shardKey: "sipHash64(environment, id)",
	}}},
	{4, "span_traces", []tableDef{spanTracesTable}},
}

// spanTracesTable is the trace index: for every (environment, trace_id)
// of a WriteSpans batch, the time range its spans cover. A trace_id
// filter first reads the trace's range from here by primary key, then
// reads spans only within it (spans are sorted by time, not trace).
// WriteSpans inserts here before the spans, so every stored span's
// timestamp is covered; rows of re-sent batches are equal and collapse.
var spanTracesTable = tableDef{
	name:      "span_traces",
	columns:   "environment String, trace_id String, min_ts Int64, max_ts Int64",
	engine:    "ReplacingMergeTree",
	partition: "intDiv(min_ts, 604800000)",
	orderBy:   "environment, trace_id, min_ts, max_ts",
	// The same shard as the trace's spans.
	shardKey: "sipHash64(environment, trace_id)",
	// Lookups read one granule per part: keep granules small.
	settings: "index_granularity = 256",
}

// migrate creates the database and schema_migrations and applies the
// migrations not yet recorded.
func (s *Store) migrate(ctx context.Context) error {
	sc := s.schema
	if err := s.conn.Exec(ctx, "CREATE DATABASE IF NOT EXISTS `"+sc.db+"`"+sc.onCluster()); err != nil {
		return fmt.Errorf("create database %s: %w", sc.db, err)
	}
	for _, stmt := range sc.create(tableDef{name: "schema_migrations",
		columns: "version UInt32, name String, applied_at DateTime DEFAULT now()",
		engine:  "MergeTree", orderBy: "version", shardKey: "version"}) {
		if err := s.conn.Exec(ctx, stmt); err != nil {
			return fmt.Errorf("create schema_migrations: %w", err)
		}
	}
	applied := map[int]bool{}
	rows, err := s.conn.Query(ctx, "SELECT DISTINCT version FROM "+sc.table("schema_migrations"))
	if err != nil {
		return fmt.Errorf("read schema_migrations: %w", err)
	}
	for rows.Next() {
		var v uint32
		if err := rows.Scan(&v); err != nil {
			rows.Close()
			return fmt.Errorf("read schema_migrations: %w", err)
		}
		applied[int(v)] = true
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("read schema_migrations: %w", err)
	}
	for _, m := range migrations {
		if applied[m.version] {
			continue
		}
		for _, t := range m.tables {
			for _, stmt := range sc.create(t) {
				if err := s.conn.Exec(ctx, stmt); err != nil {
					return fmt.Errorf("migration %d (%s): %s: %w", m.version, m.name, firstLine(stmt), err)
				}
			}
		}
		batch, err := s.conn.PrepareBatch(ctx, "INSERT INTO "+sc.table("schema_migrations")+" (version, name)")
		if err != nil {
			return fmt.Errorf("migration %d (%s): record: %w", m.version, m.name, err)
		}
		if err := batch.Append(uint32(m.version), m.name); err != nil {
			batch.Abort()
			return fmt.Errorf("migration %d (%s): record: %w", m.version, m.name, err)
		}
		if err := batch.Send(); err != nil {
			return fmt.Errorf("migration %d (%s): record: %w", m.version, m.name, err)
		}
	}
	return nil
}

// SchemaVersion returns the highest applied schema migration.
func (s *Store) SchemaVersion(ctx context.Context) (int, error) {
	if err := s.ready(ctx, "schema version"); err != nil {
		return 0, err
	}
	var v uint32
	if err := s.conn.QueryRow(ctx, "SELECT max(version) FROM "+s.schema.table("schema_migrations")).Scan(&v); err != nil {
		return 0, fmt.Errorf("schema version: %w", mapErr(err))
	}
	return int(v), nil
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}
