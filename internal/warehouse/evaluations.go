package warehouse

import "context"

// SpanEvaluations are evaluations to add to one stored span.
type SpanEvaluations struct {
	TraceID, SpanID string
	// Timestamp is the span's start time (Unix ms) when known, 0 when not;
	// backends use it to find the span without a scan.
	Timestamp   int64
	Evaluations []Evaluation
}

// EvaluationAppender is implemented by stores that can add evaluations to
// spans already stored (the backfill of auto monitor setups). It is
// optional: callers check for it with a type assertion.
type EvaluationAppender interface {
	// AppendEvaluations adds each entry's evaluations to its span of
	// environment env, in one transaction. It is idempotent: an evaluation
	// with the same monitor id and name as one the span holds replaces it.
	// Entries whose span is not stored are skipped.
	AppendEvaluations(ctx context.Context, env string, spans []SpanEvaluations) error
}

// MergeEvaluations returns stored with added merged in: an added evaluation
// replaces the stored one of the same monitor id and name (in place), the
// others are appended in order.
func MergeEvaluations(stored, added []Evaluation) []Evaluation {
	out := append([]Evaluation(nil), stored...)
	for _, a := range added {
		replaced := false
		for i := range out {
			if out[i].MonitorID == a.MonitorID && out[i].Name == a.Name {
				out[i], replaced = a, true
				break
			}
		}
		if !replaced {
			out = append(out, a)
		}
	}
	return out
}
