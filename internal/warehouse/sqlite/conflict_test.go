package sqlite

import (
	"context"
	stdmaps "maps"
	"path/filepath"
	"slices"
	"testing"

	"github.com/evalcol/evalcol/internal/warehouse"
	"github.com/evalcol/evalcol/internal/warehouse/spangen"
)

// TestConflictingDuplicates: a resent span (same environment, trace id,
// span id and start time) is stored once, the first copy kept; a resend
// with other content is reported as a conflict, an identical one (an SDK
// retry, or one evaluated differently) is not. So is a second copy in
// the same write.
func TestConflictingDuplicates(t *testing.T) {
	ctx := context.Background()
	st, err := Open(ctx, filepath.Join(t.TempDir(), "w.db"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	span := func(id, text string) warehouse.Span {
		return warehouse.Span{Environment: "e", Timestamp: 1_790_000_000_000, TraceID: "0af7651916cd43dd8448eb211c80319c",
			SpanID: id, SpanName: "chat", Duration: 5, SpanAttributes: map[string]string{"llm.prompts.0.content": text}}
	}
	write := func(spans ...warehouse.Span) []int {
		t.Helper()
		rep, err := st.WriteSpansReport(ctx, spans)
		if err != nil {
			t.Fatal(err)
		}
		return rep.Conflicts
	}
	evaluated := span("b7ad6b7169203331", "hello")
	evaluated.Evaluations = []warehouse.Evaluation{{Name: "char-count", ScoreValue: 5, Output: map[string]any{"char_count": 5}}}
	renamed := span("b7ad6b7169203331", "hello")
	renamed.SpanName = "other"
	for _, tc := range []struct {
		name  string
		spans []warehouse.Span
		want  []int
	}{
		{"first write", []warehouse.Span{span("b7ad6b7169203331", "hello")}, nil},
		{"identical resend", []warehouse.Span{span("b7ad6b7169203331", "hello")}, nil},
		{"resend evaluated differently", []warehouse.Span{evaluated}, nil},
		{"new attribute value", []warehouse.Span{span("c7ad6b7169203331", "new"), span("b7ad6b7169203331", "changed")}, []int{1}},
		{"new name", []warehouse.Span{renamed}, []int{0}},
		{"two copies in one write", []warehouse.Span{span("d7ad6b7169203331", "one"), span("d7ad6b7169203331", "one"),
			span("d7ad6b7169203331", "two")}, []int{2}},
		{"conflicts of both kinds", []warehouse.Span{span("d7ad6b7169203331", "three"), span("e7ad6b7169203331", "x"),
			span("b7ad6b7169203331", "four")}, []int{0, 2}},
	} {
		if got := write(tc.spans...); !slices.Equal(got, tc.want) {
			t.Errorf("%s: conflicts %v, want %v", tc.name, got, tc.want)
		}
	}
	page, err := st.QuerySpans(ctx, warehouse.SpanQuery{Environments: []string{"e"}, Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, s := range page.Spans {
		if _, dup := got[s.SpanID]; dup {
			t.Errorf("span %s stored twice", s.SpanID)
		}
		got[s.SpanID] = s.SpanName + " " + s.SpanAttributes["llm.prompts.0.content"]
	}
	want := map[string]string{"b7ad6b7169203331": "chat hello", "c7ad6b7169203331": "chat new", "d7ad6b7169203331": "chat one", "e7ad6b7169203331": "chat x"}
	if !stdmaps.Equal(got, want) {
		t.Errorf("stored %v, want the first copies %v", got, want)
	}
}

// BenchmarkSpanContentHash is what conflict detection adds to preparing
// each span (besides its 8 bytes in the key table): hashing its content.
func BenchmarkSpanContentHash(b *testing.B) {
	spans := spangen.New("bench", 1).Batch(1000, 1_790_000_000_000, 1_790_000_060_000)
	var res lastEncoding
	preps := make([]*prepared, len(spans))
	bytes := 0
	for i := range spans {
		preps[i] = prepare(&spans[i], &res)
		bytes += len(preps[i].attributes) + len(preps[i].resource)
	}
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		for i := range spans {
			preps[i].content = spanContentHash(&spans[i], preps[i])
		}
		n += len(spans)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(n), "ns/span")
	b.ReportMetric(float64(bytes)/float64(len(spans)), "bytes/span")
}
