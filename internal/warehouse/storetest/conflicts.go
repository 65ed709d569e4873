package storetest

import (
	"context"
	"maps"
	"slices"
	"testing"

	"github.com/evalcol/evalcol/internal/warehouse"
)

// testSpanConflicts: a resent span (same environment, trace id, span id
// and start time) is stored once, the first copy kept; a resend with other
// content is reported as a conflict (warehouse.SpanConflictWriter), an
// identical one (an SDK retry, or one evaluated differently) is not. So
// is a second copy in the same write. Stores that do not tell conflicts
// apart skip it.
func testSpanConflicts(t *testing.T, open Opener) {
	st := openStore(t, open)
	cw, ok := st.(warehouse.SpanConflictWriter)
	if !ok {
		t.Skip("the store does not report conflicting duplicates")
	}
	ctx := context.Background()
	sp := func(id, text string) warehouse.Span {
		s := span("prod", id, 0)
		s.TraceID, s.Duration = "0af7651916cd43dd8448eb211c80319c", 5
		s.SpanAttributes = map[string]string{"llm.prompts.0.content": text}
		return s
	}
	evaluated := sp("b7ad6b7169203331", "hello")
	evaluated.Evaluations = []warehouse.Evaluation{{Name: "char-count", ScoreValue: 5, Output: map[string]any{"char_count": 5}}}
	renamed := sp("b7ad6b7169203331", "hello")
	renamed.SpanName = "other"
	otherEnv := sp("b7ad6b7169203331", "elsewhere")
	otherEnv.Environment = "staging"
	later := sp("b7ad6b7169203331", "at another time")
	later.Timestamp++
	for _, tc := range []struct {
		name  string
		spans []warehouse.Span
		want  []int
	}{
		{"first write", []warehouse.Span{sp("b7ad6b7169203331", "hello")}, nil},
		{"identical resend", []warehouse.Span{sp("b7ad6b7169203331", "hello")}, nil},
		{"resend evaluated differently", []warehouse.Span{evaluated}, nil},
		{"new attribute value", []warehouse.Span{sp("c7ad6b7169203331", "new"), sp("b7ad6b7169203331", "changed")}, []int{1}},
		{"new name", []warehouse.Span{renamed}, []int{0}},
		{"two copies in one write", []warehouse.Span{sp("d7ad6b7169203331", "one"), sp("d7ad6b7169203331", "one"),
			sp("d7ad6b7169203331", "two")}, []int{2}},
		{"conflicts of both kinds", []warehouse.Span{sp("d7ad6b7169203331", "three"), sp("e7ad6b7169203331", "x"),
			sp("b7ad6b7169203331", "four")}, []int{0, 2}},
		{"another environment or time is another span", []warehouse.Span{otherEnv, later}, nil},
	} {
		rep, err := cw.WriteSpansReport(ctx, tc.spans)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if !slices.Equal(rep.Conflicts, tc.want) {
			t.Errorf("%s: conflicts %v, want %v", tc.name, rep.Conflicts, tc.want)
		}
	}
	got := map[string]string{}
	for _, s := range allPages(t, st, warehouse.SpanQuery{Environments: []string{"prod"}, FromMs: base, Limit: 100}) {
		key := s.SpanID
		if s.Timestamp != base {
			key += " later"
		}
		if _, dup := got[key]; dup {
			t.Errorf("span %s stored twice", key)
		}
		got[key] = s.SpanName + " " + s.SpanAttributes["llm.prompts.0.content"]
	}
	want := map[string]string{"b7ad6b7169203331": "op hello", "c7ad6b7169203331": "op new", "d7ad6b7169203331": "op one",
		"e7ad6b7169203331": "op x", "b7ad6b7169203331 later": "op at another time"}
	if !maps.Equal(got, want) {
		t.Errorf("stored %v, want the first copies %v", got, want)
	}
}
