package sqlite

// The measurement of issue #26: SQLite's own FTS5 in place of the
// attribute index (the posting runs, their merges, the value dictionary),
// on the same spans. Test code only; docs/benchmarks-log.md, "FTS5 for the
// postings (issue #26)", has the results and the commands.
//
// What the FTS5 variant writes, in the write's transaction (spanIndex):
//
//   - span_terms, a contentless FTS5 table (detail=none, rowid = spans.seq):
//     per span one document of the span's posting hashes (prepared.hashes:
//     the trace id, the indexed columns, the resource attributes, each span
//     attribute's key and key=value), each rendered in base 32 after an XOR
//     with a hash of the span's environment and hour (ftsTerm). A term is
//     thus one (environment, hour, key=value) posting list, the unit a
//     posting run's row holds: a time range is an OR of its hours' terms,
//     with no per-hour token to intersect.
//   - fts_values and value_grams: the value dictionary, each distinct
//     (environment, key, value) of the span attributes once (not per hour,
//     as span_values is), with a trigram FTS5 table over the values
//     (external content, filled by a trigger) for contains / starts_with.

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/evalcol/evalcol/internal/warehouse"
	"github.com/evalcol/evalcol/internal/warehouse/sqlite/internal/index"
	"github.com/evalcol/evalcol/internal/warehouse/synthspans"
)

// createFTSIndex creates the FTS5 tables on the store's writer.
func createFTSIndex(ctx context.Context, st *Store, tokenizer string, automerge int) error {
	for _, stmt := range []string{
		`CREATE VIRTUAL TABLE IF NOT EXISTS span_terms USING fts5(t, content='', contentless_delete=1, detail=none,
			tokenize='` + tokenizer + `')`,
		`CREATE VIRTUAL TABLE IF NOT EXISTS span_terms_vocab USING fts5vocab(span_terms, 'row')`,
		`CREATE TABLE IF NOT EXISTS fts_values (id INTEGER PRIMARY KEY, key_hash INTEGER NOT NULL, value TEXT NOT NULL,
			UNIQUE (key_hash, value))`,
		`CREATE VIRTUAL TABLE IF NOT EXISTS value_grams USING fts5(value, content='fts_values', content_rowid='id',
			tokenize='trigram case_sensitive 1')`,
		`CREATE TRIGGER IF NOT EXISTS fts_values_grams AFTER INSERT ON fts_values BEGIN
			INSERT INTO value_grams (rowid, value) VALUES (new.id, new.value); END`,
		`INSERT INTO span_terms (span_terms, rank) VALUES ('automerge', ` + strconv.Itoa(automerge) + `)`,
		`INSERT INTO value_grams (value_grams, rank) VALUES ('automerge', ` + strconv.Itoa(automerge) + `)`,
	} {
		if _, err := st.writer.ExecContext(ctx, stmt); err != nil {
			return fmt.Errorf("%s: %w", stmt, err)
		}
	}
	return nil
}

// ftsMix is what a posting hash is XORed with to make the term of its
// list in env's hour: FNV-1a (PostingHash) then murmur3's finalizer, for
// FNV hashes of similar texts (user-005, user-007; hours 498025, 498027)
// differ in like bits, and an XOR of two of them would collide.
func ftsMix(env string, hour int64) uint64 {
	h := uint64(index.PostingHash(env, strconv.FormatInt(hour, 10)))
	h ^= h >> 33
	h *= 0xff51afd7ed558ccd
	h ^= h >> 33
	h *= 0xc4ceb9fe1a85ec53
	return h ^ h>>33
}

// appendTerm appends the span_terms token of posting hash h under mix.
func appendTerm(b []byte, h int64, mix uint64) []byte {
	return strconv.AppendUint(b, uint64(h)^mix, 32)
}

// ftsWriter is the store's spanIndex in the FTS5 variant.
type ftsWriter struct {
	st *Store
	// seen are the dictionary values written (by hash of environment,
	// key and value), bounded as valueCache is.
	seen map[uint64]struct{}
	text []byte
}

func newFTSWriter(st *Store) *ftsWriter { return &ftsWriter{st: st, seen: map[uint64]struct{}{}} }

func (w *ftsWriter) write(ctx context.Context, tx *sql.Tx, first int64, spans []warehouse.Span, preps []*prepared, fresh []bool) error {
	terms := newRowInserter(tx, w.st.stmts, `INSERT INTO span_terms (rowid, t) VALUES `, 2, rowsPerInsert)
	vals := newRowInserter(tx, w.st.stmts, `INSERT OR IGNORE INTO fts_values (key_hash, value) VALUES `, 2, valuesPerInsert)
	seq := first
	var env string
	hour := int64(math.MinInt64)
	var mix, envHash uint64
	for i := range spans {
		if !fresh[i] {
			continue
		}
		sp, p := &spans[i], preps[i]
		if h := index.HourOf(sp.Timestamp); h != hour || sp.Environment != env {
			env, hour = sp.Environment, h
			mix, envHash = ftsMix(env, hour), uint64(index.PostingHash(env, ""))
		}
		b := w.text[:0]
		for j, h := range p.hashes {
			if j > 0 {
				b = append(b, ' ')
			}
			b = appendTerm(b, h, mix)
		}
		w.text = b
		if err := terms.add(ctx, seq, string(b)); err != nil {
			return fmt.Errorf("span_terms: %w", err)
		}
		for _, v := range p.values {
			if v.gap {
				continue
			}
			k := uint64(v.hash) ^ envHash
			if _, ok := w.seen[k]; ok {
				continue
			}
			if len(w.seen) >= maxCachedValues {
				clear(w.seen)
			}
			w.seen[k] = struct{}{}
			if err := vals.add(ctx, valueKeyHash(env, v.key), v.value); err != nil {
				return fmt.Errorf("fts_values: %w", err)
			}
		}
		seq++
	}
	if err := terms.flush(ctx); err != nil {
		return fmt.Errorf("span_terms: %w", err)
	}
	if err := vals.flush(ctx); err != nil {
		return fmt.Errorf("fts_values: %w", err)
	}
	return nil
}

// BenchmarkFTS5Writes measures the writer's CPU per span (the whole
// process's, getrusage: the background merges and checkpoints included)
// for the same batches of 1 000 spans (synthspans, each span its own
// trace) into: today's store (today); the store without the postings and
// the value dictionary (no_postings); and no_postings plus the FTS5 tables
// of this file written in the same transaction (fts5_<tokenizer>_am<N>,
// automerge N). After the loop the benchmark runs the merges left
// (mergeRuns) and a WAL checkpoint, inside the measured CPU.
// cpu-us/span includes making the spans (gen-cpu-us/span, the same in
// every variant); net-cpu-us/span and spans/cpu-s leave it out.
//
//	nice -n 10 go test -run '^$' -bench FTS5Writes -benchtime 300x -count 2 ./internal/warehouse/sqlite/
func BenchmarkFTS5Writes(b *testing.B) {
	type variant struct {
		name       string
		noPostings bool
		tokenizer  string
		automerge  int
	}
	variants := []variant{{name: "today"}, {name: "no_postings", noPostings: true}}
	for _, tok := range []string{"ascii", "unicode61"} {
		for _, am := range []int{4, 16} {
			variants = append(variants, variant{fmt.Sprintf("fts5_%s_am%d", tok, am), true, tok, am})
		}
	}
	for _, v := range variants {
		b.Run(v.name, func(b *testing.B) {
			ctx := context.Background()
			path := filepath.Join(b.TempDir(), "bench.db")
			st, err := Open(ctx, path, Options{})
			if err != nil {
				b.Fatal(err)
			}
			defer st.Close()
			st.noPostings = v.noPostings
			if v.tokenizer != "" {
				if err := createFTSIndex(ctx, st, v.tokenizer, v.automerge); err != nil {
					b.Fatal(err)
				}
				st.spanIndex = newFTSWriter(st).write
			}
			const batch = 1000
			g := synthspans.New("bench", 1)
			ts := int64(1_790_000_000_000)
			n := 0
			var gen time.Duration
			cpu0 := synthspans.CPUTime()
			for b.Loop() {
				c := synthspans.CPUTime()
				spans := g.Batch(batch, ts, ts+60_000)
				gen += synthspans.CPUTime() - c
				ts += 60_000
				if err := st.WriteSpans(ctx, spans); err != nil {
					b.Fatal(err)
				}
				n += batch
			}
			if _, err := st.mergeRuns(ctx); err != nil {
				b.Fatal(err)
			}
			if _, err := st.writer.ExecContext(ctx, `PRAGMA wal_checkpoint(TRUNCATE)`); err != nil {
				b.Fatal(err)
			}
			cpu := synthspans.CPUTime() - cpu0
			wall := b.Elapsed()
			fi, err := os.Stat(path)
			if err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(float64(cpu.Nanoseconds())/1e3/float64(n), "cpu-us/span")
			b.ReportMetric(float64(gen.Nanoseconds())/1e3/float64(n), "gen-cpu-us/span")
			b.ReportMetric(float64((cpu-gen).Nanoseconds())/1e3/float64(n), "net-cpu-us/span")
			b.ReportMetric(float64(n)/(cpu-gen).Seconds(), "spans/cpu-s")
			b.ReportMetric(float64(n)/wall.Seconds(), "spans/s")
			b.ReportMetric(float64(fi.Size())/float64(n), "file-B/span")
		})
	}
}

// BenchmarkFTS5WritesInterleaved is BenchmarkFTS5Writes with every
// variant's store in one process, each batch written to all of them in
// turn (the first variant rotating): the machine's speed, which drifts
// by tens of per cent within minutes on a shared machine, is then the
// same for all. Each write's CPU is the process's from the call until
// its merges (run synchronously here: the background merger is replaced
// by a no-op) and a passive WAL checkpoint are done; the Go GC's work is
// shared out as the garbage happens to be collected, and the background
// checkpointer may run into the next variant's write. <variant>-us/span
// is the CPU per span (span generation left out).
//
//	nice -n 10 go test -run '^$' -bench FTS5WritesInterleaved -benchtime 200x ./internal/warehouse/sqlite/
func BenchmarkFTS5WritesInterleaved(b *testing.B) {
	type variant struct {
		name       string
		noPostings bool
		tokenizer  string
		automerge  int
	}
	variants := []variant{{name: "today"}, {name: "no_postings", noPostings: true},
		{"fts5_ascii_am4", true, "ascii", 4}, {"fts5_ascii_am16", true, "ascii", 16}, {"fts5_unicode61_am4", true, "unicode61", 4}}
	ctx := context.Background()
	stores := make([]*Store, len(variants))
	for i, v := range variants {
		st, err := Open(ctx, filepath.Join(b.TempDir(), v.name+".db"), Options{})
		if err != nil {
			b.Fatal(err)
		}
		defer st.Close()
		st.merges.close()
		st.merges = startWorker(func(<-chan struct{}) {})
		st.noPostings = v.noPostings
		if v.tokenizer != "" {
			if err := createFTSIndex(ctx, st, v.tokenizer, v.automerge); err != nil {
				b.Fatal(err)
			}
			st.spanIndex = newFTSWriter(st).write
		}
		stores[i] = st
	}
	const batch = 1000
	g := synthspans.New("bench", 1)
	ts := int64(1_790_000_000_000)
	cpu := make([]time.Duration, len(variants))
	n, turn := 0, 0
	for b.Loop() {
		spans := g.Batch(batch, ts, ts+60_000)
		ts += 60_000
		for k := range stores {
			i := (k + turn) % len(stores)
			st := stores[i]
			c := synthspans.CPUTime()
			if err := st.WriteSpans(ctx, spans); err != nil {
				b.Fatal(err)
			}
			if _, err := st.mergeRuns(ctx); err != nil {
				b.Fatal(err)
			}
			if _, err := st.writer.ExecContext(ctx, `PRAGMA wal_checkpoint(PASSIVE)`); err != nil {
				b.Fatal(err)
			}
			cpu[i] += synthspans.CPUTime() - c
		}
		turn++
		n += batch
	}
	for i, v := range variants {
		b.ReportMetric(float64(cpu[i].Nanoseconds())/1e3/float64(n), v.name+"-us/span")
	}
}

// ftsBenchEnv is the environment of the query benchmark's spans.
const ftsBenchEnv = "production"

// ftsQueryStore returns the store of BenchmarkFTS5Queries: n spans over the
// 7 days before 2026-11-01 (querybench's generator and layout), with both
// today's postings and the FTS5 tables (automerge 4), filled once per file
// (FTS5_BENCH_DIR keeps it across runs).
func ftsQueryStore(b *testing.B, n int) (st *Store, start, end int64) {
	ctx := context.Background()
	end = time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC).UnixMilli()
	start = end - 7*synthspans.Day
	dir := os.Getenv("FTS5_BENCH_DIR")
	if dir == "" {
		dir = b.TempDir()
	}
	path := filepath.Join(dir, fmt.Sprintf("fts5-%d.db", n))
	if _, err := os.Stat(path); os.IsNotExist(err) {
		t0, c0 := time.Now(), synthspans.CPUTime()
		fill, err := Open(ctx, path+".tmp", Options{})
		if err != nil {
			b.Fatal(err)
		}
		if err := createFTSIndex(ctx, fill, "ascii", 4); err != nil {
			b.Fatal(err)
		}
		fill.spanIndex = newFTSWriter(fill).write
		g := synthspans.New(ftsBenchEnv, 1)
		const batch = 1000
		for i := 0; i < n; i += batch {
			k := min(batch, n-i)
			from, to := start+(end-start)*int64(i)/int64(n), start+(end-start)*int64(i+k)/int64(n)
			if err := fill.WriteSpans(ctx, g.Batch(k, from, to)); err != nil {
				b.Fatal(err)
			}
			if i%100_000 == 0 {
				b.Logf("fill: %d spans", i)
			}
		}
		if _, err := fill.mergeRuns(ctx); err != nil {
			b.Fatal(err)
		}
		if err := fill.Close(); err != nil {
			b.Fatal(err)
		}
		if err := os.Rename(path+".tmp", path); err != nil {
			b.Fatal(err)
		}
		_ = os.Remove(path + ".tmp-wal")
		_ = os.Remove(path + ".tmp-shm")
		b.Logf("fill: %d spans in %s, CPU %s", n, time.Since(t0).Round(time.Second), (synthspans.CPUTime() - c0).Round(time.Second))
	}
	st, err := Open(ctx, path, Options{SkipIntegrityCheck: true})
	if err != nil {
		b.Fatal(err)
	}
	if _, err := st.writer.ExecContext(ctx, `CREATE VIRTUAL TABLE IF NOT EXISTS span_terms_vocab USING fts5vocab(span_terms, 'row')`); err != nil {
		b.Fatal(err)
	}
	return st, start, end
}

// ftsQuery is a span query as the FTS5 variant runs it: one environment,
// the range [from, to], equality and contains filters ANDed, the first
// page of limit spans by time descending, with the total.
type ftsQuery struct {
	env      string
	from, to int64
	filters  []warehouse.Filter
	limit    int
}

// ftsResolve returns the posting hashes of the values f matches: the
// value's own for an equality, the dictionary's values that contain f's
// (value_grams) for contains.
func (st *Store) ftsResolve(ctx context.Context, env string, f warehouse.Filter) ([]int64, error) {
	ref := warehouse.ResolveSpanField(f.Field)
	var key string
	switch {
	case ref.Kind == warehouse.KindSpanAttribute:
		key = ref.Key
	case ref.Kind == warehouse.KindColumn && slices.Contains(indexedColumns, ref.Column):
		key = index.ColumnKey(ref.Column)
	default:
		return nil, fmt.Errorf("fts5: field %s not indexed", f.Field)
	}
	switch f.Operator {
	case warehouse.OpEquals:
		return []int64{index.PostingHash(key, f.Value)}, nil
	case warehouse.OpContains, warehouse.OpStartsWith:
		if ref.Kind != warehouse.KindSpanAttribute {
			return nil, fmt.Errorf("fts5: the dictionary holds attributes only")
		}
		var rows *sql.Rows
		var err error
		if f.Operator == warehouse.OpContains {
			rows, err = st.reader.QueryContext(ctx, `SELECT value FROM fts_values WHERE id IN
				(SELECT rowid FROM value_grams WHERE value_grams MATCH ?) AND key_hash = ?`,
				`"`+strings.ReplaceAll(f.Value, `"`, `""`)+`"`, valueKeyHash(env, ref.Key))
		} else {
			rows, err = st.reader.QueryContext(ctx, `SELECT value FROM fts_values WHERE id IN
				(SELECT rowid FROM value_grams WHERE value GLOB ?) AND key_hash = ?`,
				globEscape(f.Value)+"*", valueKeyHash(env, ref.Key))
		}
		if err != nil {
			return nil, err
		}
		defer rows.Close()
		var out []int64
		for rows.Next() {
			var v string
			if err := rows.Scan(&v); err != nil {
				return nil, err
			}
			out = append(out, index.PostingHash(key, v))
		}
		return out, rows.Err()
	}
	return nil, fmt.Errorf("fts5: operator %s not supported", f.Operator)
}

func globEscape(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r == '*' || r == '?' || r == '[' {
			b.WriteString("[" + string(r) + "]")
		} else {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// ftsExpr is the MATCH expression of the spans of env in hours [lo, hi]
// that hold, for every filter, one of its values (hashes): an AND of one
// OR per filter of its values' terms in every hour (a span's terms are
// all of its own hour, so no hour needs matching across filters).
func ftsExpr(filters [][]int64, env string, lo, hi int64) string {
	mixes := make([]uint64, 0, hi-lo+1)
	for h := lo; h <= hi; h++ {
		mixes = append(mixes, ftsMix(env, h))
	}
	var b []byte
	for i, f := range filters {
		if i > 0 {
			b = append(b, " AND "...)
		}
		if len(filters) > 1 {
			b = append(b, '(')
		}
		for j, mix := range mixes {
			for k, v := range f {
				if j > 0 || k > 0 {
					b = append(b, " OR "...)
				}
				b = appendTerm(b, v, mix)
			}
		}
		if len(filters) > 1 {
			b = append(b, ')')
		}
	}
	return string(b)
}

// ftsQuerySpans answers q from the FTS5 tables: the total (the hours
// wholly inside the range counted by FTS5 alone, the spans of the edge
// hours checked against the range), then the page, hour chunks from the
// newest (a span's term hour is its start's, so once the hours from the
// newest down to h hold a page of spans, older hours cannot enter it).
func (st *Store) ftsQuerySpans(ctx context.Context, q ftsQuery) ([]warehouse.Span, int64, error) {
	var filters [][]int64
	for _, f := range q.filters {
		hs, err := st.ftsResolve(ctx, q.env, f)
		if err != nil {
			return nil, 0, err
		}
		if len(hs) == 0 {
			return nil, 0, nil
		}
		filters = append(filters, hs)
	}
	first, last := index.HourOf(q.from), index.HourOf(q.to)
	innerLo, innerHi := first, last
	if q.from > first*index.HourMs {
		innerLo++
	}
	if q.to < (last+1)*index.HourMs-1 {
		innerHi--
	}
	var total int64
	if innerLo <= innerHi && len(filters) == 1 {
		// One filter: its terms are disjoint (a span holds one value of a
		// key, and its terms are of one hour), so the total of the whole
		// hours is the sum of their terms' document counts, which
		// fts5vocab reads off the index as today's count reads the lists'
		// lengths (a MATCH of an OR of N terms costs N per match).
		terms := strings.Fields(strings.ReplaceAll(ftsExpr(filters, q.env, innerLo, innerHi), " OR ", " "))
		var sum sql.NullInt64
		if err := st.reader.QueryRowContext(ctx, `SELECT sum(doc) FROM span_terms_vocab WHERE term IN (SELECT value FROM json_each(?))`,
			`["`+strings.Join(terms, `","`)+`"]`).Scan(&sum); err != nil {
			return nil, 0, fmt.Errorf("fts5 count: %w", err)
		}
		total = sum.Int64
	} else if innerLo <= innerHi {
		if err := st.reader.QueryRowContext(ctx, `SELECT count(*) FROM span_terms WHERE span_terms MATCH ?`,
			ftsExpr(filters, q.env, innerLo, innerHi)).Scan(&total); err != nil {
			return nil, 0, fmt.Errorf("fts5 count: %w", err)
		}
	}
	var edges []int64
	if first < innerLo {
		edges = append(edges, first)
	}
	if last > innerHi && last != first {
		edges = append(edges, last)
	}
	for _, h := range edges {
		var n int64
		if err := st.reader.QueryRowContext(ctx, `SELECT count(*) FROM span_terms AS t CROSS JOIN spans AS s ON s.seq = t.rowid
			WHERE span_terms MATCH ? AND s.timestamp BETWEEN ? AND ?`, ftsExpr(filters, q.env, h, h), q.from, q.to).Scan(&n); err != nil {
			return nil, 0, fmt.Errorf("fts5 count: %w", err)
		}
		total += n
	}
	if total == 0 {
		return nil, 0, nil
	}
	// The page: chunks of hours sized to hold about 1.5 pages.
	type cand struct{ seq, ts int64 }
	var cands []cand
	hours := last - first + 1
	chunk := max(1, min(hours, int64(math.Ceil(1.5*float64(q.limit)*float64(hours)/float64(total)))))
	for hi := last; hi >= first && len(cands) < q.limit; {
		lo := max(first, hi-chunk+1)
		rows, err := st.reader.QueryContext(ctx, `SELECT s.seq, s.timestamp FROM span_terms AS t CROSS JOIN spans AS s ON s.seq = t.rowid
			WHERE span_terms MATCH ? AND s.timestamp BETWEEN ? AND ?`, ftsExpr(filters, q.env, lo, hi), q.from, q.to)
		if err != nil {
			return nil, 0, fmt.Errorf("fts5 page: %w", err)
		}
		for rows.Next() {
			var c cand
			if err := rows.Scan(&c.seq, &c.ts); err != nil {
				rows.Close()
				return nil, 0, err
			}
			cands = append(cands, c)
		}
		if err := rows.Close(); err != nil {
			return nil, 0, err
		}
		hi, chunk = lo-1, 2*chunk
	}
	slices.SortFunc(cands, func(a, b cand) int {
		if a.ts != b.ts {
			return int(b.ts - a.ts)
		}
		return int(b.seq - a.seq)
	})
	cands = cands[:min(len(cands), q.limit)]
	seqs := make([]any, len(cands))
	for i, c := range cands {
		seqs[i] = c.seq
	}
	rows, err := st.reader.QueryContext(ctx, `SELECT `+selectSpanColumns+` FROM spans WHERE seq IN (`+placeholders(len(seqs))+`)
		ORDER BY timestamp DESC, seq DESC`, seqs...)
	if err != nil {
		return nil, 0, fmt.Errorf("fts5 page: %w", err)
	}
	defer rows.Close()
	var out []warehouse.Span
	for rows.Next() {
		sp, _, _, err := scanSpan(rows)
		if err != nil {
			return nil, 0, err
		}
		out = append(out, sp)
	}
	return out, total, rows.Err()
}

// BenchmarkFTS5Queries measures the first page of 100 spans by time
// descending, with total_results, for each filter shape over 1 hour, 24
// hours and 7 days, through today's query path (today: Store.QuerySpans)
// and through the FTS5 tables (fts5: ftsQuerySpans), on one store that
// holds both indexes of the same spans; 20 runs each (windows and values
// drawn alike for both), p50 and p99 in ms. Every run checks that both
// give the same total and page. FTS5_BENCH_SPANS is the store's size
// (default 100 000); FTS5_BENCH_DIR keeps the filled store across runs.
//
//	FTS5_BENCH_SPANS=1000000 FTS5_BENCH_DIR=/tmp/fts5 nice -n 10 go test -run '^$' -bench FTS5Queries -benchtime 1x -timeout 2h ./internal/warehouse/sqlite/
func BenchmarkFTS5Queries(b *testing.B) {
	n := 100_000
	if s := os.Getenv("FTS5_BENCH_SPANS"); s != "" {
		var err error
		if n, err = strconv.Atoi(s); err != nil {
			b.Fatal(err)
		}
	}
	st, start, end := ftsQueryStore(b, n)
	defer st.Close()
	ctx := context.Background()
	const runs = 20
	user := func(rng *rand.Rand) string { return synthspans.UserID(rng.IntN(synthspans.Users)) }
	shapes := []struct {
		name    string
		filters func(rng *rand.Rand) []warehouse.Filter
	}{
		{"rare_user_id_equals_1pct", func(rng *rand.Rand) []warehouse.Filter {
			return []warehouse.Filter{{Field: "user.id", Operator: warehouse.OpEquals, Value: user(rng)}}
		}},
		{"common_model_equals_10pct", func(*rand.Rand) []warehouse.Filter {
			return []warehouse.Filter{{Field: "llm.request.model", Operator: warehouse.OpEquals, Value: "gpt-4o"}}
		}},
		{"model_and_user_equals_0.1pct", func(rng *rand.Rand) []warehouse.Filter {
			return []warehouse.Filter{{Field: "llm.request.model", Operator: warehouse.OpEquals, Value: "gpt-4o"},
				{Field: "user.id", Operator: warehouse.OpEquals, Value: user(rng)}}
		}},
		{"user_id_contains_10pct", func(rng *rand.Rand) []warehouse.Filter {
			return []warehouse.Filter{{Field: "user.id", Operator: warehouse.OpContains, Value: fmt.Sprintf("r-0%d", rng.IntN(10))}}
		}},
	}
	windows := []struct {
		name  string
		width int64
	}{{"1h", synthspans.Hour}, {"24h", synthspans.Day}, {"7d", 7 * synthspans.Day}}
	for _, sh := range shapes {
		for _, w := range windows {
			// The same 20 queries for both variants.
			rng := rand.New(rand.NewPCG(26, uint64(len(sh.name))*31+uint64(w.width)))
			var qs []ftsQuery
			for range runs {
				from, to := start, end-1
				if w.width < end-start {
					from, to = synthspans.Window(rng, start, end, w.width)
				}
				qs = append(qs, ftsQuery{env: ftsBenchEnv, from: from, to: to, filters: sh.filters(rng), limit: 100})
			}
			type result struct {
				total int64
				page  []string
			}
			results := map[string][]result{}
			for _, variant := range []string{"today", "fts5"} {
				b.Run(sh.name+"/"+w.name+"/"+variant, func(b *testing.B) {
					var lat []time.Duration
					var res []result
					var matched int64
					for b.Loop() {
						lat, res, matched = lat[:0], res[:0], 0
						for _, q := range qs {
							var spans []warehouse.Span
							var total int64
							t0 := time.Now()
							if variant == "today" {
								page, err := st.QuerySpans(ctx, warehouse.SpanQuery{Environments: []string{q.env}, FromMs: q.from,
									ToMs: q.to, Filters: q.filters, Desc: true, Limit: q.limit})
								if err != nil {
									b.Fatal(err)
								}
								spans, total = page.Spans, page.TotalResults
							} else {
								var err error
								if spans, total, err = st.ftsQuerySpans(ctx, q); err != nil {
									b.Fatal(err)
								}
							}
							lat = append(lat, time.Since(t0))
							r := result{total: total}
							for _, sp := range spans {
								r.page = append(r.page, sp.SpanID)
							}
							res = append(res, r)
							matched += total
						}
					}
					slices.Sort(lat)
					b.ReportMetric(ms(lat[len(lat)/2]), "p50-ms")
					b.ReportMetric(ms(lat[(len(lat)*99-1)/100]), "p99-ms")
					b.ReportMetric(float64(matched)/float64(len(qs)), "total")
					results[variant] = res
				})
			}
			today, fts := results["today"], results["fts5"]
			for i := range min(len(today), len(fts)) {
				if today[i].total != fts[i].total || !slices.Equal(today[i].page, fts[i].page) {
					b.Errorf("%s/%s run %d: today total %d page %d spans, fts5 total %d page %d spans (pages equal: %v)", sh.name, w.name, i,
						today[i].total, len(today[i].page), fts[i].total, len(fts[i].page), slices.Equal(today[i].page, fts[i].page))
				}
			}
		}
	}
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
