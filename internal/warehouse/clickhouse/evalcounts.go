package clickhouse

import (
	"context"
	"fmt"

	"github.com/evalcol/evalcol/internal/warehouse"
	"github.com/evalcol/evalcol/internal/warehouse/sqlfilter"
)

// Evaluation counts (warehouse.EvaluationCounter):
// evaluation_counts is a SummingMergeTree keyed like SQLite's table
// (environment, width, bucket, evaluator, verdict, workflow, monitor_id,
// bin) whose n and total the server sums in merges; a write inserts its
// changes (negative ones for results an append replaced), readers sum
// them. It is partitioned by the week of its rows' start like spans by
// theirs, so retention drops (or expires by TTL) the same weeks of both.
// monitor_last_evaluations is a ReplacingMergeTree that keeps the highest
// last_ms per (environment, monitor_id); readers take max(last_ms).
//
// The counts are inserted after the spans (or appended rows): ClickHouse
// has no transaction, so a failure between the two inserts leaves that
// write's results uncounted (a retried export finds its spans stored and
// skips them).

// writeEvaluationCounts inserts the changes of c.
func (s *Store) writeEvaluationCounts(ctx context.Context, c *warehouse.EvaluationCountChanges) error {
	if len(c.Rows) > 0 {
		var (
			envs, evs, verdicts, flows, monitors []string
			widths, buckets, bins, ns            []int64
			totals                               []float64
		)
		for r, d := range c.Rows {
			if d.N == 0 && d.Sum == 0 {
				continue
			}
			envs, evs, verdicts = append(envs, r.Environment), append(evs, r.Evaluator), append(verdicts, r.Verdict)
			flows, monitors = append(flows, r.Workflow), append(monitors, r.MonitorID)
			widths, buckets, bins = append(widths, r.Width), append(buckets, r.Bucket), append(bins, int64(r.Bin))
			ns, totals = append(ns, d.N), append(totals, d.Sum)
		}
		if len(envs) > 0 {
			if err := s.insertColumns(ctx, "evaluation counts", "evaluation_counts",
				"environment, width, bucket, evaluator, verdict, workflow, monitor_id, bin, n, total",
				[]any{envs, widths, buckets, evs, verdicts, flows, monitors, bins, ns, totals}); err != nil {
				return err
			}
		}
	}
	if len(c.Last) > 0 {
		var envs, ids []string
		var last []int64
		for id, ms := range c.Last {
			envs, ids, last = append(envs, id[0]), append(ids, id[1]), append(last, ms)
		}
		if err := s.insertColumns(ctx, "last evaluations", "monitor_last_evaluations", "environment, monitor_id, last_ms",
			[]any{envs, ids, last}); err != nil {
			return err
		}
	}
	return nil
}

// insertColumns inserts one batch of columns into table.
func (s *Store) insertColumns(ctx context.Context, what, table, cols string, data []any) error {
	batch, err := s.conn.PrepareBatch(s.writeCtx(ctx), "INSERT INTO "+s.schema.table(table)+" ("+cols+")")
	if err != nil {
		return fmt.Errorf("%s: prepare: %w", what, mapErr(err))
	}
	for i, d := range data {
		if err := batch.Column(i).Append(d); err != nil {
			batch.Abort()
			return fmt.Errorf("%s: column %d: %w", what, i, mapErr(err))
		}
	}
	if err := batch.Send(); err != nil {
		return fmt.Errorf("%s: send: %w", what, mapErr(err))
	}
	return nil
}

// countSpans inserts the counts of the evaluations of spans (just
// stored).
func (s *Store) countSpans(ctx context.Context, spans []warehouse.Span) error {
	var c warehouse.EvaluationCountChanges
	for i := range spans {
		c.AddSpan(&spans[i], spans[i].Evaluations, 1)
	}
	if err := s.writeEvaluationCounts(ctx, &c); err != nil {
		return fmt.Errorf("write spans: %w", err)
	}
	return nil
}

var _ warehouse.EvaluationCounter = (*Store)(nil)

// CountEvaluations answers q from evaluation_counts (hour rows when q's
// buckets and start are whole hours, else minute rows).
func (s *Store) CountEvaluations(ctx context.Context, q warehouse.EvaluationCountQuery) ([]warehouse.EvaluationCount, error) {
	if err := q.Validate(); err != nil {
		return nil, err
	}
	if err := s.ready(ctx, "count evaluations"); err != nil {
		return nil, err
	}
	w := warehouse.CountWidth(q.FromMs, q.BucketMs)
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
	if len(q.Evaluators) > 0 {
		where.In("evaluator", q.Evaluators)
	}
	rows, err := s.conn.Query(ctx, "SELECT "+bucket+" AS b, evaluator, verdict, workflow, monitor_id, bin, sum(n) AS sn, sum(total)"+
		" FROM "+s.schema.table("evaluation_counts")+" WHERE "+where.SQL()+
		" GROUP BY b, evaluator, verdict, workflow, monitor_id, bin HAVING sn != 0", append(args, where.Args...)...)
	if err != nil {
		return nil, fmt.Errorf("count evaluations: %w", mapErr(err))
	}
	defer rows.Close()
	var out []warehouse.EvaluationCount
	for rows.Next() {
		var c warehouse.EvaluationCount
		var bin int64
		if err := rows.Scan(&c.Bucket, &c.Evaluator, &c.Verdict, &c.Workflow, &c.MonitorID, &bin, &c.N, &c.Sum); err != nil {
			return nil, fmt.Errorf("count evaluations: %w", mapErr(err))
		}
		c.Bin, c.Environment = int(bin), q.Environment
		out = append(out, c)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("count evaluations: %w", mapErr(err))
	}
	return out, nil
}

// LastEvaluations reads monitor_last_evaluations.
func (s *Store) LastEvaluations(ctx context.Context, env string, monitorIDs []string) (map[string]int64, error) {
	out := map[string]int64{}
	if len(monitorIDs) == 0 {
		return out, nil
	}
	if err := s.ready(ctx, "last evaluations"); err != nil {
		return nil, err
	}
	var where sqlfilter.Where
	where.Add("environment = ?", env)
	where.In("monitor_id", monitorIDs)
	rows, err := s.conn.Query(ctx, "SELECT monitor_id, max(last_ms) FROM "+s.schema.table("monitor_last_evaluations")+
		" WHERE "+where.SQL()+" GROUP BY monitor_id", where.Args...)
	if err != nil {
		return nil, fmt.Errorf("last evaluations: %w", mapErr(err))
	}
	defer rows.Close()
	for rows.Next() {
		var id string
		var ms int64
		if err := rows.Scan(&id, &ms); err != nil {
			return nil, fmt.Errorf("last evaluations: %w", mapErr(err))
		}
		out[id] = ms
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("last evaluations: %w", mapErr(err))
	}
	return out, nil
}
