package index

// Relative costs of the planners, in units of one index entry read
// (measured on a 1 000 000-span store: an index entry ~0.1 µs, a span
// read in order ~1 µs, a span read at random with a JSON attribute check
// ~3 µs).
const (
	// CostEntry is an index entry read.
	CostEntry = 1.0
	// CostRow is a row read in index order.
	CostRow = 10.0
	// CostSpan is a row read at random with its filters checked.
	CostSpan = 30.0
	// unknownSelectivity is assumed of filters the postings cannot
	// estimate.
	unknownSelectivity = 0.2
	// bucketShare: a bucket of a bucketed index holds about one in
	// bucketShare of an environment's entries (the top ones of spread
	// values more).
	bucketShare = 8
)

// DefaultMaxCandidates bounds the spans a page of a sort other than time
// takes from the postings; a filter listing more spans than that in the
// range is read another way.
const DefaultMaxCandidates = 20000
