package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"

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
	tables postingTables
	first  int64 // sequence number of offset 0
	// lists are by environment, then hash: a span looks its environment
	// up once, then each hash in a map keyed by integers.
	lists  map[string]map[int64]*postingList
	minTS  int64
	maxTS  int64
	spans  int
	maxSeq int64
}

func newPostings(tables postingTables, first int64) *postings {
	return &postings{tables: tables, first: first, lists: map[string]map[int64]*postingList{}, minTS: math.MaxInt64, maxTS: math.MinInt64}
}

// postingTables names the tables of one set of posting runs: a table of
// runs and one of lists, in the shape of posting_runs and span_postings.
type postingTables struct{ runs, lists string }

// The posting runs of spans (span_postings) and of metric point labels
// (point_postings).
var (
	spanPostingTables  = postingTables{runs: "posting_runs", lists: "span_postings"}
	pointPostingTables = postingTables{runs: "point_posting_runs", lists: "point_postings"}
)

// nextRunSQL allocates a run number: one above every run (merged ones
// included), so a run's rows always go to the end of the lists' table.
func (t postingTables) nextRunSQL() string {
	return `SELECT coalesce((SELECT max(run) FROM ` + t.runs + `), 0) + 1`
}

// insertListsSQL starts the insert of list rows (OR FAIL: no statement
// journal, as insertPointSQL).
func (t postingTables) insertListsSQL() string {
	return "INSERT OR FAIL INTO " + t.lists + " (run, environment, hash, base, n, min_ts, max_ts, offsets) VALUES "
}

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
	if err := tx.QueryRowContext(ctx, p.tables.nextRunSQL()).Scan(&run); err != nil {
		return fmt.Errorf("next run: %w", err)
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO `+p.tables.runs+` (run, level, first_seq, last_seq, min_ts, max_ts)
		VALUES (?, 0, ?, ?, ?, ?)`, run, p.first, p.maxSeq, p.minTS, p.maxTS); err != nil {
		return fmt.Errorf("posting run: %w", err)
	}
	rows := newRowInserter(tx, stmts, p.tables.insertListsSQL(), postingColumns, indexRowsPerInsert)
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

// postingFilter is a filter of a span query that the postings answer: an
// equality or in-list on an attribute or an indexed column, with values
// short enough to be indexed.
type postingFilter struct {
	index  int      // in SpanQuery.Filters
	key    string   // posting key: attribute key, index.TraceIDKey or columnKey
	values []string // distinct values
	// resolved marks the values of another filter the dictionary resolved
	// (resolveFilters): the runs must record their values.
	resolved bool
	// hours, for resolved values, are the hours each was recorded in
	// (aligned with values): a value's lists are looked up only in the
	// runs that reach them.
	hours []hourSpan
}

// String prints f in plans: its key and values.
func (f postingFilter) String() string { return fmt.Sprintf("%q=%q", f.key, f.values) }

// postingFilters returns the filters of q that the postings answer.
func postingFilters(q warehouse.SpanQuery) []postingFilter {
	var out []postingFilter
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
				out = append(out, postingFilter{index: i, key: index.KeyPostingPrefix + ref.Key, values: []string{""}})
				continue
			}
			key = ref.Key
		default:
			continue
		}
		if values, ok := index.TextEqualityValues(f, 100); ok {
			out = append(out, postingFilter{index: i, key: key, values: values})
		}
	}
	return out
}

// hashes returns the posting hashes of f's values.
func (f postingFilter) hashes() []any {
	out := make([]any, len(f.values))
	for i, v := range f.values {
		out[i] = index.PostingHash(f.key, v)
	}
	return out
}

// hoursCTE generates the hours [?, ?] as the table hours(h), for tables
// keyed by hour first (span_values, point_counts): looked up hour by
// hour, each an equality on the key's first column.
const hoursCTE = `WITH RECURSIVE hours(h) AS (SELECT ? UNION ALL SELECT h + 1 FROM hours WHERE h < ?) `

// postingRange is the part of a query the postings are read for: the
// environments, the time range [from, to] (to 0: open) and the runs that
// list spans of it.
type postingRange struct {
	tables   postingTables
	envs     []string
	from, to int64
	runs     []postingRun // runs whose spans reach into the range
}

// readPostingRange returns the range [from, to] (to 0: open) of envs in
// the runs of t: the runs that list rows of it.
func readPostingRange(ctx context.Context, tx querier, t postingTables, envs []string, from, to int64) (postingRange, error) {
	r := postingRange{tables: t, envs: envs, from: from, to: to}
	query, args := `SELECT run, min_ts, max_ts FROM `+t.runs+` WHERE max_ts >= ?`, []any{from}
	if to != 0 {
		query += ` AND min_ts <= ?`
		args = append(args, to)
	}
	rows, err := tx.QueryContext(ctx, query+` ORDER BY run`, args...)
	if err != nil {
		return r, fmt.Errorf("%s: %w", t.runs, mapErr(err))
	}
	defer rows.Close()
	for rows.Next() {
		var run postingRun
		if err := rows.Scan(&run.id, &run.minTS, &run.maxTS); err != nil {
			return r, fmt.Errorf("%s: %w", t.runs, mapErr(err))
		}
		r.runs = append(r.runs, run)
	}
	if err := rows.Err(); err != nil {
		return r, fmt.Errorf("%s: %w", t.runs, mapErr(err))
	}
	return r, nil
}

// postingRun is a run of span_postings and the start times it lists.
type postingRun struct {
	id, minTS, maxTS int64
}

// holds reports whether r's postings list every span of r that holds one
// of f's values: every run lists every span's values, and f's values, when
// resolved, come from the dictionary (dictionaryHolds).
func (r postingRange) holds(f postingFilter) bool {
	return !f.resolved || r.dictionaryHolds()
}

// bounds returns the earliest and latest start time the range's postings
// can list (hi < lo: none).
func (r postingRange) bounds() (lo, hi int64) {
	lo, hi = math.MaxInt64, math.MinInt64
	for _, run := range r.runs {
		lo, hi = min(lo, run.minTS), max(hi, run.maxTS)
	}
	lo = max(lo, r.from)
	if r.to != 0 {
		hi = min(hi, r.to)
	}
	return lo, hi
}

// cut returns r narrowed to the start times [a, b].
func (r postingRange) cut(a, b int64) postingRange {
	out := r
	out.from = max(r.from, a)
	out.to = b
	if r.to != 0 {
		out.to = min(r.to, b)
	}
	out.runs = nil
	for _, run := range r.runs {
		if run.maxTS >= out.from && run.minTS <= out.to {
			out.runs = append(out.runs, run)
		}
	}
	return out
}

// runIDs returns the ids of r's runs as query arguments.
func (r postingRange) runIDs() []any {
	out := make([]any, len(r.runs))
	for i, run := range r.runs {
		out[i] = run.id
	}
	return out
}

// rowsWhere is the condition on span_postings rows (as p) of f in r: the
// runs, environments and hashes, rows reaching into the time range.
func (r postingRange) rowsWhere(f postingFilter) (string, []any) {
	var cond string
	var args []any
	if f.hours != nil {
		// Resolved values: each looked up only in the runs that reach
		// the hours it was recorded in (a value unique to a span is in
		// one run, not in every run of the range).
		cond = `(p.run, p.hash) IN (SELECT j.value ->> 0, j.value ->> 1 FROM json_each(?) AS j) AND p.environment IN (` +
			placeholders(len(r.envs)) + `) AND p.max_ts >= ?`
		args = append(append([]any{r.runHashPairs(f)}, asArgs(r.envs)...), r.from)
	} else {
		hashes := f.hashes()
		cond = `p.run IN (` + placeholders(len(r.runs)) + `) AND p.environment IN (` + placeholders(len(r.envs)) + `) AND `
		args = append(r.runIDs(), asArgs(r.envs)...)
		if len(hashes) == 0 || len(hashes) > maxHashParams {
			// Many values: one JSON array.
			cond += `p.hash IN (SELECT value FROM json_each(?)) AND p.max_ts >= ?`
			args = append(args, hashArray(hashes), r.from)
		} else {
			cond += `p.hash IN (` + placeholders(len(hashes)) + `) AND p.max_ts >= ?`
			args = append(append(args, hashes...), r.from)
		}
	}
	if r.to != 0 {
		cond += ` AND p.min_ts <= ?`
		args = append(args, r.to)
	}
	return cond, args
}

// runHashPairs returns, as a JSON array of [run, hash] pairs, the lists
// of f's resolved values in the runs of r that reach their hours.
func (r postingRange) runHashPairs(f postingFilter) string {
	hashes := f.hashes()
	b := []byte{'['}
	for _, run := range r.runs {
		for i, h := range hashes {
			if !f.hours[i].overlaps(run) {
				continue
			}
			if len(b) > 1 {
				b = append(b, ',')
			}
			b = append(b, '[')
			b = strconv.AppendInt(b, run.id, 10)
			b = append(b, ',')
			b = strconv.AppendInt(b, h.(int64), 10)
			b = append(b, ']')
		}
	}
	return string(append(b, ']'))
}

// maxHashParams is the most hashes rowsWhere binds one by one.
const maxHashParams = 100

// hashArray returns hashes as a JSON array.
func hashArray(hashes []any) string {
	b := []byte{'['}
	for i, h := range hashes {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendInt(b, h.(int64), 10)
	}
	return string(append(b, ']'))
}

// candidatesSQL returns a subquery of the sequence numbers f's postings
// list for r: a superset of the spans of r that hold one of f's values.
func (r postingRange) candidatesSQL(f postingFilter) (string, []any) {
	if len(r.runs) == 0 {
		return `SELECT NULL WHERE 0`, nil
	}
	cond, args := r.rowsWhere(f)
	return `SELECT p.base + o.value FROM ` + r.tables.lists + ` AS p CROSS JOIN json_each(p.offsets) AS o WHERE ` + cond, args
}

// postingSums are the lengths of a filter's lists in a range: all that
// reach into it, and those wholly within it (known false: not told, as
// when no run reaches the range or the caller has not estimated).
type postingSums struct {
	reach, whole int64
	wholeKnown   bool
}

// estimate returns about how many spans f's postings list in r: the sum
// of the lengths of the lists that reach into the time range, and of
// those wholly within it, which count reuses.
func (r postingRange) estimate(ctx context.Context, q querier, f postingFilter) (postingSums, error) {
	var out postingSums
	if len(r.runs) > 0 {
		cond, args := r.rowsWhere(f)
		inner, innerArgs := r.within()
		var n, whole sql.NullInt64
		if err := q.QueryRowContext(ctx, `SELECT sum(p.n), sum(CASE WHEN `+inner+` THEN p.n ELSE 0 END)
			FROM `+r.tables.lists+` AS p WHERE `+cond, append(innerArgs, args...)...).Scan(&n, &whole); err != nil {
			return out, fmt.Errorf("attribute index estimate: %w", mapErr(err))
		}
		out.reach, out.whole, out.wholeKnown = n.Int64, whole.Int64, true
	}
	return out, nil
}

// within is the condition that a span_postings row (as p) lies wholly
// within the time range.
func (r postingRange) within() (string, []any) {
	if r.to != 0 {
		return `p.min_ts >= ? AND p.max_ts <= ?`, []any{r.from, r.to}
	}
	return `p.min_ts >= ?`, []any{r.from}
}

// count returns the spans of r that hold one of f's values, with a
// sequence number up to snapshot, without reading every span of r. Lists
// that lie wholly within the time
// range count by their length (sums.whole when known, from estimate in
// the same transaction); the spans of lists that cross its ends are read
// and checked, with cond, the SQL of f itself. q must be the read
// transaction that took the snapshot.
func (r postingRange) count(ctx context.Context, q querier, f postingFilter, sums postingSums, cond string, condArgs []any,
	snapshot int64) (int64, error) {
	if len(r.runs) == 0 {
		return 0, nil
	}
	where, args := r.rowsWhere(f)
	cross, crossArgs := ` AND (p.min_ts < ?`, []any{r.from}
	if r.to != 0 {
		cross += ` OR p.max_ts > ?`
		crossArgs = append(crossArgs, r.to)
	}
	cross += `)`
	whole := sql.NullInt64{Int64: sums.whole}
	if !sums.wholeKnown {
		inner, innerArgs := r.within()
		if err := q.QueryRowContext(ctx, `SELECT sum(p.n) FROM `+r.tables.lists+` AS p WHERE `+where+` AND `+inner,
			append(slices.Clone(args), innerArgs...)...).Scan(&whole); err != nil {
			return 0, fmt.Errorf("attribute index count: %w", mapErr(err))
		}
	}
	// The spans of lists that cross an end of the range: only in the
	// runs that do (a run wholly within it holds none).
	edges := r
	edges.runs = nil
	for _, run := range r.runs {
		if run.minTS < r.from || (r.to != 0 && run.maxTS > r.to) {
			edges.runs = append(edges.runs, run)
		}
	}
	if len(edges.runs) == 0 {
		return whole.Int64, nil
	}
	where, args = edges.rowsWhere(f)
	sub := `SELECT p.base + o.value FROM ` + r.tables.lists + ` AS p CROSS JOIN json_each(p.offsets) AS o WHERE ` + where + cross
	spans := "seq IN (" + sub + ") AND environment IN (" + placeholders(len(r.envs)) + ") AND seq <= ? AND timestamp >= ?"
	spanArgs := append(append(append(slices.Clone(args), crossArgs...), asArgs(r.envs)...), snapshot, r.from)
	if r.to != 0 {
		spans += " AND timestamp <= ?"
		spanArgs = append(spanArgs, r.to)
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
