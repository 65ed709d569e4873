package warehouse

import (
	"context"
	"math"
	"math/bits"
)

// Span stats: pre-aggregated span counts that the console's dashboard
// reads instead of scanning spans. Both backends keep them as spans are
// written (the spans actually stored: a resend counts nothing) and as
// retention deletes spans, like the evaluation counts, per environment,
// workflow, model (Span.PricedModel), latency bin and minute or hour of
// the span's start time (and of its six hours, the rows the week-long
// views read, see SpanStatWidth): the number of spans, of spans whose status is an
// error, and their input and output tokens (Span.Usage). So the stats of
// a range equal a GROUP BY over the stored spans.

// LatencyBins is the number of bins of the latency histogram: bin 0 holds
// durations under 1 ms, bin i (1 ≤ i < LatencyBins-1) [2^((i-1)/2),
// 2^(i/2)) ms, the last everything from 2^((LatencyBins-2)/2) ms (about
// 12 days) on. Bins grow by √2, so a percentile read from them is within
// one bin's width (41 % of its value) of the exact one.
const LatencyBins = 64

// LatencyBin returns the histogram bin of a duration of ms milliseconds.
func LatencyBin(ms int64) int {
	if ms < 1 {
		return 0
	}
	// The largest i with 2^((i-1)/2) <= ms, computed exactly in integers
	// for the powers: 2^((i-1)/2) <= ms  <=>  2^(i-1) <= ms².
	l := bits.Len64(uint64(ms)) - 1 // floor(log2 ms)
	i := 2*l + 1                    // 2^((i-1)/2) = 2^l <= ms
	// One more half step when ms >= 2^l·√2, i.e. ms² >= 2^(2l+1).
	if l < 31 && uint64(ms)*uint64(ms) >= uint64(1)<<(2*l+1) || l >= 31 && float64(ms) >= math.Exp2(float64(l)+0.5) {
		i++
	}
	return min(i, LatencyBins-1)
}

// LatencyBinBounds returns the bounds (ms) of bin i (hi is +Inf for the
// last).
func LatencyBinBounds(i int) (lo, hi float64) {
	if i <= 0 {
		return 0, 1
	}
	lo, hi = math.Exp2(float64(i-1)/2), math.Exp2(float64(i)/2)
	if i >= LatencyBins-1 {
		hi = math.Inf(1)
	}
	return lo, hi
}

// SpanStatKey is what one stats row counts.
type SpanStatKey struct {
	Environment, Workflow, Model string
	// Bin is the latency bin of the spans' duration (LatencyBin).
	Bin int
}

// SpanStatValues are the counts of a stats row.
type SpanStatValues struct {
	// N counts the spans, Errors those whose status is an error.
	N, Errors int64
	// InputTokens and OutputTokens are the spans' tokens (Span.Usage).
	InputTokens, OutputTokens int64
}

// add adds v times sign.
func (a *SpanStatValues) add(v SpanStatValues, sign int64) {
	a.N += sign * v.N
	a.Errors += sign * v.Errors
	a.InputTokens += sign * v.InputTokens
	a.OutputTokens += sign * v.OutputTokens
}

// Zero reports whether every count is 0.
func (a SpanStatValues) Zero() bool { return a == SpanStatValues{} }

// SpanStatOf returns the stats key and values of one span.
func SpanStatOf(sp *Span) (SpanStatKey, SpanStatValues) {
	in, out := sp.Usage()
	return spanStatOf(sp, in, out)
}

// spanStatOf is SpanStatOf with the span's usage read already.
func spanStatOf(sp *Span, in, out int64) (SpanStatKey, SpanStatValues) {
	v := SpanStatValues{N: 1, InputTokens: in, OutputTokens: out}
	if sp.StatusCode == "STATUS_CODE_ERROR" {
		v.Errors = 1
	}
	return SpanStatKey{Environment: sp.Environment, Workflow: sp.WorkflowName, Model: sp.PricedModel(),
		Bin: LatencyBin(sp.Duration)}, v
}

// SpanStatRow identifies a stored stats row.
type SpanStatRow struct {
	SpanStatKey
	Width, Bucket int64
}

// SpanStatChanges accumulates the stats changes of one write: spans added
// (sign 1) or taken off (sign -1), by row.
type SpanStatChanges struct {
	Rows map[SpanStatRow]SpanStatValues
}

// StatSixHours is the width of the widest span stats rows: the 6-hour
// buckets of the console's 7-day view (and every wider bucket, 12 h, a
// day, a week, as sums of them) read a sixth of the hour rows.
const StatSixHours int64 = 6 * CountHour

// spanStatWidths are the widths of the span stats rows, narrowest first.
var spanStatWidths = [...]int64{CountMinute, CountHour, StatSixHours}

// SpanStatWidth is the width of the span stats rows that a query of
// buckets of bucketMs starting at fromMs reads: the widest that divides
// both (minutes at least; six hours for the 7-day view's buckets).
func SpanStatWidth(fromMs, bucketMs int64) int64 {
	w := CountMinute
	for _, c := range spanStatWidths {
		if bucketMs > 0 && bucketMs%c == 0 && fromMs%c == 0 {
			w = c
		}
	}
	return w
}

// AddSpan adds (sign 1) or takes off (sign -1) span sp to the minute,
// hour and six-hour rows of its start.
func (c *SpanStatChanges) AddSpan(sp *Span, sign int64) {
	in, out := sp.Usage()
	c.addSpan(sp, in, out, sign)
}

func (c *SpanStatChanges) addSpan(sp *Span, in, out, sign int64) {
	k, v := spanStatOf(sp, in, out)
	if c.Rows == nil {
		c.Rows = map[SpanStatRow]SpanStatValues{}
	}
	for _, w := range spanStatWidths {
		r := SpanStatRow{SpanStatKey: k, Width: w, Bucket: floorTo(sp.Timestamp, w)}
		d := c.Rows[r]
		d.add(v, sign)
		c.Rows[r] = d
	}
}

// SpanStatQuery selects span stats.
type SpanStatQuery struct {
	// Environment is the caller's environment (required).
	Environment string
	// FromMs and ToMs bound the spans' start time; both are rounded out
	// to the rows' width (SpanStatWidth).
	FromMs, ToMs int64
	// BucketMs is the width of the answer's buckets, which start at
	// FromMs; a multiple of a minute (0: one bucket).
	BucketMs int64
	// Workflow and Model keep one workflow, one model ("" any).
	Workflow, Model string
}

// SpanStat is one row of the answer: the spans of one bucket and key.
type SpanStat struct {
	// Bucket is the start of the answer's bucket (Unix ms).
	Bucket int64
	SpanStatKey
	SpanStatValues
}

// SpanStatter reads the span stats (both backends).
type SpanStatter interface {
	// SpanStats answers q from the stats, rows in any order.
	SpanStats(ctx context.Context, q SpanStatQuery) ([]SpanStat, error)
}

// counts is q's range and buckets as an evaluation count query, whose
// validation and bucketing the stats share.
func (q SpanStatQuery) counts() EvaluationCountQuery {
	return EvaluationCountQuery{Environment: q.Environment, FromMs: q.FromMs, ToMs: q.ToMs, BucketMs: q.BucketMs}
}

// Validate checks q: a range, whole-minute buckets.
func (q SpanStatQuery) Validate() error { return q.counts().Validate() }

// BucketOf is the start of the answer's bucket of a stats row starting at
// rowMs.
func (q SpanStatQuery) BucketOf(rowMs int64) int64 { return q.counts().BucketOf(rowMs) }

// Width is the width of the rows q reads (SpanStatWidth).
func (q SpanStatQuery) Width() int64 { return SpanStatWidth(q.FromMs, q.BucketMs) }

// RowPerBucket reports whether each row q reads is a bucket of the answer
// on its own (its buckets are its rows' width, from a row's start): the
// rows need no grouping.
func (q SpanStatQuery) RowPerBucket() bool {
	w := q.Width()
	return q.BucketMs == w && q.FromMs%w == 0
}

// LatencyPercentile estimates the p-th percentile (0 < p ≤ 1) of the
// durations counted in bins (LatencyBins counts, by bin): the bin holding
// that rank, interpolated linearly within it (the last bin, open-ended,
// answers its lower bound). ok is false when bins count nothing.
func LatencyPercentile(bins []int64, p float64) (ms float64, ok bool) {
	var total int64
	for _, n := range bins {
		total += n
	}
	if total == 0 {
		return 0, false
	}
	rank := p * float64(total)
	var seen float64
	for i, n := range bins {
		if n <= 0 {
			continue
		}
		if seen+float64(n) >= rank {
			lo, hi := LatencyBinBounds(i)
			if math.IsInf(hi, 1) {
				return lo, true
			}
			return lo + (hi-lo)*max(rank-seen, 0)/float64(n), true
		}
		seen += float64(n)
	}
	lo, _ := LatencyBinBounds(len(bins) - 1)
	return lo, true
}
