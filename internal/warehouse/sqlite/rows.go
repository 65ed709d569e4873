package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"math/bits"
	"slices"
	"strings"
)

// rowsPerInsert is how many rows one INSERT statement of a rowInserter
// carries by default. One statement per row spent more time in the driver
// than in SQLite; 64 rows of 31 columns stay far below SQLite's limit of
// 32 766 bound parameters.
const rowsPerInsert = 64

// rowInserter inserts rows through multi-row INSERT statements within one
// transaction: add collects a row, and every perInsert rows (and on flush)
// one statement writes them. The statements come compiled from the store's
// cache: perInsert rows, and the rest of a flush in power-of-two parts.
type rowInserter struct {
	tx        *sql.Tx
	stmts     *stmtCache
	prefix    string // "INSERT INTO t (c1, ...) VALUES "
	columns   int
	perInsert int
	full      *sql.Stmt // the statement of perInsert rows, on first use
	args      []any
}

// newRowInserter inserts rows of columns values with prefix, perInsert
// rows per statement.
func newRowInserter(tx *sql.Tx, stmts *stmtCache, prefix string, columns, perInsert int) *rowInserter {
	return &rowInserter{tx: tx, stmts: stmts, prefix: prefix, columns: columns, perInsert: perInsert,
		args: make([]any, 0, perInsert*columns)}
}

// add queues one row of values, one per column.
func (r *rowInserter) add(ctx context.Context, values ...any) error {
	if len(values) != r.columns {
		return fmt.Errorf("insert row: %d values for %d columns", len(values), r.columns)
	}
	r.args = append(r.args, values...)
	if len(r.args) < r.perInsert*r.columns {
		return nil
	}
	if r.full == nil {
		stmt, err := r.stmts.in(ctx, r.tx, r.statement(r.perInsert))
		if err != nil {
			return fmt.Errorf("insert rows: %w", err)
		}
		r.full = stmt
	}
	if _, err := r.full.ExecContext(ctx, r.args...); err != nil {
		return fmt.Errorf("insert %d rows: %w", r.perInsert, err)
	}
	r.args = r.args[:0]
	return nil
}

// flush writes the queued rows: in parts of a power of two rows each, so
// that a few compiled statements serve every count.
func (r *rowInserter) flush(ctx context.Context) error {
	args := r.args
	for n := len(args) / r.columns; n > 0; {
		part := 1 << (bits.Len(uint(n)) - 1) // the largest power of two ≤ n
		stmt, err := r.stmts.in(ctx, r.tx, r.statement(part))
		if err != nil {
			return fmt.Errorf("insert rows: %w", err)
		}
		if _, err := stmt.ExecContext(ctx, args[:part*r.columns]...); err != nil {
			return fmt.Errorf("insert %d rows: %w", part, err)
		}
		args = args[part*r.columns:]
		n -= part
	}
	r.args = r.args[:0]
	return nil
}

// close is kept for symmetry with the statements' life: the cache owns them.
func (r *rowInserter) close() {}

// statement is the INSERT of n rows.
func (r *rowInserter) statement(n int) string { return insertStatement(r.prefix, r.columns, n) }

// insertStatement is prefix followed by n rows of columns placeholders.
func insertStatement(prefix string, columns, n int) string {
	row := "(" + placeholders(columns) + ")"
	var b strings.Builder
	b.Grow(len(prefix) + n*(len(row)+2))
	b.WriteString(prefix)
	for i := range n {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(row)
	}
	return b.String()
}

// queryColumn returns the one column that query selects, row by row.
func queryColumn[T any](ctx context.Context, q querier, query string, args ...any) ([]T, error) {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, mapErr(err)
	}
	defer rows.Close()
	var out []T
	for rows.Next() {
		var v T
		if err := rows.Scan(&v); err != nil {
			return nil, mapErr(err)
		}
		out = append(out, v)
	}
	return out, mapErr(rows.Err())
}

// keepTop inserts e into best, which is sorted by cmp (page order) and
// holds at most k; ok is false when e sorts after the first k and was
// left out.
func keepTop[T any](best []T, e T, k int, cmp func(a, b T) int) (_ []T, ok bool) {
	i, _ := slices.BinarySearchFunc(best, e, cmp)
	if i >= k {
		return best, false
	}
	best = slices.Insert(best, i, e)
	if len(best) > k {
		best = best[:k]
	}
	return best, true
}
