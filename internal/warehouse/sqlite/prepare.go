package sqlite

import (
	"hash/crc32"
	"unsafe"

	"github.com/evalcol/evalcol/internal/warehouse"
	"github.com/evalcol/evalcol/internal/warehouse/sqlite/internal/index"
)

// prepared is the encoding of one span that WriteSpans stores: everything
// but the row ids, which only the writer can assign.
type prepared struct {
	resource    string // encodeMap(ResourceAttributes)
	attributes  string // encodeMap(SpanAttributes)
	prompts     string
	completions string
	input       string
	inputKey    string
	output      string
	outputKey   string
	evaluations string
	verdicts    string      // warehouse.VerdictIndex(Evaluations)
	search      string      // warehouse.SearchText: what span_text indexes ("" with the index off)
	key         int64       // dedupKey(environment, trace id, span id)
	content     int64       // spanContentHash
	hashes      []int64     // posting hashes: the trace id, the indexed columns, the indexable attributes
	values      []attrValue // the attributes as the value dictionary records them
}

var _ warehouse.Preparer = (*Store)(nil)

// PrepareSpans encodes spans for WriteSpans on the caller's goroutine (see
// warehouse.Preparer): the exporter prepares each request while the
// writer commits others.
func (s *Store) PrepareSpans(spans []warehouse.Span) {
	var res lastEncoding // spans of one resource share its map
	for i := range spans {
		spans[i].Prepared = prepare(&spans[i], &res, !s.noSearchIndex)
	}
}

// preparedOf returns sp's encoding: the one PrepareSpans made, else a new
// one.
func (s *Store) preparedOf(sp *warehouse.Span, res *lastEncoding) *prepared {
	if p, ok := sp.Prepared.(*prepared); ok {
		return p
	}
	return prepare(sp, res, !s.noSearchIndex)
}

// prepare encodes sp; its search text only when search (the store keeps
// the full-text index).
func prepare(sp *warehouse.Span, res *lastEncoding, search bool) *prepared {
	resource := res.encode(sp.ResourceAttributes)
	p := &prepared{
		resource:    resource.json,
		attributes:  encodeMap(sp.SpanAttributes),
		evaluations: warehouse.EncodeEvaluations(sp.Evaluations),
		verdicts:    warehouse.VerdictIndex(sp.Evaluations),
		key:         dedupKey(sp.Environment, sp.TraceID, sp.SpanID),
	}
	p.prompts, p.completions, p.input, p.inputKey, p.output, p.outputKey = contentColumns(sp)
	p.content = spanContentHash(sp, p)
	if search {
		p.search = warehouse.SearchText(sp)
	}
	cols := columnValues(sp)
	resourceHashes := resource.resourceHashes()
	p.hashes = make([]int64, 0, 1+len(cols)+2*len(sp.SpanAttributes)+len(resourceHashes))
	p.hashes = append(p.hashes, resourceHashes...)
	p.hashes = append(p.hashes, index.PostingHash(index.TraceIDKey, sp.TraceID))
	for i, v := range cols {
		if index.Indexable(v) {
			p.hashes = append(p.hashes, index.PostingHash(columnKeys[i], v))
		}
	}
	p.values = make([]attrValue, 0, len(sp.SpanAttributes))
	for key, v := range sp.SpanAttributes {
		if index.ReservedKey(key) {
			continue
		}
		stored := index.JSONKey(key)
		p.hashes = append(p.hashes, index.KeyPostingHash(stored))
		var h int64
		if index.Indexable(v) {
			h = index.PostingHash(key, v)
			p.hashes = append(p.hashes, h)
		}
		p.values = append(p.values, dictionaryEntry(key, stored, v, h))
	}
	return p
}

// preparedPoint is the encoding of one metric point.
type preparedPoint struct {
	labels, attributes string // encodeMap JSON
	key                int64  // pointKey
	// labelHashes are the posting hashes of the labels, labelKeys their
	// keys (shared by the points of one labels map).
	labelHashes []int64
	labelKeys   []string
}

// PreparePoints encodes points for WriteMetricPoints on the caller's
// goroutine (see warehouse.Preparer).
func (s *Store) PreparePoints(pts []warehouse.MetricPoint) {
	var labels, attrs lastEncoding // points of one evaluation share their maps
	for i := range pts {
		pts[i].Prepared = preparePoint(&pts[i], &labels, &attrs)
	}
}

// preparedPointOf returns p's encoding: the one PreparePoints made, else a
// new one.
func preparedPointOf(p *warehouse.MetricPoint, labels, attrs *lastEncoding) *preparedPoint {
	if pp, ok := p.Prepared.(*preparedPoint); ok {
		return pp
	}
	return preparePoint(p, labels, attrs)
}

func preparePoint(p *warehouse.MetricPoint, labels, attrs *lastEncoding) *preparedPoint {
	l, a := labels.encode(p.Labels), attrs.encode(p.Attributes)
	pp := &preparedPoint{labels: l.json, attributes: a.json, key: pointKey(p, l, a)}
	pp.labelHashes, pp.labelKeys = l.labelHashes()
	return pp
}

// castagnoli is the CRC-32C table (hardware-accelerated on amd64 and
// arm64); it is never written after init.
var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// spanContentHash is the hash stored beside a span's dedup key: in the
// high 32 bits CRC-32C of everything a sender controls in the span but its
// identity (environment, trace and span id) and start time, which the key
// covers; in the low 32 bits an FNV-1a hash of the parts' lengths and the
// duration (so that parts cannot shift into each other). It leaves out
// the evaluations: a resent span is evaluated again, and sampling or
// setups changed meanwhile may give it other results, yet it is the same
// span. An identical resend (an SDK retry) has the same hash; a resend
// with other content a different one, but for a chance of about 2^-32,
// when the conflict goes unreported (the first copy is kept either way).
// CRC-32C because hashing is on every span's path: it runs at several
// GB/s (hardware-accelerated), where FNV-1a over the text costs about a
// nanosecond per byte.
func spanContentHash(sp *warehouse.Span, p *prepared) int64 {
	const prime64 = 1099511628211
	var crc uint32
	lengths := uint64(14695981039346656037)
	for _, s := range [...]string{p.resource, p.attributes, p.prompts, p.completions, p.input, p.inputKey, p.output,
		p.outputKey, sp.ParentSpanID, sp.TraceState, sp.SpanName, sp.SpanKind, sp.ScopeName, sp.ScopeVersion,
		sp.StatusCode, sp.StatusMessage} {
		crc = crc32.Update(crc, castagnoli, unsafe.Slice(unsafe.StringData(s), len(s)))
		lengths = (lengths ^ uint64(len(s))) * prime64
	}
	lengths = (lengths ^ uint64(sp.Duration)) * prime64
	return int64(uint64(crc)<<32 | lengths&0xffffffff)
}
