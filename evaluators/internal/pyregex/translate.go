package pyregex

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
)

// Translate rewrites a Python re pattern into the .NET dialect that
// regexp2 parses, leaving everything both dialects share untouched:
//
//   - (?P<name>...) becomes a plain capturing group and (?P=name) becomes
//     \k<N>, where N is the group's Python number. .NET numbers unnamed
//     groups before named ones, so keeping the names would make \2 refer to
//     a different group than in Python; plain groups keep Python's
//     left-to-right numbering. (?(name)yes|no) becomes (?(N)yes|no).
//   - \Z becomes \z (Python's \Z is the very end of the string; .NET's \Z
//     also matches before a final newline).
//   - \UXXXXXXXX becomes \x{XXXXXXXX}.
//   - {,n} becomes {0,n}.
//   - a [ inside a character class becomes \[ (Python reads it literally;
//     .NET would start a class subtraction after a -).
//   - the u flag of an inline flag group is dropped (Python 3 str patterns
//     are always Unicode); a group left empty is removed.
//
// Escapes are copied as pairs, so an escaped backslash or bracket never
// starts a rewrite, and character classes (including a leading ] and ^])
// are tracked so that nothing inside them is rewritten except [. When the
// pattern starts with a flag group holding x (verbose mode; Python allows
// global flags only at the start), # comments are copied untouched. Translate
// fails for a reference to an
// undefined group name or a name defined twice, as Python does.
func Translate(pattern string) (string, error) {
	t := translator{src: pattern, names: map[string]int{}}
	if err := t.run(); err != nil {
		return "", err
	}
	return t.out.String(), nil
}

type translator struct {
	src    string
	out    strings.Builder
	groups int            // capturing groups opened so far
	names  map[string]int // group name -> Python group number
}

func (t *translator) run() error {
	t.out.Grow(len(t.src) + 8)
	p := t.src
	inClass := false
	verbose := startsVerbose(p)
	for i := 0; i < len(p); {
		c := p[i]
		switch {
		case c == '\\':
			i = t.escape(i, inClass)
		case verbose && !inClass && c == '#':
			end := strings.IndexByte(p[i:], '\n')
			if end < 0 {
				end = len(p) - i
			}
			t.out.WriteString(p[i : i+end])
			i += end
		case inClass:
			if c == ']' {
				inClass = false
				t.out.WriteByte(c)
			} else if c == '[' {
				t.out.WriteString(`\[`)
			} else {
				t.out.WriteByte(c)
			}
			i++
		case c == '[':
			inClass = true
			t.out.WriteByte(c)
			i++
			if i < len(p) && p[i] == '^' {
				t.out.WriteByte('^')
				i++
			}
			if i < len(p) && p[i] == ']' { // a leading ] is literal
				t.out.WriteByte(']')
				i++
			}
		case c == '(':
			next, err := t.group(i)
			if err != nil {
				return err
			}
			i = next
		case c == '{':
			i = t.brace(i)
		default:
			t.out.WriteByte(c)
			i++
		}
	}
	return nil
}

// escape copies the escape sequence at p[i] (a backslash) and returns the
// index after it.
func (t *translator) escape(i int, inClass bool) int {
	p := t.src
	if i+1 >= len(p) { // a trailing backslash: let the compiler report it
		t.out.WriteByte('\\')
		return i + 1
	}
	switch n := p[i+1]; {
	case n == 'Z' && !inClass:
		t.out.WriteString(`\z`)
		return i + 2
	case n == 'U' && i+10 <= len(p) && isHex(p[i+2:i+10]):
		t.out.WriteString(`\x{`)
		t.out.WriteString(p[i+2 : i+10])
		t.out.WriteByte('}')
		return i + 10
	default:
		t.out.WriteByte('\\')
		t.out.WriteByte(n)
		return i + 2
	}
}

// group handles the ( at p[i] and returns the index after what it consumed.
func (t *translator) group(i int) (int, error) {
	p := t.src
	rest := p[i:]
	switch {
	case !strings.HasPrefix(rest, "(?"):
		t.groups++
		t.out.WriteByte('(')
		return i + 1, nil
	case strings.HasPrefix(rest, "(?P<"):
		end := strings.IndexByte(rest, '>')
		if end < 0 {
			return 0, fmt.Errorf("missing > after group name at position %d", i)
		}
		name := rest[len("(?P<"):end]
		if !isGroupName(name) {
			return 0, fmt.Errorf("bad character in group name %q at position %d", name, i)
		}
		if _, dup := t.names[name]; dup {
			return 0, fmt.Errorf("redefinition of group name %q at position %d", name, i)
		}
		t.groups++
		t.names[name] = t.groups
		t.out.WriteByte('(')
		return i + end + 1, nil
	case strings.HasPrefix(rest, "(?#"): // a comment: copied up to its )
		end := strings.IndexByte(rest, ')')
		if end < 0 {
			return 0, fmt.Errorf("missing ), unterminated comment at position %d", i)
		}
		t.out.WriteString(rest[:end+1])
		return i + end + 1, nil
	case strings.HasPrefix(rest, "(?P="):
		end := strings.IndexByte(rest, ')')
		if end < 0 {
			return 0, fmt.Errorf("missing ) after group name at position %d", i)
		}
		n, err := t.lookup(rest[len("(?P="):end], i)
		if err != nil {
			return 0, err
		}
		t.out.WriteString(`\k<` + strconv.Itoa(n) + `>`)
		return i + end + 1, nil
	case strings.HasPrefix(rest, "(?("):
		end := strings.IndexByte(rest, ')')
		if end < 0 {
			return 0, fmt.Errorf("missing ) after condition at position %d", i)
		}
		cond := rest[len("(?("):end]
		if cond == "" || isDigits(cond) {
			t.out.WriteString(rest[:end+1])
			return i + end + 1, nil
		}
		n, err := t.lookup(cond, i)
		if err != nil {
			return 0, err
		}
		t.out.WriteString("(?(" + strconv.Itoa(n) + ")")
		return i + end + 1, nil
	}
	// Inline flags: (?imsx) or (?imsx:...); drop Python's u.
	j := i + 2
	for j < len(p) && strings.IndexByte("aiLmsux", p[j]) >= 0 {
		j++
	}
	if j > i+2 && j < len(p) && (p[j] == ')' || p[j] == ':') && strings.IndexByte(p[i+2:j], 'u') >= 0 {
		flags := strings.ReplaceAll(p[i+2:j], "u", "")
		switch {
		case flags == "" && p[j] == ')':
			// (?u) alone: nothing left to say
		default:
			t.out.WriteString("(?" + flags + string(p[j]))
		}
		return j + 1, nil
	}
	t.out.WriteString("(?")
	return i + 2, nil
}

// lookup returns the number of the group called name.
func (t *translator) lookup(name string, pos int) (int, error) {
	n, ok := t.names[name]
	if !ok {
		return 0, fmt.Errorf("unknown group name %q at position %d", name, pos)
	}
	return n, nil
}

// brace rewrites Python's {,n} quantifier as {0,n}; any other { is copied.
func (t *translator) brace(i int) int {
	p := t.src
	if i+2 < len(p) && p[i+1] == ',' {
		end := strings.IndexByte(p[i:], '}')
		if end > 2 && isDigits(p[i+2:i+end]) {
			t.out.WriteString("{0")
			return i + 1
		}
	}
	t.out.WriteByte('{')
	return i + 1
}

// startsVerbose reports whether pattern opens with an inline flag group
// that sets verbose mode, such as (?x) or (?ix).
func startsVerbose(pattern string) bool {
	if !strings.HasPrefix(pattern, "(?") {
		return false
	}
	for i := 2; i < len(pattern); i++ {
		switch c := pattern[i]; {
		case c == ')':
			return strings.IndexByte(pattern[2:i], 'x') >= 0
		case strings.IndexByte("aiLmsux", c) < 0:
			return false
		}
	}
	return false
}

func isHex(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return false
		}
	}
	return true
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// isGroupName reports whether s is a Python identifier (approximately:
// letters, digits and _, not starting with a digit).
func isGroupName(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		switch {
		case r == '_' || unicode.IsLetter(r):
		case i > 0 && (unicode.IsDigit(r) || unicode.In(r, unicode.Mn, unicode.Mc, unicode.Pc)):
		default:
			return false
		}
	}
	return true
}
