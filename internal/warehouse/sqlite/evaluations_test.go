package sqlite

import (
	"context"
	"errors"
	"testing"

	"github.com/evalcol/evalcol/internal/warehouse"
)

// The behaviour of AppendEvaluations is checked by the storetest suite
// (group AppendEvaluations); this is the SQLite error message.
func TestAppendEvaluationsClosed(t *testing.T) {
	st := openTemp(t)
	st.Close()
	err := st.AppendEvaluations(context.Background(), "prod", []warehouse.SpanEvaluations{{TraceID: "t", SpanID: "s"}})
	if !errors.Is(err, warehouse.ErrUnavailable) || err.Error() != "append evaluations: store closed: warehouse unavailable" {
		t.Errorf("err = %v, want append evaluations: store closed: warehouse unavailable", err)
	}
}
