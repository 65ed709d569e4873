package sqlite

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"slices"

	"github.com/evalcol/evalcol/internal/warehouse"
	"github.com/evalcol/evalcol/internal/warehouse/sqlfilter"
	"github.com/evalcol/evalcol/internal/warehouse/sqlite/internal/index"
)

// The access paths of metric queries (point_counts, point_postings and
// the indexes of metric_points):
//
//   - total_results of a query with no filter, or one text equality / in
//     / exists test on a label or an attribute (negated or not, with or
//     without a source), sums point_counts over the
//     hours the range covers whole and counts the points of the part hours
//     at its ends; on a later page, the points written since the
//     pagination's snapshot are taken off. One comparison of numeric_value
//     is counted on the hours' value index instead.
//   - a page sorted by numeric value reads each hour of the range in value
//     order from metric_points_env_hour_value, as far as it can still
//     beat the page's last point so far, and merges them.
//   - a page sorted by metric name (no filters or source) takes the
//     range's names from point_counts and each name's top by sequence
//     number from its index (pageByName).
//   - a query with a label equality or in-list whose postings name few
//     points (point_postings, pointpostings.go) reads those
//     points for its page and, when point_counts cannot give it, its
//     total; it comes first, unless reading in order costs less.
//
// Every other query reads the points in time order, as before. The choice
// is index.PlanPoints', on the statistics planPoints reads.

// hoursPerCount is how many hours one point_counts query sums.
const hoursPerCount = 500

// pointRead is a metric read's plan (index.PlanPoints) and what executing
// it needs: the label candidates' condition, or the hours of the range
// merged by value.
type pointRead struct {
	index.PointPlan
	// candidates is "seq IN (...)", the points the chosen label's
	// postings name (a superset of q's matches: the page and the count
	// still check every filter), with candArgs.
	candidates string
	candArgs   []any
	// hours are the ranges of hours a value merge reads.
	hours []hourRange
}

// planPoints gathers the statistics of a metric read of q whose page
// ends at rank (offset + limit) within snapshot, and plans it
// (index.PlanPoints).
func planPoints(ctx context.Context, tx *sql.Tx, q warehouse.MetricQuery, rank, snapshot int64) (pointRead, error) {
	var st index.PointStats
	filters, r, err := labelStats(ctx, tx, q, &st)
	if err != nil {
		return pointRead{}, err
	}
	if index.NeedsRangePoints(q, st) {
		all := q
		all.Filters, all.Or = nil, false
		w := dialect.MetricSelection(all)
		w.Add("seq <= ?", snapshot)
		if st.RangePoints, err = countPoints(ctx, tx, all, w, nil, snapshot); err != nil {
			return pointRead{}, fmt.Errorf("label postings: %w", err)
		}
	}
	var p pointRead
	if index.NeedsValueHours(q, rank, st) {
		if p.hours, st.ValueHours, err = valueHours(ctx, tx, q); err != nil {
			return pointRead{}, err
		}
	}
	p.PointPlan = index.PlanPoints(q, rank, st)
	if p.Access == index.PointCandidates {
		sub, args := r.CandidatesSQL(filters[p.Label])
		p.candidates, p.candArgs = "seq IN ("+sub+")", args
	}
	return p, nil
}

// countPoints returns total_results of q within snapshot: from
// point_counts when it can answer q, else by counting the matches. where
// is q's selection with the snapshot condition; candidates, when not nil,
// is where narrowed to a label's candidates (planPoints), counted
// instead of every point where selects.
func countPoints(ctx context.Context, tx *sql.Tx, q warehouse.MetricQuery, where sqlfilter.Where, candidates *sqlfilter.Where,
	snapshot int64) (int64, error) {
	if plan, ok := index.PlanCount(q); ok {
		n, ok, err := countPointsByHour(ctx, tx, q, plan, snapshot)
		if err != nil || ok {
			return n, err
		}
	}
	if n, ok, err := countByValue(ctx, tx, q, snapshot); err != nil || ok {
		return n, err
	}
	if candidates != nil {
		return countPointsWhere(ctx, tx, candidatesTable, candidates.SQL(), candidates.Args)
	}
	return countPointsWhere(ctx, tx, "metric_points", where.SQL(), where.Args)
}

// countPointsWhere counts the points of from (metric_points, or
// candidatesTable) that where selects.
func countPointsWhere(ctx context.Context, tx *sql.Tx, from, where string, args []any) (int64, error) {
	var n int64
	if err := tx.QueryRowContext(ctx, "SELECT count(*) FROM "+from+" WHERE "+where, args...).Scan(&n); err != nil {
		return 0, fmt.Errorf("count points: %w", mapErr(err))
	}
	return n, nil
}

// countPointsByHour counts q's matches within snapshot with plan: the
// hours of the range it covers whole from point_counts, the ends from
// the points. ok is false when point_counts leaves plan's key out in one
// of q's environments, or the range covers no hour whole.
func countPointsByHour(ctx context.Context, tx *sql.Tx, q warehouse.MetricQuery, plan index.CountPlan, snapshot int64) (int64, bool, error) {
	if plan.Key != "" {
		for _, env := range q.Environments {
			keys, err := uncountedKeys(ctx, tx, env)
			if err != nil {
				return 0, false, err
			}
			if keys[plan.Key] {
				return 0, false, nil
			}
		}
	}
	firstFull, lastFull, ok := index.WholeHours(q)
	if !ok {
		return 0, false, nil
	}
	var total int64
	for _, env := range q.Environments {
		n, err := sumPointCounts(ctx, tx, env, firstFull, lastFull, q, plan)
		if err != nil {
			return 0, false, err
		}
		total += n
	}
	n, err := countEnds(ctx, tx, q, firstFull, lastFull, snapshot)
	if err != nil {
		return 0, false, err
	}
	total += n
	// The points of the whole hours written after the snapshot: counted
	// in point_counts already.
	later := dialect.MetricSelection(q)
	later.Add("seq > ?", snapshot)
	later.Add("event_time >= ?", firstFull*index.HourMs)
	if q.ToMs != 0 {
		later.Add("event_time < ?", (lastFull+1)*index.HourMs)
	}
	// NOT INDEXED: the rowid range of the points after the snapshot, not
	// the range's time index.
	var after int64
	if err := tx.QueryRowContext(ctx, "SELECT count(*) FROM metric_points NOT INDEXED WHERE "+later.SQL(), later.Args...).Scan(&after); err != nil {
		return 0, false, fmt.Errorf("count points: %w", mapErr(err))
	}
	return total - after, true, nil
}

// countEnds counts q's matches within snapshot in the part hours of its
// range outside [first, last] (whole hours), each end on its own: the
// time index's range of that end, not the whole range's.
func countEnds(ctx context.Context, tx *sql.Tx, q warehouse.MetricQuery, first, last, snapshot int64) (int64, error) {
	low, high := q, q
	low.ToMs = first*index.HourMs - 1
	high.FromMs = (last + 1) * index.HourMs
	var ends []warehouse.MetricQuery
	if low.ToMs >= low.FromMs {
		ends = append(ends, low)
	}
	if q.ToMs != 0 && high.FromMs <= q.ToMs {
		ends = append(ends, high)
	}
	var total int64
	for _, e := range ends {
		w := dialect.MetricSelection(e)
		w.Add("seq <= ?", snapshot)
		n, err := countPointsWhere(ctx, tx, "metric_points", w.SQL(), w.Args)
		if err != nil {
			return 0, err
		}
		total += n
	}
	return total, nil
}

// valueComparisons are the operators countByValue answers, as SQL.
var valueComparisons = map[warehouse.Operator]string{warehouse.OpEquals: "=", warehouse.OpGreaterThan: ">",
	warehouse.OpGreaterThanOrEqual: ">=", warehouse.OpLessThan: "<", warehouse.OpLessThanOrEqual: "<="}

// countByValue counts the matches within snapshot of a query whose one
// filter compares numeric_value with a number (no name, no source, a range
// from time 0 on): each whole hour of the range is a range of
// metric_points_env_hour_value (read alone: it holds the sequence
// number), the part hours at the ends are counted on the time index. ok
// is false for other queries.
func countByValue(ctx context.Context, tx *sql.Tx, q warehouse.MetricQuery, snapshot int64) (int64, bool, error) {
	if len(q.Filters) != 1 || q.MetricName != "" || q.MetricSource != "" || q.FromMs < 0 {
		return 0, false, nil
	}
	f := q.Filters[0]
	ref := warehouse.ResolveMetricField(f.Field)
	op, isComparison := valueComparisons[f.Operator]
	value, isNumber := warehouse.ParseNumber(f.Value)
	if ref.Kind != warehouse.KindColumn || ref.Column != "numeric_value" || !isComparison || !isNumber {
		return 0, false, nil
	}
	first, last, ok := index.WholeHours(q)
	if !ok {
		return 0, false, nil
	}
	var total int64
	for _, env := range q.Environments {
		// Only the hours that hold points (FromMs >= 0: the index's
		// truncated hour is the floor).
		earliest, latest, ok, err := pointTimes(ctx, tx, env, first*index.HourMs)
		if err != nil {
			return 0, false, err
		}
		if !ok {
			continue
		}
		for h := max(first, earliest/index.HourMs); h <= min(last, latest/index.HourMs); h++ {
			var n int64
			if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM metric_points INDEXED BY metric_points_env_hour_value
				WHERE environment = ? AND event_time / 3600000 = ? AND numeric_value `+op+` ? AND seq <= ?`,
				env, h, value, snapshot).Scan(&n); err != nil {
				return 0, false, fmt.Errorf("count points: %w", mapErr(err))
			}
			total += n
		}
	}
	n, err := countEnds(ctx, tx, q, first, last, snapshot)
	if err != nil {
		return 0, false, err
	}
	return total + n, true, nil
}

// pointTimes returns the time of env's earliest point at or after from
// and of its latest point; ok is false when it has none at or after from.
func pointTimes(ctx context.Context, tx *sql.Tx, env string, from int64) (earliest, latest int64, ok bool, err error) {
	var lo, hi sql.NullInt64
	if err := tx.QueryRowContext(ctx, `SELECT min(event_time) FROM metric_points WHERE environment = ? AND event_time >= ?`,
		env, from).Scan(&lo); err != nil {
		return 0, 0, false, fmt.Errorf("earliest point: %w", mapErr(err))
	}
	if !lo.Valid {
		return 0, 0, false, nil
	}
	if err := tx.QueryRowContext(ctx, `SELECT max(event_time) FROM metric_points WHERE environment = ?`, env).Scan(&hi); err != nil {
		return 0, 0, false, fmt.Errorf("latest point: %w", mapErr(err))
	}
	return lo.Int64, hi.Int64, true, nil
}

// sumPointCounts sums the point_counts rows of env for hours [first, last]
// that plan selects, with q's metric name and source.
func sumPointCounts(ctx context.Context, tx *sql.Tx, env string, first, last int64, q warehouse.MetricQuery, plan index.CountPlan) (int64, error) {
	// Only the hours that hold rows: the range is clamped to them, then
	// walked hour by hour, one seek each.
	var lo, hi sql.NullInt64
	// Apart: SQLite finds a lone min or max at an end of the index.
	if err := tx.QueryRowContext(ctx, `SELECT min(hour) FROM point_counts WHERE environment = ?`, env).Scan(&lo); err != nil {
		return 0, fmt.Errorf("count points: %w", mapErr(err))
	}
	if err := tx.QueryRowContext(ctx, `SELECT max(hour) FROM point_counts WHERE environment = ?`, env).Scan(&hi); err != nil {
		return 0, fmt.Errorf("count points: %w", mapErr(err))
	}
	if !lo.Valid {
		return 0, nil
	}
	first, last = max(first, lo.Int64), min(last, hi.Int64)
	if first > last {
		return 0, nil
	}
	sum := func(key string, values []string) (int64, error) {
		var total int64
		// The hours as a list, a seek each (a range of hours would read
		// every row of each hour).
		for lo := first; lo <= last; lo += hoursPerCount {
			hi := min(last, lo+hoursPerCount-1)
			query := `SELECT coalesce(sum(n), 0) FROM point_counts WHERE environment = ? AND hour IN (` +
				placeholders(int(hi-lo+1)) + `) AND key = ?`
			args := []any{env}
			for h := lo; h <= hi; h++ {
				args = append(args, h)
			}
			args = append(args, key)
			switch {
			case key == "":
				query += ` AND value = ''`
			case values != nil:
				query += ` AND value IN (` + placeholders(len(values)) + `)`
				for _, v := range values {
					args = append(args, v)
				}
			}
			if q.MetricName != "" { // then key is "" (index.PlanCount)
				query += ` AND metric_name = ?`
				args = append(args, q.MetricName)
			}
			if q.MetricSource != "" {
				query += ` AND source = ?`
				args = append(args, q.MetricSource)
			}
			var n int64
			if err := tx.QueryRowContext(ctx, query, args...).Scan(&n); err != nil {
				return 0, fmt.Errorf("count points: %w", mapErr(err))
			}
			total += n
		}
		return total, nil
	}
	if plan.Key == "" {
		return sum("", nil)
	}
	n, err := sum(plan.Key, plan.Values)
	if err != nil || !plan.Negate {
		return n, err
	}
	all, err := sum("", nil)
	return all - n, err
}

// rankedPoint is a point of a merged page: its sequence number and value.
type rankedPoint struct {
	seq   int64
	value sql.NullFloat64
}

// compareRanked orders points as ORDER BY numeric_value, seq does
// (NULL first); desc reverses it.
func compareRanked(a, b rankedPoint, desc bool) int {
	c := cmp.Or(compareNullFloat(a.value, b.value), cmp.Compare(a.seq, b.seq))
	if desc {
		return -c
	}
	return c
}

func compareNullFloat(a, b sql.NullFloat64) int {
	switch {
	case !a.Valid && !b.Valid:
		return 0
	case !a.Valid:
		return -1
	case !b.Valid:
		return 1
	}
	return cmp.Compare(a.Float64, b.Float64)
}

// hourRange is a range of one environment's hours a value merge reads.
type hourRange struct {
	env      string
	from, to int64 // hours, as the index computes them (event_time / 3600000, truncated)
}

// valueHours returns the ranges of hours of q's environments from their
// earliest point in q's range to its end (or their latest point), and
// how many hours they hold.
func valueHours(ctx context.Context, tx *sql.Tx, q warehouse.MetricQuery) ([]hourRange, int64, error) {
	var ranges []hourRange
	hours := int64(0)
	for _, env := range q.Environments {
		earliest, latest, ok, err := pointTimes(ctx, tx, env, q.FromMs)
		if err != nil {
			return nil, 0, err
		}
		to := q.ToMs
		if to == 0 {
			to = latest
		}
		if !ok || earliest > to {
			continue
		}
		r := hourRange{env, earliest / index.HourMs, to / index.HourMs}
		hours += r.to - r.from + 1
		ranges = append(ranges, r)
	}
	return ranges, hours, nil
}

// mergeByValue returns the sequence numbers of the points at ranks
// [offset, offset+limit) of a page sorted by numeric value, read hour by
// hour (index.PointValueMerge): each hour of ranges in value order, only
// as far as its points can still enter the first offset+limit. where is
// the query's selection with the snapshot condition.
func mergeByValue(ctx context.Context, tx *sql.Tx, q warehouse.MetricQuery, where sqlfilter.Where, ranges []hourRange,
	offset int64, limit int) ([]int64, error) {
	k := int(offset + int64(limit))
	_, dir := q.SortOrder()
	desc := dir == "DESC"
	best := make([]rankedPoint, 0, k+1) // sorted, the first k so far
	pageOrder := func(a, b rankedPoint) int { return compareRanked(a, b, desc) }
	read := func(query string, args []any) error {
		rows, err := tx.QueryContext(ctx, query, args...)
		if err != nil {
			return fmt.Errorf("points by value: %w", mapErr(err))
		}
		defer rows.Close()
		for rows.Next() {
			var p rankedPoint
			if err := rows.Scan(&p.seq, &p.value); err != nil {
				return fmt.Errorf("points by value: %w", mapErr(err))
			}
			best, _ = keepTop(best, p, k, pageOrder)
		}
		if err := rows.Err(); err != nil {
			return fmt.Errorf("points by value: %w", mapErr(err))
		}
		return nil
	}
	// Within an hour the index holds the points without a value (NULL)
	// first, by sequence number, then those with one by value: the part
	// that sorts first is read first, each bounded by the worst point kept
	// so far once k are kept.
	head := "SELECT seq, numeric_value FROM metric_points INDEXED BY metric_points_env_hour_value WHERE environment = ? AND event_time / 3600000 = ? AND " + where.SQL()
	numbers := func(env string, h int64) error {
		query, args := head+" AND numeric_value IS NOT NULL", append([]any{env, h}, where.Args...)
		if len(best) == k {
			worst := best[k-1]
			switch {
			case !worst.value.Valid && !desc:
				return nil // every number sorts after the NULLs kept
			case !worst.value.Valid:
				// A NULL is kept: every number beats it.
			case desc:
				query += " AND numeric_value >= ?"
				args = append(args, worst.value.Float64)
			default:
				query += " AND numeric_value <= ?"
				args = append(args, worst.value.Float64)
			}
		}
		return read(query+" ORDER BY numeric_value "+dir+", seq "+dir+" LIMIT ?", append(args, k))
	}
	nulls := func(env string, h int64) error {
		query, args := head+" AND numeric_value IS NULL", append([]any{env, h}, where.Args...)
		if len(best) == k {
			worst := best[k-1]
			switch {
			case worst.value.Valid && desc:
				return nil // every NULL sorts after the numbers kept
			case !worst.value.Valid && desc:
				query += " AND seq >= ?"
				args = append(args, worst.seq)
			case !worst.value.Valid:
				query += " AND seq <= ?"
				args = append(args, worst.seq)
			}
		}
		return read(query+" ORDER BY seq "+dir+" LIMIT ?", append(args, k))
	}
	for _, r := range ranges {
		// Newest hours first: a page of the latest values fills early.
		for h := r.to; h >= r.from; h-- {
			first, second := numbers, nulls
			if !desc {
				first, second = nulls, numbers
			}
			if err := first(r.env, h); err != nil {
				return nil, err
			}
			if err := second(r.env, h); err != nil {
				return nil, err
			}
		}
	}
	var seqs []int64
	for i := offset; i < int64(len(best)); i++ {
		seqs = append(seqs, best[i].seq)
	}
	return seqs, nil
}

// readPointsBySeq reads the points of seqs, in that order: with maxBytes
// (warehouse.PageBudget; 0: no bound), only the first that fit it, and cut
// reports that others were left out.
func readPointsBySeq(ctx context.Context, tx *sql.Tx, seqs []int64, maxBytes int64) (_ []warehouse.MetricPoint, cut bool, _ error) {
	if len(seqs) == 0 {
		return nil, false, nil
	}
	if len(seqs) > 1 && maxBytes > 0 {
		// Their sizes from the record headers first.
		var err error
		if seqs, cut, err = fitPoints(ctx, tx, seqs, maxBytes); err != nil {
			return nil, false, err
		}
	}
	rows, err := tx.QueryContext(ctx, "SELECT seq, "+selectPointColumns+" FROM metric_points WHERE seq IN ("+placeholders(len(seqs))+")", asArgs(seqs)...)
	if err != nil {
		return nil, false, fmt.Errorf("read points: %w", mapErr(err))
	}
	defer rows.Close()
	bySeq := make(map[int64]warehouse.MetricPoint, len(seqs))
	for rows.Next() {
		var seq int64
		p, err := scanPoint(rows, &seq)
		if err != nil {
			return nil, false, err
		}
		bySeq[seq] = p
	}
	if err := rows.Err(); err != nil {
		return nil, false, fmt.Errorf("read points: %w", mapErr(err))
	}
	out := make([]warehouse.MetricPoint, 0, len(seqs))
	for _, s := range seqs {
		p, ok := bySeq[s]
		if !ok {
			return nil, false, fmt.Errorf("read points: point %d vanished", s)
		}
		out = append(out, p)
	}
	return out, cut, nil
}

// fitPoints returns the first of seqs (in page order) whose points fit
// maxBytes (warehouse.PageBudget: one at least), and whether others were
// left out.
func fitPoints(ctx context.Context, tx *sql.Tx, seqs []int64, maxBytes int64) ([]int64, bool, error) {
	rows, err := tx.QueryContext(ctx, "SELECT seq, "+pointBytesSQL+" FROM metric_points WHERE seq IN ("+placeholders(len(seqs))+")", asArgs(seqs)...)
	if err != nil {
		return nil, false, fmt.Errorf("point sizes: %w", mapErr(err))
	}
	sizes := make(map[int64]int, len(seqs))
	for rows.Next() {
		var seq int64
		var n int
		if err := rows.Scan(&seq, &n); err != nil {
			rows.Close()
			return nil, false, fmt.Errorf("point sizes: %w", mapErr(err))
		}
		sizes[seq] = n
	}
	if err := rows.Close(); err != nil {
		return nil, false, fmt.Errorf("point sizes: %w", mapErr(err))
	}
	budget := warehouse.NewPageBudget(maxBytes)
	for i, seq := range seqs {
		if budget.Full() {
			return seqs[:i], true, nil
		}
		budget.Add(sizes[seq])
	}
	return seqs, false, nil
}

// pointPageSQL is the query of the sequence numbers of a page of q, in
// SQLite's own sort (readPointPage reads their points).
func pointPageSQL(q warehouse.MetricQuery, where string) string {
	return pointPageSQLFrom(q, "metric_points", where)
}

// candidatesTable reads metric_points by sequence number only: a
// selection narrowed to a label's candidates (planPoints) looks each
// up, where an index of the range or the name would read more points.
const candidatesTable = "metric_points NOT INDEXED"

// pointPageSQLFrom is pointPageSQL on from (metric_points, or
// candidatesTable).
func pointPageSQLFrom(q warehouse.MetricQuery, from, where string) string {
	col, dir := q.SortOrder()
	return "SELECT seq FROM " + from + " WHERE " + where +
		" ORDER BY " + col + " " + dir + ", seq " + dir + " LIMIT ? OFFSET ?"
}

// pageByName returns the sequence numbers of a page sorted by metric name
// (name, then sequence number, in the sort direction) of a query without
// filters or source: the range's names from the hourly counts, in order;
// of each, its points of the range from the name's index (environment,
// metric_name, event_time, seq), read as index entries only, the top by
// sequence number; the names wholly before the page's offset skipped by
// their count on the same index. SQLite's sort of every point of the
// range by (name, seq) read each point's row: 0.7 s a week at 1 000 000
// points (index.PointNameIndex).
func pageByName(ctx context.Context, tx *sql.Tx, q warehouse.MetricQuery, where sqlfilter.Where, offset int64, limit int) ([]int64, error) {
	_, dir := q.SortOrder()
	names, err := rangeNames(ctx, tx, q)
	if err != nil {
		return nil, err
	}
	if dir == "DESC" {
		slices.Reverse(names)
	}
	const byName = "SELECT %s FROM metric_points INDEXED BY metric_points_env_name_time WHERE "
	var seqs []int64
	for _, name := range names {
		if len(seqs) == limit {
			break
		}
		w := sqlfilter.Where{Conds: slices.Clone(where.Conds), Args: slices.Clone(where.Args)}
		w.Add("metric_name = ?", name)
		if offset > 0 {
			var n int64
			if err := tx.QueryRowContext(ctx, fmt.Sprintf(byName, "count(*)")+w.SQL(), w.Args...).Scan(&n); err != nil {
				return nil, fmt.Errorf("points by name: %w", mapErr(err))
			}
			if n <= offset {
				offset -= n
				continue
			}
		}
		more, err := queryColumn[int64](ctx, tx, fmt.Sprintf(byName, "seq")+w.SQL()+" ORDER BY seq "+dir+" LIMIT ? OFFSET ?",
			append(w.Args, limit-len(seqs), offset)...)
		if err != nil {
			return nil, fmt.Errorf("points by name: %w", err)
		}
		seqs = append(seqs, more...)
		offset = 0
	}
	return seqs, nil
}

// rangeNames returns, in byte order (SQLite's), the metric names of q's
// environments that the hourly counts hold in the hours of q's range (a
// name may have no point within the part hours at its ends), or q's name.
func rangeNames(ctx context.Context, tx *sql.Tx, q warehouse.MetricQuery) ([]string, error) {
	if q.MetricName != "" {
		return []string{q.MetricName}, nil
	}
	var w sqlfilter.Where
	w.In("environment", q.Environments)
	w.Add("hour >= ?", index.HourOf(q.FromMs))
	if q.ToMs != 0 {
		w.Add("hour <= ?", index.HourOf(q.ToMs))
	}
	w.Add("key = ''")
	names, err := queryColumn[string](ctx, tx, "SELECT DISTINCT metric_name FROM point_counts WHERE "+w.SQL()+" ORDER BY metric_name", w.Args...)
	if err != nil {
		return nil, fmt.Errorf("metric names: %w", err)
	}
	return names, nil
}
