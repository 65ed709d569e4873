package evaluators

import (
	"context"
	"errors"
	"strings"
	"sync"

	"vitess.io/vitess/go/vt/sqlparser"
)

var sqlValidator = Definition{
	Slug:     "sql-validator",
	Category: CategoryFormatting,
	Description: "Checks that the text is syntactically valid SQL in the MySQL 8.0 dialect (Vitess's parser): one or more statements separated by semicolons; " +
		"PostgreSQL-only syntax such as :: casts or RETURNING is not valid; table and column names are not checked.",
	Inputs:  []Field{textInput("text", "Text", "The text to validate as SQL.")},
	Outputs: []Field{boolOutput("is_valid_sql", "Is valid SQL", "Whether every statement of the text parses.")},
	Side:    SideOutput,
	Score:   "is_valid_sql",
	PassDoc: "is_valid_sql == true",
	run:     runSQLValidator,
	pass:    passWhenTrue("is_valid_sql"),
}

// sqlParser is Vitess's MySQL parser (vitess.io/vitess go/vt/sqlparser,
// its grammar for MySQL 8.0), made once; a Parser is safe for concurrent
// use.
var sqlParser = sync.OnceValues(func() (*sqlparser.Parser, error) {
	return sqlparser.New(sqlparser.Options{MySQLServerVersion: "8.0.40"})
})

// runSQLValidator splits the text into statements at semicolons outside
// quotes and comments and parses each with Vitess's MySQL 8.0 grammar
// (SELECT with joins, subqueries, CTEs and window functions, INSERT,
// UPDATE, DELETE, DDL, SET, SHOW, ...). The text is valid SQL when it
// holds at least one statement and every statement parses. Only syntax is
// checked: there is no schema, so unknown tables and columns are fine. A
// text of only whitespace, comments or semicolons is not valid SQL, and
// neither is SQL wrapped in a Markdown code fence.
func runSQLValidator(_ context.Context, req Request) (Result, error) {
	p, err := sqlParser()
	if err != nil {
		return nil, &Error{Kind: KindInternal, Msg: "SQL parser unavailable", Err: err}
	}
	return Result{"is_valid_sql": validSQL(p, req.Text("text"))}, nil
}

func validSQL(p *sqlparser.Parser, text string) bool {
	if strings.TrimSpace(text) == "" {
		return false
	}
	pieces, err := p.SplitStatementToPieces(text)
	if err != nil {
		return false
	}
	n := 0
	for _, piece := range pieces {
		if strings.TrimSpace(piece) == "" {
			continue
		}
		stmt, err := p.Parse(piece)
		if errors.Is(err, sqlparser.ErrEmpty) {
			continue // only comments
		}
		if err != nil {
			return false
		}
		if _, comment := stmt.(*sqlparser.CommentOnly); comment {
			continue
		}
		n++
	}
	return n > 0
}
