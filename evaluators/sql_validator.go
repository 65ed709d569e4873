package evaluators

import (
	"context"

	"github.com/evalcol/evalcol/evaluators/internal/sqlcheck"
)

var sqlValidator = Definition{
	Slug:     "sql-validator",
	Category: CategoryFormatting,
	Description: "Checks that the text is syntactically valid SQL in SQLite's dialect (SQLite's own parser): one or more statements separated by semicolons. " +
		"It takes standard SQL with CTEs, window functions, UPSERT and RETURNING, MySQL backticks and LIMIT x, y; not PostgreSQL :: casts or ILIKE, MySQL INTERVAL arithmetic or T-SQL TOP. Table and column names are not checked.",
	Inputs:  []Field{textInput("text", "Text", "The text to validate as SQL.")},
	Outputs: []Field{boolOutput("is_valid_sql", "Is valid SQL", "Whether every statement of the text parses.")},
	Side:    SideOutput,
	Score:   "is_valid_sql",
	PassDoc: "is_valid_sql == true",
	run:     runSQLValidator,
	pass:    passWhenTrue("is_valid_sql"),
}

// runSQLValidator splits the text into statements at the semicolons
// outside quotes and comments and prepares each, never running it, on an
// empty in-memory SQLite database (sqlcheck, modernc.org/sqlite: SQLite's
// own parser, already in the binary for the warehouse). The text is valid
// SQL when it holds at least one statement and the parser accepts every
// one: only its errors count (a token it did not expect, an unrecognised
// token, input that ends too early), so unknown tables, columns and
// functions are fine. A text of only whitespace, comments or semicolons
// is not valid SQL, and neither is SQL in a Markdown code fence.
//
// Vitess's MySQL parser (vitess.io/vitess v0.24.4 go/vt/sqlparser) was
// tried first (issue 30): it adds 8.6 MB to the 98 MB binary and its glog
// dependency starts a goroutine at init, which every goleak test of the
// repository then reports; SQLite's parser is already linked.
func runSQLValidator(_ context.Context, req Request) (Result, error) {
	ok, err := sqlcheck.Default().Valid(req.Text("text"))
	if err != nil {
		return nil, &Error{Kind: KindInternal, Msg: "SQL check failed", Err: err}
	}
	return Result{"is_valid_sql": ok}, nil
}
