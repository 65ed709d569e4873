// Package sqlcheck checks the syntax of SQL text with SQLite's own parser
// (modernc.org/sqlite, a pure-Go translation of SQLite, which the
// warehouse already links): each statement is prepared, never run, on an
// empty in-memory database, and only the parser's errors count. Unknown
// tables, columns and functions are not syntax errors.
package sqlcheck

import (
	"context"
	"database/sql"
	"fmt"
	"runtime"
	"strings"
	"sync"

	_ "modernc.org/sqlite" // the "sqlite" database/sql driver
)

// Checker prepares statements on empty in-memory SQLite databases. It is
// safe for concurrent use.
type Checker struct {
	db *sql.DB
}

// Default returns the checker of the process, opened on first use.
var Default = sync.OnceValues(func() (*Checker, error) {
	// Each pooled connection is a private, empty in-memory database.
	db, err := sql.Open("sqlite", "file:evalcol-sqlcheck?mode=memory&cache=private")
	if err != nil {
		return nil, fmt.Errorf("sqlcheck: open in-memory SQLite: %w", err)
	}
	n := max(2, runtime.GOMAXPROCS(0))
	db.SetMaxOpenConns(n)
	db.SetMaxIdleConns(n)
	return &Checker{db: db}, nil
})

// Valid reports whether text is one or more syntactically valid SQLite
// statements, separated by semicolons: at least one statement, every
// statement parsed. An error is returned only when the check itself could
// not run (the context ended, SQLite failed).
func (c *Checker) Valid(ctx context.Context, text string) (bool, error) {
	stmts := Split(text)
	if len(stmts) == 0 {
		return false, nil
	}
	conn, err := c.db.Conn(ctx)
	if err != nil {
		return false, fmt.Errorf("sqlcheck: connection: %w", err)
	}
	defer conn.Close()
	for _, s := range stmts {
		st, err := conn.PrepareContext(ctx, s)
		if st != nil {
			st.Close()
		}
		if err == nil {
			continue
		}
		if ctx.Err() != nil {
			return false, fmt.Errorf("sqlcheck: %w", ctx.Err())
		}
		if SyntaxError(err) {
			return false, nil
		}
		// Names that do not resolve ("no such table") come after the
		// statement parsed.
	}
	return true, nil
}

// SyntaxError reports whether a prepare error is the parser's: a token it
// did not expect, an unrecognised token, input that ends too early, a
// parse nested too deeply.
func SyntaxError(err error) bool {
	if err == nil {
		return false
	}
	msg := err.Error()
	for _, s := range []string{"syntax error", "unrecognized token", "incomplete input", "parser stack overflow"} {
		if strings.Contains(msg, s) {
			return true
		}
	}
	return false
}

// Split cuts text into statements at the semicolons outside quotes
// ('...', "...", `...`, [...]) and comments (-- to the end of the line,
// /* ... */), leaving out statements of only whitespace and comments.
// An unterminated quote runs to the end (where the parser reports the
// unrecognised token); an unterminated block comment ends with the text,
// as in SQLite.
func Split(text string) []string {
	var out []string
	start := 0
	hasCode := false
	emit := func(end int) {
		if hasCode {
			out = append(out, text[start:end])
		}
		start, hasCode = end+1, false
	}
	for i := 0; i < len(text); i++ {
		switch ch := text[i]; ch {
		case ';':
			emit(i)
		case '\'', '"', '`', '[':
			closer := ch
			if ch == '[' {
				closer = ']'
			}
			hasCode = true
			j := i + 1
			for j < len(text) {
				if text[j] == closer {
					if ch != '[' && j+1 < len(text) && text[j+1] == closer {
						j += 2 // a doubled quote inside
						continue
					}
					break
				}
				j++
			}
			i = j
		case '-':
			if i+1 < len(text) && text[i+1] == '-' {
				for i < len(text) && text[i] != '\n' {
					i++
				}
				continue
			}
			hasCode = true
		case '/':
			if i+1 < len(text) && text[i+1] == '*' {
				end := strings.Index(text[i+2:], "*/")
				if end < 0 {
					i = len(text) // SQLite ends such a comment at the end of the input
					continue
				}
				i += end + 3
				continue
			}
			hasCode = true
		case ' ', '\t', '\n', '\r', '\f', '\v':
		default:
			hasCode = true
		}
	}
	emit(len(text))
	return out
}
