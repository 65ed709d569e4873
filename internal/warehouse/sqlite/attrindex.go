package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"maps"
	"math"
	"slices"

	"github.com/evalcol/evalcol/internal/warehouse"
	"github.com/evalcol/evalcol/internal/warehouse/sqlite/internal/index"
)

// resourceHashes returns the posting hashes of the map as a span's
// resource attributes: of each indexable value under "\x02" + key.
func (e *encodedMap) resourceHashes() []int64 { return e.postingHashes(index.ResourcePostingPrefix) }

// labelHashes returns the posting hashes of the map as a metric point's
// labels (point_postings): of each indexable value under its key, and the
// keys of those hashes, as the stored JSON spells them.
func (e *encodedMap) labelHashes() (hashes []int64, keys []string) {
	return e.postingHashes(""), e.postingKeys
}

// postingHashes returns the hashes of the map's indexable values under
// prefix + key, keys and values as the stored JSON spells them, leaving
// out reserved keys (computed once per map: a map is either a resource
// or labels); postingKeys holds their keys.
func (e *encodedMap) postingHashes(prefix string) []int64 {
	if e.postings == nil {
		e.postings = make([]int64, 0, len(e.keys))
		e.postingKeys = make([]string, 0, len(e.keys))
		for _, k := range e.keys {
			if v := index.JSONKey(e.m[k]); !index.ReservedKey(k) && index.Indexable(v) {
				stored := index.JSONKey(k)
				e.postings = append(e.postings, index.PostingHash(prefix+stored, v))
				e.postingKeys = append(e.postingKeys, stored)
			}
		}
	}
	return e.postings
}

// indexedColumns are the span columns whose values the postings hold
// besides the trace id (under the key "\x00" + column), so that equality
// filters on them find their spans and count them without a scan.
var indexedColumns = []string{"workflow_name", "entity_name", "agent_name", "service_name", "span_name",
	"request_model", "response_model", "status_code"}

// columnKeys are the posting keys of indexedColumns, in that order.
var columnKeys = func() []string {
	out := make([]string, len(indexedColumns))
	for i, c := range indexedColumns {
		out[i] = index.ColumnKey(c)
	}
	return out
}()

// columnValues returns sp's values of indexedColumns, in that order.
func columnValues(sp *warehouse.Span) [8]string {
	return [8]string{sp.WorkflowName, sp.EntityName, sp.AgentName, sp.ServiceName, sp.SpanName,
		sp.RequestModel, sp.ResponseModel, sp.StatusCode}
}

// postingList is one list of a write: offsets from the write's first
// sequence number, and the start times of their spans.
type postingList struct {
	offs, ts []int64
}

// postings collects the index entries of one WriteSpans (or
// WriteMetricPoints: the points' labels) call: for each (environment,
// hash) the offsets of its spans from the batch's first sequence number. Spans of a batch share most attribute values (models,
// users, workflows), so one row per posting list replaces many per-span
// rows.
type postings struct {
	tables index.PostingTables
	first  int64 // sequence number of offset 0
	// lists are by environment, then hash: a span looks its environment
	// up once, then each hash in a map keyed by integers.
	lists  map[string]map[int64]*postingList
	minTS  int64
	maxTS  int64
	spans  int
	maxSeq int64
}

func newPostings(tables index.PostingTables, first int64) *postings {
	return &postings{tables: tables, first: first, lists: map[string]map[int64]*postingList{}, minTS: math.MaxInt64, maxTS: math.MinInt64}
}

// The posting runs of spans (span_postings) and of metric point labels
// (point_postings).
var (
	spanPostingTables  = index.PostingTables{Runs: "posting_runs", Lists: "span_postings"}
	pointPostingTables = index.PostingTables{Runs: "point_posting_runs", Lists: "point_postings"}
)

// add indexes one span of env and start time timestamp: hashes are those
// of its trace id, indexed columns and indexable span attributes
// (prepared.hashes).
func (p *postings) add(seq int64, env string, timestamp int64, hashes []int64) {
	off := seq - p.first
	p.minTS, p.maxTS = min(p.minTS, timestamp), max(p.maxTS, timestamp)
	p.spans++
	p.maxSeq = max(p.maxSeq, seq)
	lists := p.lists[env]
	if lists == nil {
		lists = make(map[int64]*postingList, 2*len(hashes))
		p.lists[env] = lists
	}
	for _, h := range hashes {
		l := lists[h]
		if l == nil {
			l = &postingList{}
			lists[h] = l
		}
		if n := len(l.offs); n == 0 || l.offs[n-1] != off { // a hash twice in one span
			l.offs = append(l.offs, off)
			l.ts = append(l.ts, timestamp)
		}
	}
}

// Index rows: at most maxPostingLen offsets per row (rows stay well inside
// a page), indexRowsPerInsert rows per INSERT.
const (
	maxPostingLen      = 512
	indexRowsPerInsert = 100
	postingColumns     = 8
)

// write stores the lists as a new run of level 0 (see merge.go): rows
// keyed by the run, which is newer than every other, so they go to the end
// of the table, in (environment, hash) order. Each row holds base, a
// sequence number; n, the number of its spans; min_ts and max_ts, their
// earliest and latest start; and offsets, a JSON array of the row's
// sequence numbers minus base.
func (p *postings) write(ctx context.Context, tx *sql.Tx, stmts *stmtCache) error {
	if p.spans == 0 {
		return nil
	}
	var run int64
	if err := tx.QueryRowContext(ctx, p.tables.NextRunSQL()).Scan(&run); err != nil {
		return fmt.Errorf("next run: %w", err)
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO `+p.tables.Runs+` (run, level, first_seq, last_seq, min_ts, max_ts)
		VALUES (?, 0, ?, ?, ?, ?)`, run, p.first, p.maxSeq, p.minTS, p.maxTS); err != nil {
		return fmt.Errorf("posting run: %w", err)
	}
	rows := newRowInserter(tx, stmts, p.tables.InsertListsSQL(), postingColumns, indexRowsPerInsert)
	defer rows.close()
	var buf []byte
	// In (environment, hash) order: the run's rows go in key order.
	for _, env := range slices.Sorted(maps.Keys(p.lists)) {
		lists := p.lists[env]
		for _, hash := range slices.Sorted(maps.Keys(lists)) {
			if err := p.writeList(ctx, rows, run, env, hash, lists[hash], &buf); err != nil {
				return err
			}
		}
	}
	return rows.flush(ctx)
}

// writeList adds the rows of one list to rows: at most maxPostingLen
// offsets each.
func (p *postings) writeList(ctx context.Context, rows *rowInserter, run int64, env string, hash int64, list *postingList, buf *[]byte) error {
	for start := 0; start < len(list.offs); start += maxPostingLen {
		end := min(start+maxPostingLen, len(list.offs))
		offs, ts := list.offs[start:end], list.ts[start:end]
		base := offs[0]
		b := index.AppendOffsets((*buf)[:0], offs, base)
		*buf = b
		if err := rows.add(ctx, run, env, hash, p.first+base, len(offs), slices.Min(ts), slices.Max(ts),
			string(b)); err != nil {
			return err
		}
	}
	return nil
}

// postingFilters returns the filters of q that the postings answer.
func postingFilters(q warehouse.SpanQuery) []index.PostingFilter {
	var out []index.PostingFilter
	for i, f := range q.Filters {
		ref := warehouse.ResolveSpanField(f.Field)
		var key string
		switch {
		case ref.Kind == warehouse.KindColumn && ref.Column == "trace_id":
			key = index.TraceIDKey
		case ref.Kind == warehouse.KindColumn && slices.Contains(indexedColumns, ref.Column):
			key = index.ColumnKey(ref.Column)
		case ref.Kind == warehouse.KindResourceAttribute && !index.ReservedKey(ref.Key):
			if f.Operator == warehouse.OpExists {
				continue
			}
			key = index.ResourcePostingPrefix + ref.Key
		case ref.Kind == warehouse.KindSpanAttribute && !index.ReservedKey(ref.Key):
			if f.Operator == warehouse.OpExists {
				out = append(out, index.PostingFilter{Index: i, Key: index.KeyPostingPrefix + ref.Key, Values: []string{""}})
				continue
			}
			key = ref.Key
		default:
			continue
		}
		if values, ok := index.TextEqualityValues(f, 100); ok {
			out = append(out, index.PostingFilter{Index: i, Key: key, Values: values})
		}
	}
	return out
}

// hoursCTE generates the hours [?, ?] as the table hours(h), for tables
// keyed by hour first (span_values, point_counts): looked up hour by
// hour, each an equality on the key's first column.
const hoursCTE = `WITH RECURSIVE hours(h) AS (SELECT ? UNION ALL SELECT h + 1 FROM hours WHERE h < ?) `

// readPostingRange returns the range [from, to] (to 0: open) of envs in
// the runs of t: the runs that list rows of it.
func readPostingRange(ctx context.Context, tx querier, t index.PostingTables, envs []string, from, to int64) (index.PostingRange, error) {
	r := index.PostingRange{Tables: t, Envs: envs, From: from, To: to}
	query, args := `SELECT run, min_ts, max_ts FROM `+t.Runs+` WHERE max_ts >= ?`, []any{from}
	if to != 0 {
		query += ` AND min_ts <= ?`
		args = append(args, to)
	}
	rows, err := tx.QueryContext(ctx, query+` ORDER BY run`, args...)
	if err != nil {
		return r, fmt.Errorf("%s: %w", t.Runs, mapErr(err))
	}
	defer rows.Close()
	for rows.Next() {
		var run index.PostingRun
		if err := rows.Scan(&run.ID, &run.MinTS, &run.MaxTS); err != nil {
			return r, fmt.Errorf("%s: %w", t.Runs, mapErr(err))
		}
		r.Runs = append(r.Runs, run)
	}
	if err := rows.Err(); err != nil {
		return r, fmt.Errorf("%s: %w", t.Runs, mapErr(err))
	}
	return r, nil
}

// postingSums are the lengths of a filter's lists in a range: all that
// reach into it, and those wholly within it (known false: not told, as
// when no run reaches the range or the caller has not estimated).
type postingSums struct {
	reach, whole int64
	wholeKnown   bool
}

// estimatePostings returns about how many spans f's postings list in r: the sum
// of the lengths of the lists that reach into the time range, and of
// those wholly within it, which count reuses.
func estimatePostings(ctx context.Context, q querier, r index.PostingRange, f index.PostingFilter) (postingSums, error) {
	var out postingSums
	if len(r.Runs) > 0 {
		cond, args := r.RowsWhere(f)
		inner, innerArgs := r.Within()
		var n, whole sql.NullInt64
		if err := q.QueryRowContext(ctx, `SELECT sum(p.n), sum(CASE WHEN `+inner+` THEN p.n ELSE 0 END)
			FROM `+r.Tables.Lists+` AS p WHERE `+cond, append(innerArgs, args...)...).Scan(&n, &whole); err != nil {
			return out, fmt.Errorf("attribute index estimate: %w", mapErr(err))
		}
		out.reach, out.whole, out.wholeKnown = n.Int64, whole.Int64, true
	}
	return out, nil
}

// countPostings returns the spans of r that hold one of f's values, with a
// sequence number up to snapshot, without reading every span of r. Lists
// that lie wholly within the time
// range count by their length (sums.whole when known, from estimate in
// the same transaction); the spans of lists that cross its ends are read
// and checked, with cond, the SQL of f itself. q must be the read
// transaction that took the snapshot.
func countPostings(ctx context.Context, q querier, r index.PostingRange, f index.PostingFilter, sums postingSums, cond string, condArgs []any,
	snapshot int64) (int64, error) {
	if len(r.Runs) == 0 {
		return 0, nil
	}
	where, args := r.RowsWhere(f)
	cross, crossArgs := ` AND (p.min_ts < ?`, []any{r.From}
	if r.To != 0 {
		cross += ` OR p.max_ts > ?`
		crossArgs = append(crossArgs, r.To)
	}
	cross += `)`
	whole := sql.NullInt64{Int64: sums.whole}
	if !sums.wholeKnown {
		inner, innerArgs := r.Within()
		if err := q.QueryRowContext(ctx, `SELECT sum(p.n) FROM `+r.Tables.Lists+` AS p WHERE `+where+` AND `+inner,
			append(slices.Clone(args), innerArgs...)...).Scan(&whole); err != nil {
			return 0, fmt.Errorf("attribute index count: %w", mapErr(err))
		}
	}
	// The spans of lists that cross an end of the range: only in the
	// runs that do (a run wholly within it holds none).
	edges := r
	edges.Runs = nil
	for _, run := range r.Runs {
		if run.MinTS < r.From || (r.To != 0 && run.MaxTS > r.To) {
			edges.Runs = append(edges.Runs, run)
		}
	}
	if len(edges.Runs) == 0 {
		return whole.Int64, nil
	}
	where, args = edges.RowsWhere(f)
	sub := `SELECT p.base + o.value FROM ` + r.Tables.Lists + ` AS p CROSS JOIN json_each(p.offsets) AS o WHERE ` + where + cross
	spans := "seq IN (" + sub + ") AND environment IN (" + placeholders(len(r.Envs)) + ") AND seq <= ? AND timestamp >= ?"
	spanArgs := append(append(append(slices.Clone(args), crossArgs...), asArgs(r.Envs)...), snapshot, r.From)
	if r.To != 0 {
		spans += " AND timestamp <= ?"
		spanArgs = append(spanArgs, r.To)
	}
	var edge int64
	if err := q.QueryRowContext(ctx, "SELECT count(*) FROM spans NOT INDEXED WHERE "+spans+" AND "+cond,
		append(spanArgs, condArgs...)...).Scan(&edge); err != nil {
		return 0, fmt.Errorf("attribute index count: %w", mapErr(err))
	}
	return whole.Int64 + edge, nil
}

// asArgs returns xs as query arguments.
func asArgs[T any](xs []T) []any {
	out := make([]any, len(xs))
	for i, x := range xs {
		out[i] = x
	}
	return out
}
