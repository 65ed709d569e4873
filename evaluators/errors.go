package evaluators

import (
	"errors"
	"fmt"
)

// ErrorKind classifies an evaluation error; each kind maps to one HTTP status.
type ErrorKind int

// The kinds of evaluation error.
const (
	// KindInvalidInput is a bad request: a missing or mistyped field, a bad
	// config value, a pattern that does not compile or times out (400).
	KindInvalidInput ErrorKind = iota + 1
	// KindUnknownEvaluator is a slug that is not in the catalogue (404).
	KindUnknownEvaluator
	// KindInternal is a fault of ours: a panic or a broken model (500).
	KindInternal
)

// ErrPanic is wrapped by the KindInternal error of an evaluator that
// panicked (Definition.Run recovers it).
var ErrPanic = errors.New("evaluator panicked")

// Error is the error type Evaluate returns.
type Error struct {
	Kind ErrorKind
	// Field is the offending request field, e.g. "input.text" or
	// "config.threshold", when there is one.
	Field string
	Msg   string
	Err   error
}

func (e *Error) Error() string {
	if e.Err != nil {
		return e.Msg + ": " + e.Err.Error()
	}
	return e.Msg
}

func (e *Error) Unwrap() error { return e.Err }

// HTTPStatus is the status code the /v2 API answers for the error.
func (e *Error) HTTPStatus() int {
	switch e.Kind {
	case KindInvalidInput:
		return 400
	case KindUnknownEvaluator:
		return 404
	default:
		return 500
	}
}

// KindOf returns the kind of err, KindInternal for errors not of this package.
func KindOf(err error) ErrorKind {
	var e *Error
	if errors.As(err, &e) {
		return e.Kind
	}
	return KindInternal
}

// invalidf returns a KindInvalidInput error about field.
func invalidf(field, format string, args ...any) *Error {
	return &Error{Kind: KindInvalidInput, Field: field, Msg: fmt.Sprintf(format, args...)}
}

// InvalidInput returns a KindInvalidInput error about field, for use by
// evaluator implementations.
func InvalidInput(field, format string, args ...any) error { return invalidf(field, format, args...) }
