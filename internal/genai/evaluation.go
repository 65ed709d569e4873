package genai

import semconv "go.opentelemetry.io/otel/semconv/v1.41.0"

// Names of an evaluation result recorded on a span: one span event per
// result. The evaluator processor writes them; the warehouse exporter reads
// them back. The semantic conventions define the event and its name and
// score attributes; the output fields, the monitor id and the error message
// are evalcol's own.
const (
	// EvaluationEvent is the name of the event that carries one result.
	EvaluationEvent = "gen_ai.evaluation.result"
	// AttrEvaluationName is the evaluator's slug.
	AttrEvaluationName = string(semconv.GenAIEvaluationNameKey)
	// AttrEvaluationScoreValue is the numeric score.
	AttrEvaluationScoreValue = string(semconv.GenAIEvaluationScoreValueKey)
	// AttrEvaluationScoreLabel is the verdict label (e.g. "safe", "unsafe").
	AttrEvaluationScoreLabel = string(semconv.GenAIEvaluationScoreLabelKey)
	// AttrEvaluationOutputPrefix prefixes each raw output field of the
	// evaluator (gen_ai.evaluation.output.is_safe, ...).
	AttrEvaluationOutputPrefix = "gen_ai.evaluation.output."
	// AttrEvaluationErrorMessage explains a failed evaluation.
	AttrEvaluationErrorMessage = "gen_ai.evaluation.error.message"
	// AttrErrorType classifies a failed evaluation (timeout, panic,
	// invalid_input, internal).
	AttrErrorType = string(semconv.ErrorTypeKey)
	// AttrMonitorID is the id of the monitor (static or setup) that ran
	// the evaluator.
	AttrMonitorID = "evalcol.monitor.id"
	// AttrEvaluationExplanation is the one-line summary of why the
	// evaluator answered as it did (the GenAI conventions' free-form
	// explanation).
	AttrEvaluationExplanation = string(semconv.GenAIEvaluationExplanationKey)
	// AttrEvaluationExplanationJSON is the whole explanation as JSON
	// (evaluators.Explanation: summary, findings with offsets, parts).
	AttrEvaluationExplanationJSON = "evalcol.evaluation.explanation"
	// AttrEvaluationVerdict is the verdict (pass, fail, error) the
	// evaluator processor decided when it recorded the result, so that
	// readers (the warehouse, the metrics connector) read it instead of
	// deciding it again; events without it (written by other tools) get
	// the evaluator's pass condition applied by their reader.
	AttrEvaluationVerdict = "evalcol.evaluation.verdict"
	// AttrTruncated marks an evaluation whose input text was truncated.
	AttrTruncated = "evalcol.truncated"
	// AttrGroundTruth is the default span attribute that holds the ground
	// truth or reference of correctness and similarity evaluators.
	AttrGroundTruth = "gen_ai.evaluation.ground_truth"
)
