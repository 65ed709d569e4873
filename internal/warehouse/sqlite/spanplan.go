package sqlite

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"math"
	"strings"

	"github.com/evalcol/evalcol/internal/warehouse"
	"github.com/evalcol/evalcol/internal/warehouse/sqlfilter"
	"github.com/evalcol/evalcol/internal/warehouse/sqlite/internal/index"
)

// spanPlan is the planner's choice for one read (index.PlanSpans) and
// what executing it needs: the range's postings and the filters they
// answer, whose estimates the planner chose by.
type spanPlan struct {
	index.SpanPlan
	pr index.PostingRange
	// posts are the filters the postings answer in the range, sums their
	// lists' lengths (index.SpanStats.Postings); SpanPlan.Post picks one.
	posts []index.PostingFilter
	sums  []postingSums
	// textMatch is the FTS5 query of a full-text search ("" none).
	textMatch string
}

// post returns the filter whose postings the plan reads or estimates by
// (nil: none).
func (p spanPlan) post() *index.PostingFilter {
	if !p.HasPost() {
		return nil
	}
	return &p.posts[p.Post]
}

// postSums returns the lengths of post's lists (zero without one).
func (p spanPlan) postSums() postingSums {
	if !p.HasPost() {
		return postingSums{}
	}
	return p.sums[p.Post]
}

// planSpans gathers the statistics of a read of q (range already raised
// to the retention cutoff) within the read transaction tx, and plans it
// (index.PlanSpans).
func (s *Store) planSpans(ctx context.Context, tx querier, q warehouse.SpanQuery, snapshot int64) (spanPlan, error) {
	var p spanPlan
	st := index.SpanStats{MaxCandidates: s.maxIndexCandidates}
	var err error
	if st.RangeSpans, err = countRange(ctx, tx, q.Environments, q.FromMs, q.ToMs, snapshot); err != nil {
		return p, err
	}
	if p.pr, err = s.postingRange(ctx, tx, q); err != nil {
		return p, err
	}
	if s.maxIndexCandidates > 0 && len(p.pr.Runs) > 0 {
		resolved, err := resolveFilters(ctx, tx, q, p.pr)
		if err != nil {
			return p, err
		}
		for _, f := range append(postingFilters(q), resolved...) {
			if !p.pr.Holds(f) {
				continue
			}
			sums, err := estimatePostings(ctx, tx, p.pr, f)
			if err != nil {
				return p, err
			}
			p.posts, p.sums = append(p.posts, f), append(p.sums, sums)
			st.Postings = append(st.Postings, index.PostingStat{Name: f.String(), Listed: sums.reach})
		}
	}
	st.PostingFrom, st.PostingTo = p.pr.Bounds()
	if index.NeedsSpanTimes(q) {
		if st.Earliest, st.Latest, st.HasSpans, err = spanTimes(ctx, tx, q); err != nil {
			return p, err
		}
	}
	if index.NeedsAllSpans(q) {
		if st.AllSpans, err = totalSpans(ctx, tx, q.Environments); err != nil {
			return p, err
		}
	}
	p.SpanPlan = index.PlanSpans(q, st)
	return p, nil
}

// index.PostingRange returns the postings of q's range: the runs that list
// spans of it.
func (s *Store) postingRange(ctx context.Context, tx querier, q warehouse.SpanQuery) (index.PostingRange, error) {
	return readPostingRange(ctx, tx, spanPostingTables, q.Environments, q.FromMs, q.ToMs)
}

// spanSelect is the SQL of a span read: the match conditions and the
// continuation after the cursor.
type spanSelect struct {
	base    sqlfilter.Where // environments, snapshot, range: on every index
	filters sqlfilter.Where // the query's filters
	// text is the full-text search's condition, textSeqs its matches
	// (search.go).
	text     sqlfilter.Where
	textSeqs []int64
	after    sqlfilter.Where // the keyset continuation (empty on a first page)
	col      string
	dir      string
}

func newSpanSelect(q warehouse.SpanQuery, r warehouse.SpanRead, snapshot int64) spanSelect {
	var sel spanSelect
	sel.base.In("environment", q.Environments)
	sel.base.Add("seq <= ?", snapshot)
	sel.base.Add("timestamp >= ?", q.FromMs)
	if q.ToMs != 0 {
		sel.base.Add("timestamp <= ?", q.ToMs)
	}
	for _, c := range spanFilters(q.Filters) {
		sel.filters.AddExpr(c)
	}
	col, dir, cmp := q.SortOrder()
	sel.col, sel.dir = col, dir
	if !r.First {
		last := r.AfterValue()
		// The plain bound lets an index on the sort column start at the
		// cursor; the row value cuts the ties.
		sel.after.Add(col+" "+cmp+"= ?", last)
		sel.after.Add("("+col+", seq) "+cmp+" (?, ?)", last, r.After.Seq)
	}
	return sel
}

// where joins the match (base and filters) and the continuation.
func (sel spanSelect) where() (string, []any) {
	return joinWhere(sel.base, sel.filters, sel.text, sel.after)
}

// match joins the base and the filters: every match of the query.
func (sel spanSelect) match() (string, []any) {
	return joinWhere(sel.base, sel.filters, sel.text)
}

func joinWhere(parts ...sqlfilter.Where) (string, []any) {
	var w sqlfilter.Where
	for _, p := range parts {
		w.Conds = append(w.Conds, p.Conds...)
		w.Args = append(w.Args, p.Args...)
	}
	return w.SQL(), w.Args
}

// order is the ORDER BY of the page.
func (sel spanSelect) order() string {
	return " ORDER BY " + sel.col + " " + sel.dir + ", seq " + sel.dir
}

// ReadSpans answers one page of a span query (warehouse.Backend) in one
// read transaction: the snapshot is the high-water mark of spans (the
// highest sequence number stored or reserved); the planner picks how the
// page is found and how total_results is counted (spanplan.go). With a
// retention, spans older than the pagination's cutoff are hidden
// (retention.go).
func (s *Store) ReadSpans(ctx context.Context, r warehouse.SpanRead) (warehouse.SpanRows, error) {
	tx, err := s.readTx(ctx, "read spans")
	if err != nil {
		return warehouse.SpanRows{}, err
	}
	defer tx.Rollback() //nolint:errcheck // read-only
	q := r.Query
	snapshot, ok, err := s.pageWindow(ctx, tx, "read spans", spansRetention, r.First, r.Snapshot, &q.FromMs, q.ToMs)
	out := warehouse.SpanRows{Snapshot: snapshot}
	if err != nil || !ok {
		return out, err // !ok: the whole range is out of the retention
	}
	plan, err := s.planSpans(ctx, tx, q, snapshot)
	if err != nil {
		return out, err
	}
	if s.forceAccess != nil {
		plan = s.forceAccess(plan)
	}
	sel := newSpanSelect(q, r, snapshot)
	if err := s.planText(ctx, tx, q, snapshot, &plan, &sel); err != nil {
		return out, err
	}
	out.Spans = make([]warehouse.Span, 0, min(r.Limit, 64))
	out.Seqs = make([]int64, 0, min(r.Limit, 64))
	budget := warehouse.NewPageBudget(r.MaxBytes)
	switch {
	case plan.Access == index.HourWalk:
		err = s.walkHours(ctx, tx, plan, sel, r, &out, &budget)
	case plan.Access == index.NameMerge:
		err = mergeNames(ctx, tx, sel, q, r, &out, &budget)
	case plan.Access == index.SortWalk && sortBucketed(q.SortBy):
		idx, _ := index.SortIndexOf(q.SortBy)
		err = walkBuckets(ctx, tx, idx, sel, plan.Selectivity, q, r, &out, &budget)
	default:
		query, args, bySeq := plan.pageSQL(sel, q, r.Limit)
		if bySeq {
			err = readSpansOfSeqs(ctx, tx, query, args, sel, &out, &budget)
		} else {
			err = readSpanRows(ctx, tx, query, args, &out, &budget)
		}
	}
	if err != nil {
		return out, err
	}
	if r.NeedsCount(len(out.Spans), out.Cut) {
		count := plan.count
		if plan.textMatch != "" {
			count = func(ctx context.Context, tx querier, _ warehouse.SpanQuery, sel spanSelect, _ int64) (int64, error) {
				return plan.countText(ctx, tx, sel)
			}
		}
		if out.Total, err = count(ctx, tx, q, sel, snapshot); err != nil {
			return out, fmt.Errorf("count: %w", err)
		}
	}
	return out, nil
}

// readTx begins the read transaction of one page (op names the read for
// errors): its counts, indexes and rows agree with one snapshot.
func (s *Store) readTx(ctx context.Context, op string) (*sql.Tx, error) {
	if err := s.checkOpen(op); err != nil {
		return nil, err
	}
	tx, err := s.reader.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", op, mapErr(err))
	}
	return tx, nil
}

// pageSQL returns the query of one page of plan (every access but the
// walks). Where SQLite sorts the page itself (bySeq: the candidates, the
// names), the query selects only the page's sequence numbers in order, so
// that its sorter never holds whole rows (a page of large spans would sit
// there, outside the page's byte budget); readSpansOfSeqs reads them.
// Otherwise the rows come in an index's order, read as they stream.
func (p spanPlan) pageSQL(sel spanSelect, q warehouse.SpanQuery, limit int) (query string, args []any, bySeq bool) {
	where, args := sel.where()
	switch p.Access {
	case index.Text:
		return "SELECT seq FROM spans NOT INDEXED WHERE " + where + sel.order() + " LIMIT ?", append(args, limit), true
	case index.Candidates:
		cand, candArgs := p.pr.CandidatesSQL(*p.post())
		return "SELECT seq FROM spans NOT INDEXED WHERE seq IN (" + cand + ") AND " + where +
			sel.order() + " LIMIT ?", append(append(candArgs, args...), limit), true
	case index.SortWalk:
		idx, _ := index.SortIndexOf(q.SortBy)
		return "SELECT " + selectSpanColumns + " FROM spans INDEXED BY " + idx.Name + " WHERE " +
			where + sel.order() + " LIMIT ?", append(args, limit), false
	}
	if q.SortBy == warehouse.SortSpanName {
		// The range's index entries sorted, then the page's spans: only
		// index entries are read while the conditions need no more (the
		// time index holds the name).
		return "SELECT seq FROM spans INDEXED BY spans_env_time WHERE " + where + sel.order() + " LIMIT ?", append(args, limit), true
	}
	return "SELECT " + selectSpanColumns + " FROM spans INDEXED BY spans_env_time WHERE " + where + sel.order() +
		" LIMIT ?", append(args, limit), false
}

// readSpansOfSeqs appends to out the spans whose sequence numbers query
// returns, in its order, as far as budget goes (readSpansBySeq).
func readSpansOfSeqs(ctx context.Context, tx querier, query string, args []any, sel spanSelect, out *warehouse.SpanRows,
	budget *warehouse.PageBudget) error {
	rows, err := tx.QueryContext(ctx, query, args...)
	if err != nil {
		return mapErr(err)
	}
	var seqs []int64
	for rows.Next() {
		var seq int64
		if err := rows.Scan(&seq); err != nil {
			rows.Close()
			return mapErr(err)
		}
		seqs = append(seqs, seq)
	}
	if err := rows.Close(); err != nil {
		return mapErr(err)
	}
	if err := rows.Err(); err != nil {
		return mapErr(err)
	}
	return readSpansBySeq(ctx, tx, seqs, sel, out, budget)
}

// walkHours fills out with the page of a time-sorted read through one
// filter's postings: windows of start time in the sort direction, from the
// cursor on, at first as wide as the estimate says a page's matches take
// (an hour at least) and doubling while they come back short, until the
// page is full (by count or budget) or the postings end.
func (s *Store) walkHours(ctx context.Context, tx querier, p spanPlan, sel spanSelect, r warehouse.SpanRead,
	out *warehouse.SpanRows, budget *warehouse.PageBudget) error {
	lo, hi := p.pr.Bounds()
	desc := sel.dir == "DESC"
	if !r.First {
		if desc {
			hi = min(hi, r.After.Num)
		} else {
			lo = max(lo, r.After.Num)
		}
	}
	where, args := sel.where()
	width := int64(index.HourMs)
	if perHour := float64(p.PostSpans) / float64(max((hi-lo)/index.HourMs, 1)); perHour > 0 {
		if w := float64(r.Limit) / perHour * index.HourMs; w < float64(hi-lo) {
			width = max(width, int64(w))
		} else {
			width = max(width, hi-lo+1)
		}
	}
	for lo <= hi && len(out.Spans) < r.Limit && !out.Cut {
		a, b := lo, hi
		if desc && hi-lo >= width {
			a = hi - width + 1
		} else if !desc && hi-lo >= width {
			b = lo + width - 1
		}
		cand, candArgs := p.pr.Cut(a, b).CandidatesSQL(*p.post())
		// The window's page sorted by sequence number alone (SQLite's
		// sorter then holds no whole rows), its spans read after.
		query := "SELECT seq FROM spans NOT INDEXED WHERE seq IN (" + cand + ") AND timestamp >= ? AND timestamp <= ? AND " +
			where + sel.order() + " LIMIT ?"
		before := len(out.Spans)
		if err := readSpansOfSeqs(ctx, tx, query, append(append(append(candArgs, a, b), args...), r.Limit-before), sel, out, budget); err != nil {
			return err
		}
		if desc {
			hi = a - 1
		} else {
			lo = b + 1
		}
		if len(out.Spans)-before < (r.Limit-before)/2 && width < math.MaxInt64/4 {
			width *= 2
		}
	}
	return nil
}

// count returns total_results of q: from span_counts without filters,
// from the postings' lengths for one equality or resolved filter (the
// range's count less them for a negation), from a bucketed
// sort index for one comparison of duration or total tokens
// (countByBucket), else by counting the matches on the cheapest path.
func (p spanPlan) count(ctx context.Context, tx querier, q warehouse.SpanQuery, sel spanSelect, snapshot int64) (int64, error) {
	if len(q.Filters) == 0 {
		return p.RangeSpans, nil
	}
	if len(q.Filters) == 1 && p.HasPost() {
		cond := spanFilters(q.Filters)[0]
		return countPostings(ctx, tx, p.pr, *p.post(), p.postSums(), cond.SQL, cond.Args, snapshot)
	}
	if len(q.Filters) == 1 {
		// not_equals / not_in match every span of the range but those
		// equal to a value (a span without the field included): the
		// range's count less the postings' count of the values.
		if f, ok := complementFilter(q.Filters[0]); ok {
			fq := q
			fq.Filters = []warehouse.Filter{f}
			pf := postingFilters(fq)
			if len(pf) == 0 { // a typed equality: resolved, when it can be
				var err error
				if pf, err = resolveFilters(ctx, tx, fq, p.pr); err != nil {
					return 0, err
				}
			}
			if len(pf) == 1 && p.pr.Holds(pf[0]) {
				cond := spanFilters(fq.Filters)[0]
				n, err := countPostings(ctx, tx, p.pr, pf[0], postingSums{}, cond.SQL, cond.Args, snapshot)
				return p.RangeSpans - n, err
			}
		}
	}
	if n, ok, err := countByBucket(ctx, tx, q, sel.base, p.RangeSpans); err != nil || ok {
		return n, err
	}
	where, args := sel.match()
	var query string
	switch {
	case p.CountByCandidates():
		cand, candArgs := p.pr.CandidatesSQL(*p.post())
		query, args = "SELECT count(*) FROM spans NOT INDEXED WHERE seq IN ("+cand+") AND "+where, append(candArgs, args...)
	default:
		query = "SELECT count(*) FROM spans INDEXED BY spans_env_time WHERE " + where
	}
	var n int64
	if err := tx.QueryRowContext(ctx, query, args...).Scan(&n); err != nil {
		return 0, mapErr(err)
	}
	return n, nil
}

// complementFilter returns the equals / in filter whose matches are the
// spans a not_equals / not_in filter f does not match.
func complementFilter(f warehouse.Filter) (warehouse.Filter, bool) {
	switch f.Operator {
	case warehouse.OpNotEquals:
		f.Operator = warehouse.OpEquals
	case warehouse.OpNotIn:
		f.Operator = warehouse.OpIn
	case warehouse.OpNotExists:
		f.Operator = warehouse.OpExists
	default:
		return f, false
	}
	return f, true
}

// readSpanRows appends the spans query returns to out, until budget is
// full: then, when the query has a further row, it sets out.Cut and stops
// (the row is not read).
func readSpanRows(ctx context.Context, tx querier, query string, args []any, out *warehouse.SpanRows,
	budget *warehouse.PageBudget) error {
	rows, err := tx.QueryContext(ctx, query, args...)
	if err != nil {
		return mapErr(err)
	}
	defer rows.Close()
	for rows.Next() {
		if budget.Full() {
			out.Cut = true
			break
		}
		sp, seq, size, err := scanSpan(rows)
		if err != nil {
			return err
		}
		budget.Add(size)
		out.Spans = append(out.Spans, sp)
		out.Seqs = append(out.Seqs, seq)
	}
	if err := rows.Err(); err != nil {
		return mapErr(err)
	}
	return nil
}

// totalSpans counts the spans of envs (from span_counts).
func totalSpans(ctx context.Context, q querier, envs []string) (int64, error) {
	var n sql.NullInt64
	if err := q.QueryRowContext(ctx, `SELECT sum(n) FROM span_counts WHERE environment IN (`+placeholders(len(envs))+`)`,
		asArgs(envs)...).Scan(&n); err != nil {
		return 0, fmt.Errorf("count spans: %w", mapErr(err))
	}
	return n.Int64, nil
}

// walkBuckets fills out with a page sorted by a bucketed index: the
// buckets in the sort direction, from the cursor's on; from each bucket the
// entries in the range (and after the cursor) come sorted by the column,
// a chunk at a time (SQLite keeps the top of a bucket, reading the index
// alone), and their spans are checked against the filters in that order
// until the page is full.
func walkBuckets(ctx context.Context, tx querier, idx index.SortIndex, sel spanSelect, selectivity float64, q warehouse.SpanQuery,
	r warehouse.SpanRead, out *warehouse.SpanRows, budget *warehouse.PageBudget) error {
	col, numeric := q.SortBy.Column()
	_, _, cmpOp := q.SortOrder()
	var page []int64
	b, ok, err := firstBucket(ctx, tx, idx, col, q, r)
	after := sel.after
	hours := rangeHours(q)
	for err == nil && ok && len(page) < r.Limit {
		need := r.Limit - len(page)
		chunk := need
		if len(sel.filters.Conds) > 0 || len(sel.text.Conds) > 0 {
			// Enough entries for the page at the filters' selectivity,
			// twice over.
			chunk = int(min(max(256, 2*float64(need)/selectivity), 50000))
		}
		where, args := joinWhere(sel.base, hours, after)
		var entries []warehouse.SpanKey
		entries, err = readBucket(ctx, tx, "SELECT seq, "+col+" FROM spans INDEXED BY "+idx.Name+" WHERE "+idx.Bucket+
			" = ? AND "+where+sel.order()+" LIMIT ?", append(append([]any{b}, args...), chunk), numeric, nil)
		if err != nil {
			break
		}
		if page, err = takeMatches(ctx, tx, sel.filters, sel.keepText(entries), page, r.Limit); err != nil {
			break
		}
		if len(entries) == chunk && len(page) < r.Limit {
			// More of this bucket: continue after its last entry.
			last := entries[len(entries)-1]
			var v any = last.Str
			if numeric {
				v = last.Num
			}
			after = sqlfilter.Where{}
			after.Add("("+col+", seq) "+cmpOp+" (?, ?)", v, last.Seq)
			continue
		}
		after = sel.after
		b, ok, err = nextBucket(ctx, tx, idx, q.Environments, b, true, q.Desc)
	}
	if err != nil {
		return err
	}
	return readSpansBySeq(ctx, tx, page, sel, out, budget)
}

// readSpansBySeq appends the spans of page (sequence numbers in page
// order) to out, in sel's order: only the first ones whose sizes (read
// from the record headers first) fit budget, so that sorting them never
// holds more; out.Cut when others are left out.
func readSpansBySeq(ctx context.Context, tx querier, page []int64, sel spanSelect, out *warehouse.SpanRows,
	budget *warehouse.PageBudget) error {
	if len(page) == 0 {
		return nil
	}
	if len(page) > 1 && !budget.Unbounded() {
		rows, err := tx.QueryContext(ctx, "SELECT seq, "+spanBytesSQL+" FROM spans WHERE seq IN ("+placeholders(len(page))+")",
			asArgs(page)...)
		if err != nil {
			return fmt.Errorf("span sizes: %w", mapErr(err))
		}
		sizes := make(map[int64]int, len(page))
		for rows.Next() {
			var seq int64
			var n int
			if err := rows.Scan(&seq, &n); err != nil {
				rows.Close()
				return fmt.Errorf("span sizes: %w", mapErr(err))
			}
			sizes[seq] = n
		}
		if err := rows.Close(); err != nil {
			return fmt.Errorf("span sizes: %w", mapErr(err))
		}
		fit := *budget
		for i, seq := range page {
			if fit.Full() {
				page, out.Cut = page[:i], true
				break
			}
			fit.Add(sizes[seq])
		}
		if len(page) == 0 {
			return nil
		}
	}
	return readSpanRows(ctx, tx, "SELECT "+selectSpanColumns+" FROM spans WHERE seq IN ("+placeholders(len(page))+")"+
		sel.order(), asArgs(page), out, budget)
}

// takeMatches appends to page, in order, the sequence numbers of entries
// whose spans pass filters, until page holds limit: without filters the
// first entries, else their spans checked in chunks.
func takeMatches(ctx context.Context, tx querier, filters sqlfilter.Where, entries []warehouse.SpanKey, page []int64, limit int) ([]int64, error) {
	for len(entries) > 0 && len(page) < limit {
		if len(filters.Conds) == 0 {
			for _, e := range entries[:min(len(entries), limit-len(page))] {
				page = append(page, e.Seq)
			}
			return page, nil
		}
		chunk := entries[:min(len(entries), max(64, 2*(limit-len(page))))]
		entries = entries[len(chunk):]
		args := make([]any, 0, len(chunk)+len(filters.Args))
		for _, e := range chunk {
			args = append(args, e.Seq)
		}
		rows, err := tx.QueryContext(ctx, "SELECT seq FROM spans NOT INDEXED WHERE seq IN ("+placeholders(len(chunk))+") AND "+
			filters.SQL(), append(args, filters.Args...)...)
		if err != nil {
			return page, mapErr(err)
		}
		pass := map[int64]bool{}
		for rows.Next() {
			var seq int64
			if err := rows.Scan(&seq); err != nil {
				rows.Close()
				return page, mapErr(err)
			}
			pass[seq] = true
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return page, mapErr(err)
		}
		for _, e := range chunk {
			if pass[e.Seq] && len(page) < limit {
				page = append(page, e.Seq)
			}
		}
	}
	return page, nil
}

// readBucket appends the (seq, sort value) rows of query to entries.
func readBucket(ctx context.Context, tx querier, query string, args []any, numeric bool, entries []warehouse.SpanKey) ([]warehouse.SpanKey, error) {
	rows, err := tx.QueryContext(ctx, query, args...)
	if err != nil {
		return entries, mapErr(err)
	}
	defer rows.Close()
	for rows.Next() {
		var e warehouse.SpanKey
		var err error
		if numeric {
			err = rows.Scan(&e.Seq, &e.Num)
		} else {
			err = rows.Scan(&e.Seq, &e.Str)
		}
		if err != nil {
			return entries, mapErr(err)
		}
		entries = append(entries, e)
	}
	return entries, mapErr(rows.Err())
}

// firstBucket returns the bucket (an int64) a read starts in: the
// cursor's, else the first in the sort direction; ok is false when envs
// have no spans.
func firstBucket(ctx context.Context, tx querier, idx index.SortIndex, col string, q warehouse.SpanQuery,
	r warehouse.SpanRead) (b int64, ok bool, err error) {
	if r.First {
		return nextBucket(ctx, tx, idx, q.Environments, 0, false, q.Desc)
	}
	b, err = bucketOf(ctx, tx, idx, col, r.AfterValue())
	return b, err == nil, err
}

// bucketOf returns the bucket of idx that value of column col falls in,
// by the index's own expression.
func bucketOf(ctx context.Context, tx querier, idx index.SortIndex, col string, value any) (int64, error) {
	var b int64
	if err := tx.QueryRowContext(ctx, "SELECT "+idx.Bucket+" FROM (SELECT ? AS "+col+")", value).Scan(&b); err != nil {
		return 0, fmt.Errorf("sort bucket: %w", mapErr(err))
	}
	return b, nil
}

// rangeHours are the conditions on the hours of q's range, the third
// column of the bucketed sort indexes.
func rangeHours(q warehouse.SpanQuery) sqlfilter.Where {
	var hours sqlfilter.Where
	hours.Add(index.BucketHour+" >= ? / 3600000", q.FromMs)
	if q.ToMs != 0 {
		hours.Add(index.BucketHour+" <= ? / 3600000", q.ToMs)
	}
	return hours
}

// nextBucket returns the bucket after b in the sort direction (the first
// one without b); ok is false after the last.
func nextBucket(ctx context.Context, tx querier, idx index.SortIndex, envs []string, b int64, hasB, desc bool) (int64, bool, error) {
	agg, cond, args := "min", "", []any(nil)
	if desc {
		agg = "max"
	}
	if hasB {
		cond, args = " AND "+idx.Bucket+" > ?", []any{b}
		if desc {
			cond = " AND " + idx.Bucket + " < ?"
		}
	}
	var next int64
	found := false
	for _, env := range envs {
		var v sql.NullInt64
		if err := tx.QueryRowContext(ctx, "SELECT "+agg+"("+idx.Bucket+") FROM spans INDEXED BY "+idx.Name+
			" WHERE environment = ?"+cond, append([]any{env}, args...)...).Scan(&v); err != nil {
			return 0, false, fmt.Errorf("sort bucket: %w", mapErr(err))
		}
		if v.Valid && (!found || (desc && v.Int64 > next) || (!desc && v.Int64 < next)) {
			next, found = v.Int64, true
		}
	}
	return next, found, nil
}

// spanTimes returns the earliest and latest start of q's environments'
// spans within q's range (time index ends, a seek each); ok is false when
// the range holds none.
func spanTimes(ctx context.Context, tx querier, q warehouse.SpanQuery) (earliest, latest int64, ok bool, err error) {
	to := q.ToMs
	if to == 0 {
		to = math.MaxInt64
	}
	for _, env := range q.Environments {
		var lo, hi sql.NullInt64
		// Apart: SQLite finds a lone min or max at an end of the index.
		if err := tx.QueryRowContext(ctx, `SELECT min(timestamp) FROM spans WHERE environment = ? AND timestamp >= ? AND timestamp <= ?`,
			env, q.FromMs, to).Scan(&lo); err != nil {
			return 0, 0, false, fmt.Errorf("earliest span: %w", mapErr(err))
		}
		if !lo.Valid {
			continue
		}
		if err := tx.QueryRowContext(ctx, `SELECT max(timestamp) FROM spans WHERE environment = ? AND timestamp >= ? AND timestamp <= ?`,
			env, q.FromMs, to).Scan(&hi); err != nil {
			return 0, 0, false, fmt.Errorf("latest span: %w", mapErr(err))
		}
		if !ok || lo.Int64 < earliest {
			earliest = lo.Int64
		}
		if !ok || hi.Int64 > latest {
			latest = hi.Int64
		}
		ok = true
	}
	return earliest, latest, ok, nil
}

// mergeNames fills out with a page sorted by span name (no filters): of
// each environment and each hour of the range that holds spans, newest
// first, the top of its entries in spans_env_hour_name (the range, the
// snapshot and the cursor checked on the index), at most a page and
// only those that still beat the worst one kept once the page is full;
// the page is the top of those.
func mergeNames(ctx context.Context, tx querier, sel spanSelect, q warehouse.SpanQuery, r warehouse.SpanRead,
	out *warehouse.SpanRows, budget *warehouse.PageBudget) error {
	lo, hi, ok, err := spanTimes(ctx, tx, q)
	if err != nil || !ok {
		return err
	}
	desc := q.Desc
	// Entries that sort before the worst one kept: greater ones in a
	// descending page.
	beforeOp := "<"
	if desc {
		beforeOp = ">"
	}
	// pageOrder orders entries as ORDER BY span_name, seq does; desc
	// reverses it.
	pageOrder := func(a, b warehouse.SpanKey) int {
		c := cmp.Or(strings.Compare(a.Str, b.Str), cmp.Compare(a.Seq, b.Seq))
		if desc {
			return -c
		}
		return c
	}
	k := r.Limit
	best := make([]warehouse.SpanKey, 0, k+1) // in page order
	where, args := joinWhere(sel.base, sel.after)
	for _, env := range q.Environments {
		for h := hi / index.HourMs; h >= lo/index.HourMs; h-- {
			query := "SELECT seq, span_name FROM spans INDEXED BY spans_env_hour_name WHERE environment = ? AND " +
				index.BucketHour + " = ? AND " + where
			hargs := append([]any{env, h}, args...)
			if len(best) == k {
				// Only entries before the worst kept can enter the page.
				worst := best[k-1]
				query += " AND (span_name, seq) " + beforeOp + " (?, ?) AND span_name " + beforeOp + "= ?"
				hargs = append(hargs, worst.Str, worst.Seq, worst.Str)
			}
			entries, err := readBucket(ctx, tx, query+sel.order()+" LIMIT ?", append(hargs, k), false, nil)
			if err != nil {
				return fmt.Errorf("spans by name: %w", err)
			}
			for _, e := range entries {
				var kept bool
				if best, kept = keepTop(best, e, k, pageOrder); !kept {
					break // entries come in page order: the rest do not enter either
				}
			}
		}
	}
	seqs := make([]int64, len(best))
	for i, e := range best {
		seqs[i] = e.Seq
	}
	return readSpansBySeq(ctx, tx, seqs, sel, out, budget)
}

// sortBucketed reports whether key's sort index is bucketed.
func sortBucketed(key warehouse.SortKey) bool {
	idx, ok := index.SortIndexOf(key)
	return ok && idx.Bucket != ""
}
