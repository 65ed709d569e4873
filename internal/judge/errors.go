package judge

import (
	"errors"
	"fmt"
	"time"
	"unicode/utf8"
)

// Kind classifies a judge error by whose fault it is and what the caller
// can do.
type Kind int

// The kinds of judge errors.
const (
	// KindInput: the input does not fit the evaluator (a field the prompt
	// needs is missing, or a value has the wrong type).
	KindInput Kind = iota + 1
	// KindOutput: the model answered, but not an object that fits the
	// output schema; Raw holds (the start of) its answer.
	KindOutput
	// KindUpstream: the provider refused the request or failed (after the
	// retries).
	KindUpstream
	// KindRateLimited: the provider kept answering 429, or asked to wait
	// longer than allowed; RetryAfter says how long.
	KindRateLimited
	// KindTimeout: the provider did not answer in time.
	KindTimeout
	// KindBusy: every slot of the provider's concurrency cap stayed taken
	// for the whole timeout.
	KindBusy
	// KindConfig: the evaluator names a provider this collector does not
	// have.
	KindConfig
)

func (k Kind) String() string {
	switch k {
	case KindInput:
		return "input"
	case KindOutput:
		return "output"
	case KindUpstream:
		return "upstream"
	case KindRateLimited:
		return "rate_limited"
	case KindTimeout:
		return "timeout"
	case KindBusy:
		return "busy"
	case KindConfig:
		return "config"
	}
	return "unknown"
}

// Error is the error of a judge call.
type Error struct {
	Kind Kind
	// Provider is the configured provider's name.
	Provider string
	// Status is the provider's last HTTP status (0: none).
	Status int
	// Msg says what went wrong; it never holds a provider key.
	Msg string
	// Raw is the start of the model's answer (at most RawLimit bytes) for
	// KindOutput, and of the provider's error body for KindUpstream.
	Raw string
	// RetryAfter is how long the provider asked to wait (KindRateLimited,
	// KindBusy).
	RetryAfter time.Duration
	// Usage counts the tokens the failed call still used (KindOutput).
	Usage Usage
	err   error
}

func (e *Error) Error() string {
	msg := e.Msg
	if e.Provider != "" {
		msg = "judge provider " + e.Provider + ": " + msg
	}
	if e.Raw != "" {
		msg += "; raw answer: " + e.Raw
	}
	return msg
}

// Unwrap returns the underlying error.
func (e *Error) Unwrap() error { return e.err }

// AsError returns err as a *Error, if it is one.
func AsError(err error) (*Error, bool) {
	var e *Error
	ok := errors.As(err, &e)
	return e, ok
}

// RawLimit bounds the raw answer kept in an error.
const RawLimit = 2 << 10

// bounded returns s cut to at most limit bytes on a rune boundary, saying
// how much was left out.
func bounded(s string, limit int) string {
	if len(s) <= limit {
		return s
	}
	cut := limit
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return fmt.Sprintf("%s…(%d more bytes)", s[:cut], len(s)-cut)
}
