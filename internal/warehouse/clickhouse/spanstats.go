package clickhouse

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"github.com/pressly/goose/v3"

	"github.com/evalcol/evalcol/internal/warehouse"
	"github.com/evalcol/evalcol/internal/warehouse/sqlfilter"
)

// Span stats (warehouse.SpanStatter), migration 00014: span_stats is a
// SummingMergeTree keyed like SQLite's table (environment, width, bucket,
// workflow, model, bin) whose counts the server sums in merges; a write
// inserts the stats of the spans it stored (WriteSpans goes the way of
// WriteSpansReport, which skips the spans already stored, so a resend
// counts nothing), readers sum them. It is partitioned by the week of its
// rows' start like spans by theirs, so retention drops (or expires by
// TTL) the same weeks of both. As for the evaluation counts, the stats
// are inserted after the spans: a failure between the two inserts leaves
// that write's spans uncounted.

// spanStatsDDL creates the table (a template, as the schema files are).
const spanStatsDDL = `CREATE TABLE IF NOT EXISTS {{table "span_stats"}} (
	environment String, width Int64, bucket Int64, workflow String, model String, bin Int64,
	n Int64, errors Int64, input_tokens Int64, output_tokens Int64
) ENGINE = {{engine "SummingMergeTree" "span_stats" ""}} PARTITION BY intDiv(bucket, 604800000)
ORDER BY (environment, width, bucket, workflow, model, bin);
{{distributed "span_stats" "sipHash64(environment)"}}
`

// spanStatsMigration is migration 00014: the table, then the stats of the
// spans stored, read from the current (FINAL) spans. Collectors that
// start together on a store with spans may both fill: the stats are then
// doubled (start one collector first).
func (s *Store) spanStatsMigration() *goose.Migration {
	m := goose.NewGoMigration(14, &goose.GoFunc{RunDB: func(ctx context.Context, db *sql.DB) error {
		ddl, err := s.schema.render("00014_span_stats", spanStatsDDL)
		if err != nil {
			return err
		}
		for _, stmt := range strings.Split(ddl, ";\n") {
			if strings.TrimSpace(stmt) == "" {
				continue
			}
			if _, err := db.ExecContext(ctx, stmt); err != nil {
				return fmt.Errorf("create: %w", err)
			}
		}
		return s.fillSpanStats(ctx)
	}}, nil)
	m.Source = "00014_span_stats.go"
	return m
}

// spanStatsSixHoursMigration is migration 00015: the six-hour rows of
// span_stats (warehouse.StatSixHours), summed in the server from its hour
// rows, unless the table has six-hour rows already (migration 00014 ran
// with this code's writer, which keeps them). Like 00014 it runs once per
// store: start one collector of the new build first; a collector of an
// older build still writing meanwhile leaves its spans out of the
// six-hour rows.
func (s *Store) spanStatsSixHoursMigration() *goose.Migration {
	m := goose.NewGoMigration(15, &goose.GoFunc{RunDB: func(ctx context.Context, _ *sql.DB) error {
		return s.fillSixHourStats(ctx)
	}}, nil)
	m.Source = "00015_span_stats_six_hours.go"
	return m
}

// fillSixHourStats inserts the six-hour rows of span_stats, the sums of
// its hour rows, unless it holds six-hour rows.
func (s *Store) fillSixHourStats(ctx context.Context) error {
	table := s.schema.table("span_stats")
	var n uint64
	if err := s.conn.QueryRow(ctx, "SELECT count() FROM "+table+" WHERE width = ?", warehouse.StatSixHours).Scan(&n); err != nil {
		return fmt.Errorf("six-hour rows: %w", mapErr(err))
	}
	if n > 0 {
		return nil
	}
	const w = warehouse.StatSixHours
	if err := s.conn.Exec(ctx, fmt.Sprintf(`INSERT INTO %s (environment, width, bucket, workflow, model, bin, n, errors, input_tokens, output_tokens)
		SELECT environment, toInt64(%d), bucket - ((bucket %% %d) + %d) %% %d AS b, workflow, model, bin,
			sum(n) AS sn, sum(errors), sum(input_tokens), sum(output_tokens)
		FROM %s WHERE width = %d GROUP BY environment, b, workflow, model, bin HAVING sn != 0`,
		table, w, w, w, w, table, warehouse.CountHour)); err != nil {
		return fmt.Errorf("six-hour rows: %w", mapErr(err))
	}
	return nil
}

// fillSpanStats counts the stored spans in one pass over them (their
// token attributes only), inserting every 100 000 rows of changes.
func (s *Store) fillSpanStats(ctx context.Context) error {
	rows, err := s.conn.Query(ctx, "SELECT environment, timestamp, duration, status_code, workflow_name, request_model, response_model,"+
		" arrayFilter(k -> position(k, 'token') > 0, attr_keys) AS tk, arrayFilter((v, k) -> position(k, 'token') > 0, attr_values, attr_keys)"+
		" FROM "+s.schema.table("spans")+" FINAL")
	if err != nil {
		return fmt.Errorf("fill: %w", mapErr(err))
	}
	defer rows.Close()
	var c warehouse.SpanStatChanges
	for rows.Next() {
		var sp warehouse.Span
		var keys, vals []string
		if err := rows.Scan(&sp.Environment, &sp.Timestamp, &sp.Duration, &sp.StatusCode, &sp.WorkflowName,
			&sp.RequestModel, &sp.ResponseModel, &keys, &vals); err != nil {
			return fmt.Errorf("fill: %w", mapErr(err))
		}
		sp.SpanAttributes = make(map[string]string, len(keys))
		for i := range min(len(keys), len(vals)) {
			sp.SpanAttributes[keys[i]] = vals[i]
		}
		c.AddSpan(&sp, 1)
		if len(c.Rows) > 100000 {
			if err := s.writeSpanStats(ctx, &c); err != nil {
				return fmt.Errorf("fill: %w", err)
			}
			c = warehouse.SpanStatChanges{}
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("fill: %w", mapErr(err))
	}
	if err := s.writeSpanStats(ctx, &c); err != nil {
		return fmt.Errorf("fill: %w", err)
	}
	return nil
}

// writeSpanStats inserts the changes of c.
func (s *Store) writeSpanStats(ctx context.Context, c *warehouse.SpanStatChanges) error {
	var (
		envs, flows, models                        []string
		widths, buckets, bins, ns, errs, ins, outs []int64
	)
	for r, d := range c.Rows {
		if d.Zero() {
			continue
		}
		envs, flows, models = append(envs, r.Environment), append(flows, r.Workflow), append(models, r.Model)
		widths, buckets, bins = append(widths, r.Width), append(buckets, r.Bucket), append(bins, int64(r.Bin))
		ns, errs, ins, outs = append(ns, d.N), append(errs, d.Errors), append(ins, d.InputTokens), append(outs, d.OutputTokens)
	}
	if len(envs) == 0 {
		return nil
	}
	return s.insertColumns(ctx, "span stats", "span_stats",
		"environment, width, bucket, workflow, model, bin, n, errors, input_tokens, output_tokens",
		[]any{envs, widths, buckets, flows, models, bins, ns, errs, ins, outs})
}

var _ warehouse.SpanStatter = (*Store)(nil)

// SpanStats answers q from span_stats: the widest rows that q's buckets
// and start are made of (warehouse.SpanStatWidth: six hours for the
// 7-day view, since migration 00015), summed (the server's parts may not
// be merged yet).
func (s *Store) SpanStats(ctx context.Context, q warehouse.SpanStatQuery) ([]warehouse.SpanStat, error) {
	if err := q.Validate(); err != nil {
		return nil, err
	}
	if err := s.ready(ctx, "span stats"); err != nil {
		return nil, err
	}
	w := q.Width()
	bucket := "toInt64(?)"
	args := []any{q.FromMs}
	if q.BucketMs > 0 {
		bucket = "greatest(toInt64(?), toInt64(?) + intDiv(bucket - ?, ?) * ?)"
		args = []any{q.FromMs, q.FromMs, q.FromMs, q.BucketMs, q.BucketMs}
	}
	var where sqlfilter.Where
	where.Add("environment = ?", q.Environment)
	where.Add("width = ?", w)
	where.Add("bucket >= ?", q.FromMs-q.FromMs%w)
	where.Add("bucket <= ?", q.ToMs)
	if q.Workflow != "" {
		where.Add("workflow = ?", q.Workflow)
	}
	if q.Model != "" {
		where.Add("model = ?", q.Model)
	}
	rows, err := s.conn.Query(ctx, "SELECT "+bucket+" AS b, workflow, model, bin, sum(n) AS sn, sum(errors), sum(input_tokens), sum(output_tokens)"+
		" FROM "+s.schema.table("span_stats")+" WHERE "+where.SQL()+
		" GROUP BY b, workflow, model, bin HAVING sn != 0", append(args, where.Args...)...)
	if err != nil {
		return nil, fmt.Errorf("span stats: %w", mapErr(err))
	}
	defer rows.Close()
	var out []warehouse.SpanStat
	for rows.Next() {
		var st warehouse.SpanStat
		var bin int64
		if err := rows.Scan(&st.Bucket, &st.Workflow, &st.Model, &bin, &st.N, &st.Errors, &st.InputTokens, &st.OutputTokens); err != nil {
			return nil, fmt.Errorf("span stats: %w", mapErr(err))
		}
		st.Bin, st.Environment = int(bin), q.Environment
		out = append(out, st)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("span stats: %w", mapErr(err))
	}
	return out, nil
}
