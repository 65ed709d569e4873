package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
)

// rowsPerInsert is how many rows one INSERT statement of a rowInserter
// carries by default. One statement per row spent more time in the driver
// than in SQLite; 64 rows of 29 columns stay far below SQLite's limit of
// 32 766 bound parameters.
const rowsPerInsert = 64

// rowInserter inserts rows through multi-row INSERT statements within one
// transaction: add collects a row, and every perInsert rows (and on flush)
// one statement writes them.
type rowInserter struct {
	tx        *sql.Tx
	prefix    string // "INSERT INTO t (c1, ...) VALUES "
	columns   int
	perInsert int
	full      *sql.Stmt // prepared for perInsert rows, on first use
	args      []any
}

// newRowInserter inserts rows of columns values with prefix, perInsert
// rows per statement.
func newRowInserter(tx *sql.Tx, prefix string, columns, perInsert int) *rowInserter {
	return &rowInserter{tx: tx, prefix: prefix, columns: columns, perInsert: perInsert, args: make([]any, 0, perInsert*columns)}
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
		stmt, err := r.tx.PrepareContext(ctx, r.statement(r.perInsert))
		if err != nil {
			return fmt.Errorf("prepare insert: %w", err)
		}
		r.full = stmt
	}
	if _, err := r.full.ExecContext(ctx, r.args...); err != nil {
		return fmt.Errorf("insert %d rows: %w", r.perInsert, err)
	}
	r.args = r.args[:0]
	return nil
}

// flush writes the queued rows.
func (r *rowInserter) flush(ctx context.Context) error {
	n := len(r.args) / r.columns
	if n == 0 {
		return nil
	}
	if _, err := r.tx.ExecContext(ctx, r.statement(n), r.args...); err != nil {
		return fmt.Errorf("insert %d rows: %w", n, err)
	}
	r.args = r.args[:0]
	return nil
}

// close releases the prepared statement.
func (r *rowInserter) close() {
	if r.full != nil {
		r.full.Close()
	}
}

// statement is the INSERT of n rows.
func (r *rowInserter) statement(n int) string {
	row := "(" + placeholders(r.columns) + ")"
	var b strings.Builder
	b.Grow(len(r.prefix) + n*(len(row)+2))
	b.WriteString(r.prefix)
	for i := range n {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(row)
	}
	return b.String()
}
