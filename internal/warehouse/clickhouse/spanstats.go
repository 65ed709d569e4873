package clickhouse

import (
	"context"
	"fmt"

	"github.com/evalcol/evalcol/internal/warehouse"
	"github.com/evalcol/evalcol/internal/warehouse/sqlfilter"
)

// Span stats (warehouse.SpanStatter): span_stats is a
// SummingMergeTree keyed like SQLite's table (environment, width, bucket,
// workflow, model, bin) whose counts the server sums in merges; a write
// inserts the stats of the spans it stored (WriteSpans goes the way of
// WriteSpansReport, which skips the spans already stored, so a resend
// counts nothing), readers sum them. It is partitioned by the week of its
// rows' start like spans by theirs, so retention drops (or expires by
// TTL) the same weeks of both. As for the evaluation counts, the stats
// are inserted after the spans: a failure between the two inserts leaves
// that write's spans uncounted.

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
