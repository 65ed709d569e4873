package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// stmtCache keeps the writer's statements compiled across transactions:
// parsing a multi-row INSERT of hundreds of parameters cost as much as
// running it, and a group commit of a few requests runs each only a few
// times. The statements are compiled once, when the store opens (the one
// writer connection is free then; later it is held by the transaction
// that asks), for every text the writes use: the multi-row INSERTs in
// power-of-two sizes (see rowInserter and insertKeys). The full-text
// index's inserts are not among them: compiling a statement on a virtual
// table reads its pages, and a store whose index is damaged still opens
// (its reads serve, its writes fail and /healthz says so).
type stmtCache struct {
	m map[string]*sql.Stmt // read-only after newStmtCache
}

// newStmtCache compiles texts on db.
func newStmtCache(ctx context.Context, db *sql.DB, texts []string) (*stmtCache, error) {
	c := &stmtCache{m: make(map[string]*sql.Stmt, len(texts))}
	for _, text := range texts {
		st, err := db.PrepareContext(ctx, text)
		if err != nil {
			c.close()
			return nil, fmt.Errorf("prepare statements: %w", err)
		}
		c.m[text] = st
	}
	return c, nil
}

// in returns the statement text compiled, for use in tx: from the cache,
// else (or with no cache) compiled now for tx alone.
func (c *stmtCache) in(ctx context.Context, tx *sql.Tx, text string) (*sql.Stmt, error) {
	if c != nil {
		if st, ok := c.m[text]; ok {
			return tx.StmtContext(ctx, st), nil
		}
	}
	st, err := tx.PrepareContext(ctx, text)
	if err != nil {
		return nil, fmt.Errorf("prepare: %w", err)
	}
	return st, nil
}

// close releases the statements.
func (c *stmtCache) close() error {
	var errs []error
	for _, st := range c.m {
		errs = append(errs, st.Close())
	}
	return errors.Join(errs...)
}

// writerStatements are the texts the writes run, for newStmtCache.
func writerStatements() []string {
	var out []string
	for _, ins := range []struct {
		prefix     string
		columns, n int
	}{{insertSpanSQL, spanColumns, rowsPerInsert}, {insertPointSQL, pointColumns, rowsPerInsert}, {spanPostingTables.InsertListsSQL(), postingColumns, indexRowsPerInsert},
		{pointPostingTables.InsertListsSQL(), postingColumns, indexRowsPerInsert},
		{insertTraceStatSQL, traceStatColumnsWritten, rowsPerInsert}, {insertValueSQL, 4, valuesPerInsert}, {insertGapSQL, 2, valuesPerInsert}} {
		out = append(out, insertStatement(ins.prefix, ins.columns, ins.n))
		for n := 1; n < ins.n; n *= 2 {
			out = append(out, insertStatement(ins.prefix, ins.columns, n))
		}
	}
	for _, t := range []struct {
		table       string
		withContent bool
	}{{"span_keys_by_time", true}, {"point_keys_by_time", false}} {
		for n := 1; n <= pairsPerInsert; n *= 2 {
			out = append(out, insertKeysStatement(t.table, n, t.withContent))
		}
	}
	return append(out, spansHighWater, upsertCountSQL, dropEmptyCountSQL, upsertSpanStatSQL, dropEmptySpanStatSQL,
		selectTraceStatsSQL, updateTraceStatSQL, deleteTraceStatSQL, upsertTraceCountSQL, dropEmptyTraceCountSQL)
}
