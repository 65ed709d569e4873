package sqlite

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/evalcol/evalcol/internal/warehouse"
)

// wordSpans returns n spans of env whose input holds word, from ts on.
func wordSpans(env, word string, n int, ts int64) []warehouse.Span {
	out := make([]warehouse.Span, n)
	for i := range out {
		out[i] = warehouse.Span{Environment: env, TraceID: fmt.Sprintf("%s-t%d", word, i), SpanID: fmt.Sprintf("%s-s%d", word, i),
			Timestamp: ts + int64(i), SpanName: "chat", Input: "a question about " + word, Output: "an answer"}
	}
	return out
}

// searchCount returns total_results of a search for word in env.
func searchCount(t *testing.T, st *Store, env, word string) (int64, error) {
	t.Helper()
	page, err := st.QuerySpans(context.Background(), warehouse.SpanQuery{Environments: []string{env}, Text: word})
	if err != nil {
		return 0, err
	}
	return page.TotalResults, nil
}

// TestSearchIndexOff turns the full-text index off and on again across
// restarts: off, writes skip it and a search is a 400 naming the
// setting, with every other read unchanged; on again, the spans stored
// meanwhile (more than one fill transaction's) are indexed in the
// background and found, those before and after all along, and the gap is
// forgotten.
func TestSearchIndexOff(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "w.db")
	ts := int64(1_790_000_000_000)
	open := func(off bool) *Store {
		t.Helper()
		st, err := Open(ctx, path, Options{NoSearchIndex: off})
		if err != nil {
			t.Fatal(err)
		}
		return st
	}

	st := open(false)
	if err := st.WriteSpans(ctx, wordSpans("prod", "alpha", 10, ts)); err != nil {
		t.Fatal(err)
	}
	st.Close()

	st = open(true)
	const offSpans = 2*fillBatch + 7
	if err := st.WriteSpans(ctx, wordSpans("prod", "bravo", offSpans, ts+1000)); err != nil {
		t.Fatal(err)
	}
	for _, word := range []string{"alpha", "bravo"} {
		_, err := searchCount(t, st, "prod", word)
		var qe *warehouse.QueryError
		if !errors.As(err, &qe) || qe.Field != "q" || !strings.Contains(qe.Msg, "warehouse.search_index is false") {
			t.Fatalf("search for %s with the index off: %v; want a QueryError on q naming the setting", word, err)
		}
	}
	_, err := st.QueryTraces(ctx, warehouse.TraceQuery{Environments: []string{"prod"}, Text: "alpha"})
	var qe *warehouse.QueryError
	if !errors.As(err, &qe) || qe.Field != "q" {
		t.Fatalf("traces search with the index off: %v; want a QueryError on q", err)
	}
	page, err := st.QuerySpans(ctx, warehouse.SpanQuery{Environments: []string{"prod"}})
	if err != nil || page.TotalResults != 10+offSpans {
		t.Fatalf("spans with the index off: %d, %v; want %d", page.TotalResults, err, 10+offSpans)
	}
	var indexed int
	if err := st.writer.QueryRowContext(ctx, "SELECT count(*) FROM span_text WHERE span_text MATCH 'bravo'").Scan(&indexed); err != nil || indexed != 0 {
		t.Fatalf("spans indexed while off: %d, %v", indexed, err)
	}
	st.Close()

	// Off again: the range stays open from its first span, and nothing
	// is filled while the index is off.
	st = open(true)
	gaps, err := readSearchGaps(ctx, st.writer)
	if err != nil || len(gaps) != 1 || gaps[0] != (seqRange{From: 11}) || st.searchFill != nil {
		t.Fatalf("gaps after a second start with the index off: %+v, %v, filler %v; want one open from 11, no filler",
			gaps, err, st.searchFill != nil)
	}
	st.Close()

	st = open(false)
	defer st.Close()
	if err := st.WriteSpans(ctx, wordSpans("prod", "charlie", 5, ts+5000)); err != nil {
		t.Fatal(err)
	}
	if n, err := searchCount(t, st, "prod", "charlie"); err != nil || n != 5 {
		t.Errorf("charlie, written with the index on again: %d, %v; want 5", n, err)
	}
	if n, err := searchCount(t, st, "prod", "alpha"); err != nil || n != 10 {
		t.Errorf("alpha, written before: %d, %v; want 10", n, err)
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		n, err := searchCount(t, st, "prod", "bravo")
		if err != nil {
			t.Fatal(err)
		}
		if n == offSpans {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("bravo, written while off: %d found after 20 s; want %d", n, offSpans)
		}
		time.Sleep(50 * time.Millisecond)
	}
	for time.Now().Before(deadline) {
		if gaps, err = readSearchGaps(ctx, st.writer); err != nil || len(gaps) == 0 {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if err != nil || len(gaps) != 0 {
		t.Errorf("gaps after the fill: %+v, %v; want none", gaps, err)
	}
	if n, err := searchCount(t, st, "prod", "question"); err != nil || n != 10+offSpans+5 {
		t.Errorf("a word of every span: %d, %v; want %d", n, err, 10+offSpans+5)
	}
}

// TestSearchIndexOffWithoutWrites: a start with the index off that
// stores nothing leaves no range to index.
func TestSearchIndexOffWithoutWrites(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "w.db")
	for _, off := range []bool{false, true, false} {
		st, err := Open(ctx, path, Options{NoSearchIndex: off})
		if err != nil {
			t.Fatal(err)
		}
		if !off {
			if err := st.WriteSpans(ctx, wordSpans("prod", "delta", 3, 1_790_000_000_000+int64(len(path)))); err != nil {
				t.Fatal(err)
			}
		}
		st.Close()
	}
	st, err := Open(ctx, path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if gaps, err := readSearchGaps(ctx, st.writer); err != nil || len(gaps) != 0 || st.searchFill != nil {
		t.Errorf("gaps: %+v, %v, filler %v; want none", gaps, err, st.searchFill != nil)
	}
	if n, err := searchCount(t, st, "prod", "delta"); err != nil || n != 3 {
		t.Errorf("delta: %d, %v; want 3 (the second write was a resend)", n, err)
	}
}

// TestOpenSearchGaps: a start with the index off leaves a range the fill
// had not finished for a start with it on, and fills nothing meanwhile.
func TestOpenSearchGaps(t *testing.T) {
	ctx := context.Background()
	st, err := Open(ctx, filepath.Join(t.TempDir(), "w.db"), Options{NoSearchIndex: true})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if err := writeSearchGaps(ctx, st.writer, []seqRange{{From: 5, To: 10}, {From: 20}}); err != nil {
		t.Fatal(err)
	}
	if missing, err := openSearchGaps(ctx, st.writer, false); err != nil || missing != 0 {
		t.Errorf("off: %d missing, %v; want 0 (nothing filled while off)", missing, err)
	}
	// On: the open range is dropped (no span stored from 20 on), the
	// closed one is left to fill.
	missing, err := openSearchGaps(ctx, st.writer, true)
	gaps, _ := readSearchGaps(ctx, st.writer)
	if err != nil || missing != 6 || len(gaps) != 1 || gaps[0] != (seqRange{From: 5, To: 10}) {
		t.Errorf("on: %d missing, gaps %+v, %v; want 6 missing in 5-10", missing, gaps, err)
	}
}
