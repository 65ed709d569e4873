package httpapi

import (
	"errors"
	"sort"

	"github.com/evalcol/evalcol/evaluators"
)

func sortedStrings(s []string) []string {
	sort.Strings(s)
	return s
}

func asEvalError(err error, target **evaluators.Error) bool { return errors.As(err, target) }
