package warehouse

import (
	"context"
	"math"

	"github.com/evalcol/evalcol/evaluators"
)

// Evaluation counts: pre-aggregated results that the console's dashboards
// read instead of scanning metric points. Both backends keep them as
// evaluations are written (WriteSpans, WriteSpansReport and
// AppendEvaluations, an appended result that replaces one taking the old
// one off) and as retention deletes spans, per environment, evaluator,
// verdict, workflow, monitor, score bin and minute or hour of the span's
// start time.
//
// What is counted is what makes a score metric point (see
// CountedEvaluation): a result of a catalogue evaluator without an error
// whose score field is a boolean, a number or an enumerated string; and
// the passing or failing results of custom evaluators (LLM judges), which
// make no point. So the counts of a range equal a GROUP BY over the score
// points of the stored evaluations (and the judged ones), bucketed by the
// span's start time (the points carry the end time; the console's links
// open spans by start time).

// Widths of the count rows (ms).
const (
	CountMinute int64 = 60 * 1000
	CountHour   int64 = 60 * CountMinute
)

// ScoreBins is the number of bins of the score histogram kept with the
// counts: ten of 0.1 over [0, 1) (1 falls into the last), then one per
// power of two above 1 ((1, 2], (2, 4], ..., the last open-ended).
const ScoreBins = 20

// NoScoreBin is the bin of a result without a numeric score.
const NoScoreBin = -1

// ScoreBin returns the histogram bin of a numeric score v.
func ScoreBin(v float64) int {
	switch {
	case math.IsNaN(v) || v < 0.1:
		return 0
	case v <= 1:
		return min(int(v*10), 9)
	}
	b := 10 + int(math.Ceil(math.Log2(v))) - 1
	return min(max(b, 10), ScoreBins-1)
}

// ScoreBinBounds returns the bounds of bin i (hi is +Inf for the last).
func ScoreBinBounds(i int) (lo, hi float64) {
	if i < 10 {
		return float64(i) / 10, float64(i+1) / 10
	}
	lo, hi = math.Exp2(float64(i-10)), math.Exp2(float64(i-9))
	if i == ScoreBins-1 {
		hi = math.Inf(1)
	}
	return lo, hi
}

// EvaluationCountKey is what one count row counts.
type EvaluationCountKey struct {
	Environment, Evaluator, Verdict, Workflow, MonitorID string
	// Bin is the score's histogram bin, NoScoreBin without a numeric
	// score.
	Bin int
}

// CountedEvaluation returns the count key of evaluation ev of span sp,
// and its numeric score (0 when Bin is NoScoreBin); ok is false for a
// result that is not counted (see the package's evaluation counts).
func CountedEvaluation(sp *Span, ev *Evaluation) (k EvaluationCountKey, score float64, ok bool) {
	if ev.Error != "" || ev.Output == nil {
		return k, 0, false
	}
	d, found := evaluators.Lookup(ev.Name)
	if !found {
		// A custom evaluator's (an LLM judge's) result makes no metric
		// point; it is counted by the verdict its judge gave.
		if ev.Verdict != VerdictPass && ev.Verdict != VerdictFail {
			return k, 0, false
		}
		return EvaluationCountKey{Environment: sp.Environment, Evaluator: ev.Name, Verdict: ev.Verdict,
			Workflow: sp.WorkflowName, MonitorID: ev.MonitorID, Bin: NoScoreBin}, 0, true
	}
	k = EvaluationCountKey{Environment: sp.Environment, Evaluator: ev.Name, Verdict: ev.Verdict,
		Workflow: sp.WorkflowName, MonitorID: ev.MonitorID, Bin: NoScoreBin}
	switch v := ev.Output[d.Score].(type) {
	case bool:
	case float64:
		k.Bin, score = ScoreBin(v), v
	case int64:
		k.Bin, score = ScoreBin(float64(v)), float64(v)
	case int:
		k.Bin, score = ScoreBin(float64(v)), float64(v)
	case string:
		if len(scoreEnum(d)) == 0 {
			return k, 0, false
		}
	default:
		return k, 0, false
	}
	return k, score, true
}

// scoreEnum is the enumeration of d's score field (nil when it has none).
func scoreEnum(d *evaluators.Definition) []string {
	for _, f := range d.Outputs {
		if f.Name == d.Score {
			return f.EnumValues
		}
	}
	return nil
}

// CountDelta is a change of one count row.
type CountDelta struct {
	N   int64
	Sum float64
}

// EvaluationCountChanges accumulates the count changes of one write:
// results added (sign 1) or taken off (sign -1), by key and row start, and
// the newest result time of each monitor.
type EvaluationCountChanges struct {
	Rows map[EvaluationCountRow]CountDelta
	// Last is the latest end time (Unix ms) of a span evaluated by each
	// (environment, monitor id) among the added results.
	Last map[[2]string]int64
}

// EvaluationCountRow identifies a stored count row.
type EvaluationCountRow struct {
	EvaluationCountKey
	Width, Bucket int64
}

// AddSpan adds (sign 1) or takes off (sign -1) the counted results of
// evals, recorded on span sp, to the minute and hour rows of sp's start.
func (c *EvaluationCountChanges) AddSpan(sp *Span, evals []Evaluation, sign int64) {
	for i := range evals {
		k, score, ok := CountedEvaluation(sp, &evals[i])
		if !ok {
			continue
		}
		if c.Rows == nil {
			c.Rows = map[EvaluationCountRow]CountDelta{}
		}
		for _, w := range [...]int64{CountMinute, CountHour} {
			r := EvaluationCountRow{EvaluationCountKey: k, Width: w, Bucket: floorTo(sp.Timestamp, w)}
			d := c.Rows[r]
			d.N += sign
			d.Sum += float64(sign) * score
			c.Rows[r] = d
		}
		if sign > 0 && k.MonitorID != "" {
			if c.Last == nil {
				c.Last = map[[2]string]int64{}
			}
			id := [2]string{sp.Environment, k.MonitorID}
			c.Last[id] = max(c.Last[id], sp.Timestamp+sp.Duration)
		}
	}
}

// AddMerge records the change of an append: stored results replaced by
// merged (warehouse.MergeEvaluations of stored and the added ones).
func (c *EvaluationCountChanges) AddMerge(sp *Span, stored, merged []Evaluation) {
	c.AddSpan(sp, stored, -1)
	c.AddSpan(sp, merged, 1)
}

// Empty reports whether there is nothing to write.
func (c *EvaluationCountChanges) Empty() bool { return len(c.Rows) == 0 && len(c.Last) == 0 }

// floorTo is ms rounded down to a multiple of w.
func floorTo(ms, w int64) int64 {
	if ms < 0 {
		return -((-ms + w - 1) / w) * w
	}
	return ms - ms%w
}

// CountWidth is the width of the count rows that a query of buckets of
// bucketMs starting at fromMs reads: hours when both are whole hours,
// else minutes.
func CountWidth(fromMs, bucketMs int64) int64 {
	if bucketMs > 0 && bucketMs%CountHour == 0 && fromMs%CountHour == 0 {
		return CountHour
	}
	return CountMinute
}

// EvaluationCountQuery selects evaluation counts.
type EvaluationCountQuery struct {
	// Environment is the caller's environment (required).
	Environment string
	// FromMs and ToMs bound the spans' start time; both are rounded out
	// to the count rows' width (CountWidth).
	FromMs, ToMs int64
	// BucketMs is the width of the answer's buckets, which start at
	// FromMs; a multiple of a minute (0: one bucket).
	BucketMs int64
	// Workflow keeps one workflow ("" any).
	Workflow string
	// Evaluators keeps these evaluators (empty: any).
	Evaluators []string
}

// EvaluationCount is one row of the answer: the results of one bucket and
// key.
type EvaluationCount struct {
	// Bucket is the start of the answer's bucket (Unix ms).
	Bucket int64
	EvaluationCountKey
	N   int64
	Sum float64
}

// EvaluationCounter reads the evaluation counts (both backends).
type EvaluationCounter interface {
	// CountEvaluations answers q from the counts, rows in any order.
	CountEvaluations(ctx context.Context, q EvaluationCountQuery) ([]EvaluationCount, error)
	// LastEvaluations returns the latest end time (Unix ms) of a span
	// each of monitorIDs evaluated in env, absent when none is known.
	LastEvaluations(ctx context.Context, env string, monitorIDs []string) (map[string]int64, error)
}

// Validate checks q: an environment, a range, whole-minute buckets.
func (q EvaluationCountQuery) Validate() error {
	if q.FromMs > q.ToMs {
		return queryErrorf("to_timestamp_sec", "the range ends before it starts")
	}
	if q.BucketMs < 0 || q.BucketMs%CountMinute != 0 {
		return queryErrorf("bucket", "must be a whole number of minutes")
	}
	if q.BucketMs > 0 && (q.ToMs-q.FromMs)/q.BucketMs+1 > MaxAggregateBuckets {
		return queryErrorf("bucket", "more than %d buckets", MaxAggregateBuckets)
	}
	return nil
}

// BucketOf is the start of the answer's bucket of a count row starting at
// rowMs.
func (q EvaluationCountQuery) BucketOf(rowMs int64) int64 {
	if q.BucketMs <= 0 || rowMs < q.FromMs {
		return q.FromMs
	}
	return q.FromMs + floorTo(rowMs-q.FromMs, q.BucketMs)
}
