// Package evaluationmetricsconnector is the evaluationmetrics connector:
// from the evaluation results recorded on the spans of a traces pipeline
// (gen_ai.evaluation.result events of the evaluator processor) it emits
// cumulative OTel metrics to a metrics pipeline: evaluations counted by
// evaluator, verdict and configurable dimensions, and a histogram of
// scores per evaluator, with a bounded number of series.
package evaluationmetricsconnector
