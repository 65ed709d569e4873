package warehouse

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"testing"
)

// recordingBackend answers from a fixed, sorted list of spans and points
// (as a backend would, within its snapshot) and records what the query
// path asked.
type recordingBackend struct {
	spans     []Span // in query order; seq = index + 1
	points    []MetricPoint
	snapshot  int64
	spanReads []SpanRead
	metReads  []MetricRead
	err       error
}

func (b *recordingBackend) ReadSpans(_ context.Context, r SpanRead) (SpanRows, error) {
	b.spanReads = append(b.spanReads, r)
	var out SpanRows
	if b.err != nil {
		return out, b.err
	}
	if r.First {
		out.Snapshot = b.snapshot
	}
	for i, sp := range b.spans {
		seq := int64(i + 1)
		if !r.First && seq <= r.After.Seq {
			continue
		}
		if len(out.Spans) == r.Limit {
			break
		}
		out.Spans, out.Seqs = append(out.Spans, sp), append(out.Seqs, seq)
	}
	if r.NeedsCount(len(out.Spans), out.Cut) {
		out.Total = int64(len(b.spans))
	}
	return out, nil
}

// traceStats are the stats of b's spans, as a backend keeps them.
func (b *recordingBackend) traceStats(envs []string, from, to int64) []TraceStat {
	var c TraceStatChanges
	for i := range b.spans {
		if slices.Contains(envs, b.spans[i].Environment) {
			c.AddSpan(&b.spans[i], 1)
		}
	}
	var out []TraceStat
	for k, v := range c.Rows {
		if v.StartMs >= from && (to == 0 || v.StartMs <= to) {
			out = append(out, TraceStat{k, v})
		}
	}
	return out
}

func (b *recordingBackend) CountTraces(_ context.Context, envs []string, from, to int64) (int64, error) {
	return int64(len(b.traceStats(envs, from, to))), b.err
}

func (b *recordingBackend) ReadTraceStats(_ context.Context, r TraceStatRead) ([]TraceStat, error) {
	rows := b.traceStats(r.Environments, r.FromMs, r.ToMs)
	slices.SortFunc(rows, func(a, c TraceStat) int {
		return compareTraceStat(r, a, TraceStatPosition{Value: c.SortValue(r.SortBy), TraceID: c.TraceID})
	})
	if r.After != nil {
		rows = slices.DeleteFunc(rows, func(s TraceStat) bool { return compareTraceStat(r, s, *r.After) <= 0 })
	}
	return rows[:min(len(rows), r.Limit)], b.err
}

// compareTraceStat compares s with position at in r's order.
func compareTraceStat(r TraceStatRead, s TraceStat, at TraceStatPosition) int {
	d := cmp.Or(cmp.Compare(s.SortValue(r.SortBy), at.Value), cmp.Compare(s.TraceID, at.TraceID))
	if r.Desc {
		return -d
	}
	return d
}

func (b *recordingBackend) ReadMetricPoints(_ context.Context, r MetricRead) (MetricRows, error) {
	b.metReads = append(b.metReads, r)
	var out MetricRows
	if r.First {
		out.Snapshot = b.snapshot
	}
	end := min(int(r.Offset)+r.Limit, len(b.points))
	out.Points = b.points[min(int(r.Offset), end):end]
	if r.NeedsCount(len(out.Points), out.Cut) {
		out.Total = int64(len(b.points))
	}
	return out, nil
}

// TestQueryPathSpans checks what the one query path asks a backend and
// what it makes of the answer: the first page takes the snapshot and asks
// for a count only when more spans follow; later pages carry the
// snapshot, the position and the total in the cursor.
func TestQueryPathSpans(t *testing.T) {
	b := &recordingBackend{snapshot: 42}
	for i := range 5 {
		b.spans = append(b.spans, Span{SpanID: fmt.Sprint("s", i), Duration: int64(100 - i)})
	}
	p := NewQueryPath(b)
	q := SpanQuery{Environments: []string{"e"}, SortBy: SortDuration, Desc: true, Limit: 2}
	var got []string
	for page := 0; ; page++ {
		res, err := p.QuerySpans(context.Background(), q)
		if err != nil {
			t.Fatal(err)
		}
		if res.TotalResults != 5 {
			t.Errorf("page %d: total %d, want 5", page, res.TotalResults)
		}
		for _, sp := range res.Spans {
			got = append(got, sp.SpanID)
		}
		if res.NextCursor == "" {
			break
		}
		q.Cursor = res.NextCursor
	}
	if want := []string{"s0", "s1", "s2", "s3", "s4"}; !reflect.DeepEqual(got, want) {
		t.Errorf("spans %v, want %v", got, want)
	}
	if len(b.spanReads) != 3 {
		t.Fatalf("%d reads, want 3", len(b.spanReads))
	}
	first, second := b.spanReads[0], b.spanReads[1]
	if !first.First || !first.Count || first.Limit != 3 || first.Query.Limit != 2 || first.Query.SortBy != SortDuration {
		t.Errorf("first read %+v: want First, Count, Limit 3 of a normalised query", first)
	}
	if second.First || second.Count || second.Snapshot != 42 || second.After != (SpanKey{Num: 99, Seq: 2}) {
		t.Errorf("second read %+v: want snapshot 42 after (99, seq 2), no count", second)
	}
	if v := second.AfterValue(); v != int64(99) {
		t.Errorf("AfterValue %v (%T), want int64 99", v, v)
	}
}

func TestQueryPathNoEnvironmentsAndErrors(t *testing.T) {
	b := &recordingBackend{}
	p := NewQueryPath(b)
	page, err := p.QuerySpans(context.Background(), SpanQuery{})
	if err != nil || page.Spans == nil || len(page.Spans) != 0 || len(b.spanReads) != 0 {
		t.Errorf("no environments: %+v, %v, %d reads; want an empty page without asking the backend", page, err, len(b.spanReads))
	}
	if _, err := p.QuerySpans(context.Background(), SpanQuery{Environments: []string{"e"}, Limit: 5000}); !IsQueryError(err) {
		t.Errorf("bad limit: %v, want a *QueryError", err)
	}
	if len(b.spanReads) != 0 {
		t.Errorf("the backend was asked %d times for invalid queries", len(b.spanReads))
	}
	b.err = fmt.Errorf("disk: %w", ErrUnavailable)
	if _, err := p.QuerySpans(context.Background(), SpanQuery{Environments: []string{"e"}}); !errors.Is(err, ErrUnavailable) {
		t.Errorf("backend down: %v, want ErrUnavailable", err)
	}
}

// TestQueryPathMetrics: offset pages within the snapshot, counted on every
// page that is not the whole result.
func TestQueryPathMetrics(t *testing.T) {
	b := &recordingBackend{snapshot: 7}
	for i := range 5 {
		b.points = append(b.points, MetricPoint{MetricName: fmt.Sprint("m", i%2), EventTime: int64(i)})
	}
	p := NewQueryPath(b)
	q := MetricQuery{Environments: []string{"e"}, Limit: 2}
	n := 0
	for {
		page, err := p.QueryMetrics(context.Background(), q)
		if err != nil {
			t.Fatal(err)
		}
		if page.TotalResults != 5 {
			t.Errorf("total %d, want 5", page.TotalResults)
		}
		n += int(page.TotalPoints)
		if page.NextCursor == "" {
			break
		}
		if _, err := fmt.Sscan(page.NextCursor, &q.Cursor); err != nil {
			t.Fatal(err)
		}
	}
	if n != 5 || len(b.metReads) != 3 {
		t.Fatalf("%d points in %d reads, want 5 in 3", n, len(b.metReads))
	}
	if r := b.metReads[2]; r.First || r.Snapshot != 7 || r.Offset != 4 || r.Limit != 3 {
		t.Errorf("third read %+v: want snapshot 7, offset 4, limit 3", r)
	}
}

// filteringBackend is a recordingBackend whose span reads apply a
// trace_id in-list and a service_name equality, as a sorted trace list's
// checks ask.
type filteringBackend struct{ *recordingBackend }

func (b filteringBackend) ReadSpans(_ context.Context, r SpanRead) (SpanRows, error) {
	var out SpanRows
	for _, sp := range b.spans {
		keep := true
		for _, f := range r.Query.Filters {
			switch f.Field {
			case "trace_id":
				keep = keep && slices.Contains(f.Values, sp.TraceID)
			case "service_name":
				keep = keep && sp.ServiceName == f.Value
			}
		}
		if keep && len(out.Spans) < r.Limit {
			out.Spans = append(out.Spans, sp)
		}
	}
	return out, nil
}

// TestSortedTracesScanCut: a sorted list with a filter that few traces
// match checks at most MaxSortedTraceScan traces a page; a page cut so
// says it and carries on, and the pages list every match once, in order.
func TestSortedTracesScanCut(t *testing.T) {
	const n, rare = MaxSortedTraceScan + 300, 40
	b := &recordingBackend{}
	for i := range n {
		sp := Span{Environment: "e", TraceID: fmt.Sprintf("t%05d", i), SpanID: fmt.Sprintf("s%05d", i), Timestamp: 1000,
			Duration: int64(i), ServiceName: "common"}
		if i >= n-rare {
			sp.ServiceName = "rare"
		}
		b.spans = append(b.spans, sp)
	}
	p := NewQueryPath(filteringBackend{b})
	q := TraceQuery{Environments: []string{"e"}, SortBy: TraceSortLatency, Limit: 15,
		Filters: []Filter{{Field: "service_name", Operator: OpEquals, Value: "rare"}}}
	var got []string
	cuts := 0
	for range 20 {
		page, err := p.QueryTraces(context.Background(), q)
		if err != nil {
			t.Fatal(err)
		}
		if page.ScanCut {
			cuts++
			if len(page.Traces) != 0 || page.NextCursor == "" {
				t.Errorf("a cut page holds %d traces, cursor %q; want none yet and a cursor", len(page.Traces), page.NextCursor)
			}
		}
		if page.Total != -1 {
			t.Errorf("a filtered list counted %d", page.Total)
		}
		for _, tr := range page.Traces {
			got = append(got, tr.TraceID)
		}
		if page.NextCursor == "" {
			break
		}
		q.Cursor = page.NextCursor
	}
	var want []string
	for i := n - rare; i < n; i++ {
		want = append(want, fmt.Sprintf("t%05d", i))
	}
	if cuts != 1 || !slices.Equal(got, want) {
		t.Errorf("%d cut pages, traces %v; want 1 cut page, then %v", cuts, got, want)
	}
}
