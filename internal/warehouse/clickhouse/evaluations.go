package clickhouse

import (
	"context"
	"fmt"

	"github.com/evalcol/evalcol/internal/warehouse"
	"github.com/evalcol/evalcol/internal/warehouse/sqlfilter"
)

var _ warehouse.EvaluationAppender = (*Store)(nil)

// appendChunk bounds the spans one AppendEvaluations query reads and one
// insert rewrites.
const appendChunk = 500

// AppendEvaluations adds evaluations to stored spans of env (see
// warehouse.EvaluationAppender), for the backfill of auto monitor setups.
//
// ClickHouse rows are not updated in place: the span's current row (read
// with FINAL) is inserted again with the merged evaluations, the same sort
// key and seq, and a version one above the current row's. Every reader
// then sees the new row (FINAL and merges keep the highest version; the
// second step of a span page keeps the highest version of its seq), the
// span keeps its place in running paginations (same seq), and a retried
// write of the original span still loses (lower version). A span is found
// by (timestamp, trace_id, span_id) when the entry has its timestamp, else
// through the trace index. Entries whose span is not stored are skipped;
// appending what a span already holds writes nothing.
//
// One store's calls are serialised. Two collectors appending to the same
// span at the same moment both write the same version and the later
// insert wins: the backfill of a setup runs on one collector, so this
// needs two setups backfilling the same span through two collectors at
// once.
func (s *Store) AppendEvaluations(ctx context.Context, env string, entries []warehouse.SpanEvaluations) error {
	if err := s.ready(ctx, "append evaluations"); err != nil {
		return err
	}
	s.appendMu.Lock()
	defer s.appendMu.Unlock()
	var todo []warehouse.SpanEvaluations
	for _, e := range entries {
		if len(e.Evaluations) > 0 {
			todo = append(todo, e)
		}
	}
	for len(todo) > 0 {
		chunk := todo[:min(len(todo), appendChunk)]
		todo = todo[len(chunk):]
		if err := s.appendChunk(ctx, env, chunk); err != nil {
			return fmt.Errorf("append evaluations: %w", err)
		}
	}
	return nil
}

// storedRow is the current row of a span: the span, its seq and version.
type storedRow struct {
	span warehouse.Span
	seq  int64
	ver  uint64
}

// spanRef identifies a stored span of one environment.
type spanRef struct {
	traceID, spanID string
	timestamp       int64
}

func (s *Store) appendChunk(ctx context.Context, env string, entries []warehouse.SpanEvaluations) error {
	rows, err := s.currentRows(ctx, env, entries)
	if err != nil {
		return err
	}
	// The rows to write, by span: an entry for a span that an earlier
	// entry of the chunk changed builds on that change.
	changed := map[spanRef]*storedRow{}
	var order []spanRef
	for _, e := range entries {
		ref, ok := findRow(rows, e)
		if !ok {
			continue
		}
		row := changed[ref]
		if row == nil {
			r := rows[ref]
			row = &r
		}
		before := warehouse.EncodeEvaluations(row.span.Evaluations)
		merged := warehouse.MergeEvaluations(row.span.Evaluations, e.Evaluations)
		if warehouse.EncodeEvaluations(merged) == before {
			continue
		}
		row.span.Evaluations = merged
		if changed[ref] == nil {
			changed[ref] = row
			order = append(order, ref)
		}
	}
	if len(order) == 0 {
		return nil
	}
	cols := newSpanColumnsData(len(order))
	seqs, vers := make([]int64, len(order)), make([]uint64, len(order))
	var counts warehouse.EvaluationCountChanges
	for i, ref := range order {
		row := changed[ref]
		cols.add(&row.span)
		seqs[i], vers[i] = row.seq, row.ver+1
		// rows[ref] still holds the stored results (merges copy).
		counts.AddMerge(&row.span, rows[ref].span.Evaluations, row.span.Evaluations)
	}
	if err := s.insertSpans(ctx, cols, seqs, vers); err != nil {
		return err
	}
	return s.writeEvaluationCounts(ctx, &counts)
}

// findRow returns the stored span an entry is for: the one with its
// timestamp when the entry has one, else any of its trace and span id.
func findRow(rows map[spanRef]storedRow, e warehouse.SpanEvaluations) (spanRef, bool) {
	if e.Timestamp != 0 {
		ref := spanRef{e.TraceID, e.SpanID, e.Timestamp}
		_, ok := rows[ref]
		return ref, ok
	}
	var best spanRef
	found := false
	for ref := range rows {
		// The earliest, so that the choice does not depend on map order.
		if ref.traceID == e.TraceID && ref.spanID == e.SpanID && (!found || ref.timestamp < best.timestamp) {
			best, found = ref, true
		}
	}
	return best, found
}

// currentRows reads the current (FINAL) rows of the entries' spans.
func (s *Store) currentRows(ctx context.Context, env string, entries []warehouse.SpanEvaluations) (map[spanRef]storedRow, error) {
	var timed, untimed []warehouse.SpanEvaluations
	for _, e := range entries {
		if e.Timestamp != 0 {
			timed = append(timed, e)
		} else {
			untimed = append(untimed, e)
		}
	}
	out := map[spanRef]storedRow{}
	if len(timed) > 0 {
		var w sqlfilter.Where
		w.Add("environment = ?", env)
		w.Add("timestamp IN ("+placeholders(len(timed))+")", timestamps(timed)...)
		w.In("trace_id", traceIDs(timed))
		w.In("span_id", spanIDs(timed))
		if err := s.readCurrent(ctx, w, out); err != nil {
			return nil, err
		}
	}
	if len(untimed) > 0 {
		lo, hi, found, err := s.traceRange(ctx, []string{env}, traceIDs(untimed), 0, 0)
		if err != nil {
			return nil, err
		}
		if found {
			var w sqlfilter.Where
			w.Add("environment = ?", env)
			w.Add("timestamp >= ?", lo)
			w.Add("timestamp <= ?", hi)
			w.In("trace_id", traceIDs(untimed))
			w.In("span_id", spanIDs(untimed))
			if err := s.readCurrent(ctx, w, out); err != nil {
				return nil, err
			}
		}
	}
	return out, nil
}

// readCurrent adds the current rows of the spans that w selects to out.
func (s *Store) readCurrent(ctx context.Context, w sqlfilter.Where, out map[spanRef]storedRow) error {
	rows, err := s.conn.Query(ctx, "SELECT seq, "+spanColumns+" FROM "+s.schema.table("spans")+" FINAL WHERE "+w.SQL(), w.Args...)
	if err != nil {
		return fmt.Errorf("read spans: %w", mapErr(err))
	}
	defer rows.Close()
	for rows.Next() {
		sp, seq, ver, err := scanSpanVersion(rows)
		if err != nil {
			return fmt.Errorf("read spans: %w", err)
		}
		out[spanRef{sp.TraceID, sp.SpanID, sp.Timestamp}] = storedRow{span: sp, seq: seq, ver: ver}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("read spans: %w", mapErr(err))
	}
	return nil
}

// column returns f of every entry.
func column[T any](es []warehouse.SpanEvaluations, f func(warehouse.SpanEvaluations) T) []T {
	out := make([]T, len(es))
	for i, e := range es {
		out[i] = f(e)
	}
	return out
}

func timestamps(es []warehouse.SpanEvaluations) []any {
	return column(es, func(e warehouse.SpanEvaluations) any { return e.Timestamp })
}

func traceIDs(es []warehouse.SpanEvaluations) []string {
	return column(es, func(e warehouse.SpanEvaluations) string { return e.TraceID })
}

func spanIDs(es []warehouse.SpanEvaluations) []string {
	return column(es, func(e warehouse.SpanEvaluations) string { return e.SpanID })
}
