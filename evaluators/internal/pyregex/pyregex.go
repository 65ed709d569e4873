// Package pyregex compiles Python re patterns with regexp2 and searches
// text with them under a match timeout.
//
// Patterns are translated from Python syntax first (see Translate), then
// compiled with regexp2's default (.NET) semantics: neither RE2 nor
// ECMAScript mode, whose \w, \d and \s are ASCII-only. In the default mode
// \w, \d, \s and \b are Unicode-aware, as in Python 3 str patterns.
// regexp2's Unicode option is not set: it only changes how ECMAScript mode
// parses \u{...}. Measured over all code points against CPython 3.11, the
// remaining differences are: \d is identical (up to the Unicode version);
// \s lacks U+001C..U+001F, which Python's str.isspace() includes; \w also
// matches combining marks (Mn) and connector punctuation (Pc) other than _,
// which Python's does not, and does not match non-decimal numbers (No, Nl:
// ², ½, Ⅻ), which Python's does.
//
// Every search is bounded by a match timeout, so catastrophic backtracking
// ends in ErrTimeout instead of pinning a CPU.
package pyregex

import (
	"errors"
	"fmt"
	"time"

	"github.com/dlclark/regexp2"
)

// DefaultTimeout bounds one search when no other timeout is given.
const DefaultTimeout = 250 * time.Millisecond

// ErrTimeout is returned by Search when the match timeout ran out.
var ErrTimeout = errors.New("regex timed out")

// MaxPatternBytes bounds the length of a pattern. Compiling is not bounded
// by the match timeout and costs about 0.3 µs per byte (up to 30 µs per
// byte for deeply nested groups), and the cache keeps patterns: 64 KiB
// compiles in at most ~25 ms and keeps a full cache under 16 MiB.
const MaxPatternBytes = 64 << 10

// ErrTooLarge is returned by Compile for a pattern longer than
// MaxPatternBytes; like a syntax error, it means the pattern is invalid.
var ErrTooLarge = errors.New("pattern too large")

// Flags are the matching options of a pattern, named after Python's re
// flags.
type Flags struct {
	// IgnoreCase matches letters case-insensitively (re.IGNORECASE).
	IgnoreCase bool
	// DotAll lets . match a newline (re.DOTALL).
	DotAll bool
	// MultiLine lets ^ and $ match at every line (re.MULTILINE).
	MultiLine bool
}

func (f Flags) options() regexp2.RegexOptions {
	opt := regexp2.None
	if f.IgnoreCase {
		opt |= regexp2.IgnoreCase
	}
	if f.DotAll {
		opt |= regexp2.Singleline
	}
	if f.MultiLine {
		opt |= regexp2.Multiline
	}
	return opt
}

// Regexp is a compiled Python pattern. It is safe for concurrent use.
type Regexp struct {
	re      *regexp2.Regexp
	timeout time.Duration
}

// Compile translates pattern from Python syntax and compiles it. Searches
// with the result time out after timeout (DefaultTimeout when timeout <= 0).
func Compile(pattern string, flags Flags, timeout time.Duration) (*Regexp, error) {
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	if err := checkSize(pattern); err != nil {
		return nil, err
	}
	translated, err := Translate(pattern)
	if err != nil {
		return nil, err
	}
	re, err := regexp2.Compile(translated, flags.options())
	if err != nil {
		return nil, err
	}
	re.MatchTimeout = timeout
	return &Regexp{re: re, timeout: timeout}, nil
}

// Search reports whether the pattern matches anywhere in text, as Python's
// re.search does. The error is ErrTimeout (wrapped with the limit) when the
// search ran out of time.
func (r *Regexp) Search(text string) (bool, error) {
	ok, err := r.re.MatchString(text)
	if err != nil {
		// regexp2's only match error is its timeout; its message quotes the
		// whole input, so it is replaced rather than wrapped.
		return false, fmt.Errorf("%w after %v", ErrTimeout, r.timeout)
	}
	return ok, nil
}

// SearchIndex is Search that also returns the byte offsets [start, end)
// of the first match in text (both -1 when there is none).
func (r *Regexp) SearchIndex(text string) (start, end int, err error) {
	m, err := r.re.FindStringMatch(text)
	if err != nil {
		return -1, -1, fmt.Errorf("%w after %v", ErrTimeout, r.timeout)
	}
	if m == nil {
		return -1, -1, nil
	}
	// regexp2 counts runes; the offsets of the API are bytes.
	start, end = -1, len(text)
	i := 0
	for b := range text {
		if i == m.Index {
			start = b
		}
		if i == m.Index+m.Length {
			end = b
			break
		}
		i++
	}
	if start < 0 {
		start = len(text) // an empty match at the end
	}
	return start, end, nil
}

// Timeout is the match timeout of r.
func (r *Regexp) Timeout() time.Duration { return r.timeout }

// checkSize refuses a pattern longer than MaxPatternBytes.
func checkSize(pattern string) error {
	if len(pattern) > MaxPatternBytes {
		return fmt.Errorf("%w: %d bytes, at most %d are compiled", ErrTooLarge, len(pattern), MaxPatternBytes)
	}
	return nil
}
