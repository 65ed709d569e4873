package index

import (
	"fmt"
	"math"
	"strconv"

	"github.com/evalcol/evalcol/internal/warehouse/sqlfilter"
)

// Posting runs and lists: the tables that hold them, the filters they
// answer, and the SQL of a range's lists (package sqlite runs it).

// PostingTables names the tables of one set of posting runs: a table of
// runs and one of lists, in the shape of posting_runs and span_postings.
type PostingTables struct{ Runs, Lists string }

// NextRunSQL allocates a run number: one above every run (merged ones
// included), so a run's rows always go to the end of the lists' table.
func (t PostingTables) NextRunSQL() string {
	return `SELECT coalesce((SELECT max(run) FROM ` + t.Runs + `), 0) + 1`
}

// InsertListsSQL starts the insert of list rows (OR FAIL: no statement
// journal, as insertPointSQL).
func (t PostingTables) InsertListsSQL() string {
	return "INSERT OR FAIL INTO " + t.Lists + " (run, environment, hash, base, n, min_ts, max_ts, offsets) VALUES "
}

// PostingFilter is a filter of a span query that the postings answer: an
// equality or in-list on an attribute or an indexed column, with values
// short enough to be indexed.
type PostingFilter struct {
	Index  int      // in SpanQuery.Filters
	Key    string   // posting key: attribute key, TraceIDKey or ColumnKey(column)
	Values []string // distinct values
	// Resolved marks the values of another filter the dictionary resolved
	// (resolveFilters): the runs must record their values.
	Resolved bool
	// Hours, for resolved values, are the hours each was recorded in
	// (aligned with values): a value's lists are looked up only in the
	// runs that reach them.
	Hours []HourSpan
}

// String prints f in plans: its key and values.
func (f PostingFilter) String() string { return fmt.Sprintf("%q=%q", f.Key, f.Values) }

// hashes returns the posting hashes of f's values.
func (f PostingFilter) hashes() []any {
	out := make([]any, len(f.Values))
	for i, v := range f.Values {
		out[i] = PostingHash(f.Key, v)
	}
	return out
}

// PostingRange is the part of a query the postings are read for: the
// environments, the time range [from, to] (to 0: open) and the runs that
// list spans of it.
type PostingRange struct {
	Tables   PostingTables
	Envs     []string
	From, To int64
	Runs     []PostingRun // runs whose spans reach into the range
}

// PostingRun is a run of span_postings and the start times it lists.
type PostingRun struct {
	ID, MinTS, MaxTS int64
}

// Holds reports whether r's postings list every span of r that holds one
// of f's values: every run lists every span's values, and f's values, when
// resolved, come from the dictionary (DictionaryHolds).
func (r PostingRange) Holds(f PostingFilter) bool {
	return !f.Resolved || r.DictionaryHolds()
}

// Bounds returns the earliest and latest start time the range's postings
// can list (hi < lo: none).
func (r PostingRange) Bounds() (lo, hi int64) {
	lo, hi = math.MaxInt64, math.MinInt64
	for _, run := range r.Runs {
		lo, hi = min(lo, run.MinTS), max(hi, run.MaxTS)
	}
	lo = max(lo, r.From)
	if r.To != 0 {
		hi = min(hi, r.To)
	}
	return lo, hi
}

// Cut returns r narrowed to the start times [a, b].
func (r PostingRange) Cut(a, b int64) PostingRange {
	out := r
	out.From = max(r.From, a)
	out.To = b
	if r.To != 0 {
		out.To = min(r.To, b)
	}
	out.Runs = nil
	for _, run := range r.Runs {
		if run.MaxTS >= out.From && run.MinTS <= out.To {
			out.Runs = append(out.Runs, run)
		}
	}
	return out
}

// runIDs returns the ids of r's runs as query arguments.
func (r PostingRange) runIDs() []any {
	out := make([]any, len(r.Runs))
	for i, run := range r.Runs {
		out[i] = run.ID
	}
	return out
}

// RowsWhere is the condition on span_postings rows (as p) of f in r: the
// runs, environments and hashes, rows reaching into the time range.
func (r PostingRange) RowsWhere(f PostingFilter) (string, []any) {
	var cond string
	var args []any
	if f.Hours != nil {
		// Resolved values: each looked up only in the runs that reach
		// the hours it was recorded in (a value unique to a span is in
		// one run, not in every run of the range).
		cond = `(p.run, p.hash) IN (SELECT j.value ->> 0, j.value ->> 1 FROM json_each(?) AS j) AND p.environment IN (` +
			sqlfilter.Placeholders(len(r.Envs)) + `) AND p.max_ts >= ?`
		args = append(append([]any{r.runHashPairs(f)}, anys(r.Envs)...), r.From)
	} else {
		hashes := f.hashes()
		cond = `p.run IN (` + sqlfilter.Placeholders(len(r.Runs)) + `) AND p.environment IN (` + sqlfilter.Placeholders(len(r.Envs)) + `) AND `
		args = append(r.runIDs(), anys(r.Envs)...)
		if len(hashes) == 0 || len(hashes) > maxHashParams {
			// Many values: one JSON array.
			cond += `p.hash IN (SELECT value FROM json_each(?)) AND p.max_ts >= ?`
			args = append(args, hashArray(hashes), r.From)
		} else {
			cond += `p.hash IN (` + sqlfilter.Placeholders(len(hashes)) + `) AND p.max_ts >= ?`
			args = append(append(args, hashes...), r.From)
		}
	}
	if r.To != 0 {
		cond += ` AND p.min_ts <= ?`
		args = append(args, r.To)
	}
	return cond, args
}

// runHashPairs returns, as a JSON array of [run, hash] pairs, the lists
// of f's resolved values in the runs of r that reach their hours.
func (r PostingRange) runHashPairs(f PostingFilter) string {
	hashes := f.hashes()
	b := []byte{'['}
	for _, run := range r.Runs {
		for i, h := range hashes {
			if !f.Hours[i].overlaps(run) {
				continue
			}
			if len(b) > 1 {
				b = append(b, ',')
			}
			b = append(b, '[')
			b = strconv.AppendInt(b, run.ID, 10)
			b = append(b, ',')
			b = strconv.AppendInt(b, h.(int64), 10)
			b = append(b, ']')
		}
	}
	return string(append(b, ']'))
}

// maxHashParams is the most hashes RowsWhere binds one by one.
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

// CandidatesSQL returns a subquery of the sequence numbers f's postings
// list for r: a superset of the spans of r that hold one of f's values.
func (r PostingRange) CandidatesSQL(f PostingFilter) (string, []any) {
	if len(r.Runs) == 0 {
		return `SELECT NULL WHERE 0`, nil
	}
	cond, args := r.RowsWhere(f)
	return `SELECT p.base + o.value FROM ` + r.Tables.Lists + ` AS p CROSS JOIN json_each(p.offsets) AS o WHERE ` + cond, args
}

// Within is the condition that a span_postings row (as p) lies wholly
// within the time range.
func (r PostingRange) Within() (string, []any) {
	if r.To != 0 {
		return `p.min_ts >= ? AND p.max_ts <= ?`, []any{r.From, r.To}
	}
	return `p.min_ts >= ?`, []any{r.From}
}

// DictionaryHolds reports whether the dictionary resolves filters in r:
// some run lists spans of it.
func (r PostingRange) DictionaryHolds() bool { return len(r.Runs) > 0 }

// HourSpan is the first and last hour a value was recorded in.
type HourSpan struct{ First, Last int64 }

// overlaps reports whether a run listing start times [minTS, maxTS] can
// hold a span of the hours of h.
func (h HourSpan) overlaps(run PostingRun) bool {
	return run.MinTS < (h.Last+1)*HourMs && run.MaxTS >= h.First*HourMs
}

// anys returns xs as query arguments.
func anys[T any](xs []T) []any {
	out := make([]any, len(xs))
	for i, x := range xs {
		out[i] = x
	}
	return out
}
