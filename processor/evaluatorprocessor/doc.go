// Package evaluatorprocessor is the evaluator processor: it runs evalcol's
// text evaluators over the LLM spans that match its monitors (static ones
// from the configuration and the live auto monitor setups of the evalapi
// extension) and records each result on the span as a
// gen_ai.evaluation.result event. Spans always pass through.
package evaluatorprocessor
