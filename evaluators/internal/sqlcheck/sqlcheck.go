// Package sqlcheck checks the syntax of SQL text with SQLite's own parser
// (modernc.org/sqlite, a pure-Go translation of SQLite, which the
// warehouse already links): each statement is prepared, never run, on an
// empty in-memory database, and only the parser's errors count. Unknown
// tables, columns and functions are not syntax errors.
package sqlcheck

import (
	"database/sql/driver"
	"fmt"
	"runtime"
	"strings"
	"sync"

	"modernc.org/sqlite"
)

// Checker prepares statements on empty in-memory SQLite databases, kept
// in a small pool of driver connections (no database/sql pool, whose
// opener goroutine would outlive every caller). It is safe for concurrent
// use.
type Checker struct {
	drv   driver.Driver
	conns chan driver.Conn
}

// dsn names a private, empty in-memory database.
const dsn = "file:evalcol-sqlcheck?mode=memory&cache=private"

// Default returns the checker of the process, made on first use.
var Default = sync.OnceValue(func() *Checker {
	return &Checker{drv: &sqlite.Driver{}, conns: make(chan driver.Conn, max(2, runtime.GOMAXPROCS(0)))}
})

// Valid reports whether text is one or more syntactically valid SQLite
// statements, separated by semicolons: at least one statement, every
// statement parsed. An error is returned only when the check itself could
// not run (SQLite failed to open a database).
func (c *Checker) Valid(text string) (bool, error) {
	stmts := Split(text)
	if len(stmts) == 0 {
		return false, nil
	}
	conn, err := c.get()
	if err != nil {
		return false, err
	}
	defer c.put(conn)
	for _, s := range stmts {
		st, err := conn.Prepare(s)
		if err == nil {
			_ = st.Close()
			continue
		}
		if SyntaxError(err) {
			return false, nil
		}
		// Other errors ("no such table") come after the statement parsed.
	}
	return true, nil
}

func (c *Checker) get() (driver.Conn, error) {
	select {
	case conn := <-c.conns:
		return conn, nil
	default:
	}
	conn, err := c.drv.Open(dsn)
	if err != nil {
		return nil, fmt.Errorf("sqlcheck: open in-memory SQLite: %w", err)
	}
	return conn, nil
}

// put keeps conn for the next check, or closes it when the pool is full.
func (c *Checker) put(conn driver.Conn) {
	select {
	case c.conns <- conn:
	default:
		_ = conn.Close()
	}
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
