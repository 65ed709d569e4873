package clickhouse

import (
	"context"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"maps"
	"math"
	"slices"
	"unsafe"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"

	"github.com/evalcol/evalcol/internal/warehouse"
	"github.com/evalcol/evalcol/internal/warehouse/sqlfilter"
)

const spanColumns = `environment, timestamp, seq, ver, duration, total_tokens, trace_id, span_id,
	parent_span_id, trace_state, span_name, span_kind, service_name, scope_name, scope_version, status_code,
	status_message, workflow_name, entity_name, agent_name, request_model, response_model, vendor,
	resource_keys, resource_values, attr_keys, attr_values, prompt_keys, prompt_values,
	completion_keys, completion_values, input, output, evaluations`

// spanInsertColumns are the columns a span insert writes: spanColumns, the
// verdict index, which only filters read, and the content hash, which
// only conflict checks read.
const spanInsertColumns = spanColumns + ", verdicts, content_hash"

// WriteSpans stores spans in one insert (one batch: all or none). Writes
// are idempotent: a re-sent span has the same sort key (environment,
// timestamp, trace_id, span_id) and queries read the table FINAL, so the
// first stored copy is the one seen; merges remove the others. Every
// write goes the way of WriteSpansReport, which skips the spans already
// stored, so that they and their results are counted once
// (warehouse.EvaluationCounter, warehouse.SpanStatter).
func (s *Store) WriteSpans(ctx context.Context, spans []warehouse.Span) error {
	if err := s.ready(ctx, "write spans"); err != nil {
		return err
	}
	if len(spans) == 0 {
		return nil
	}
	_, err := s.WriteSpansReport(ctx, spans)
	return err
}

// writeColumns inserts the spans of cols with new sequence numbers.
func (s *Store) writeColumns(ctx context.Context, cols *spanColumnsData) error {
	seqs := s.clock.next(len(cols.env))
	vers := make([]uint64, len(seqs))
	for i, seq := range seqs {
		vers[i] = version(seq)
	}
	if err := s.insertSpans(ctx, cols, seqs, vers); err != nil {
		return fmt.Errorf("write spans: %w", err)
	}
	return nil
}

var _ warehouse.SpanConflictWriter = (*Store)(nil)

// WriteSpansReport is WriteSpans, and reports the conflicting duplicates
// (warehouse.SpanConflictWriter): spans of the same environment, trace
// id, span id and start time as a span stored first (by an earlier write,
// or earlier in spans) but with another content hash (spanContentHash).
// Every duplicate is skipped, the first copy kept as ever; an identical
// resend is not reported. The stored copies' hashes are read in one query
// over the batch's time range. Two collectors writing the same new span
// at the same moment may both miss the other's copy: the first stored is
// still the one kept, but the conflict goes unreported.
func (s *Store) WriteSpansReport(ctx context.Context, spans []warehouse.Span) (rep warehouse.SpanWriteReport, err error) {
	if err := s.ready(ctx, "write spans"); err != nil {
		return rep, err
	}
	if len(spans) == 0 {
		return rep, nil
	}
	cols := newSpanColumnsData(len(spans))
	for i := range spans {
		cols.add(&spans[i])
	}
	stored, err := s.storedHashes(ctx, spans)
	if err != nil {
		return rep, fmt.Errorf("write spans: %w", err)
	}
	first := make(map[spanIdentity]uint64, len(spans))
	keep := make([]int, 0, len(spans))
	for i := range spans {
		id := identityOf(&spans[i])
		h := cols.contentHash[i]
		if prev, ok := stored[id]; ok {
			if prev != h {
				rep.Conflicts = append(rep.Conflicts, i)
			}
			continue
		}
		if prev, ok := first[id]; ok {
			if prev != h {
				rep.Conflicts = append(rep.Conflicts, i)
			}
			continue
		}
		first[id] = h
		keep = append(keep, i)
	}
	if len(keep) == 0 {
		return rep, nil
	}
	fresh := spans
	if len(keep) < len(spans) {
		fresh = make([]warehouse.Span, len(keep))
		for j, i := range keep {
			fresh[j] = spans[i]
		}
		cols = newSpanColumnsData(len(fresh))
		for i := range fresh {
			cols.add(&fresh[i])
		}
	}
	if err := s.writeTraceRanges(ctx, fresh); err != nil {
		return rep, fmt.Errorf("write spans: %w", err)
	}
	if err := s.writeColumns(ctx, cols); err != nil {
		return rep, err
	}
	if err := s.countSpans(ctx, fresh); err != nil {
		return rep, err
	}
	changes := warehouse.SpanChanges{Traces: warehouse.TraceStatChanges{Prices: s.opts.Prices}}
	for i := range fresh {
		changes.AddSpan(&fresh[i], 1)
	}
	if err := s.writeSpanStats(ctx, &changes.Stats); err != nil {
		return rep, fmt.Errorf("write spans: %w", err)
	}
	if err := s.writeTraceStats(ctx, &changes.Traces); err != nil {
		return rep, fmt.Errorf("write spans: %w", err)
	}
	return rep, nil
}

// spanIdentity is what makes two spans the same span: the sort key of
// spans.
type spanIdentity struct {
	env, traceID, spanID string
	timestamp            int64
}

func identityOf(sp *warehouse.Span) spanIdentity {
	return spanIdentity{sp.Environment, sp.TraceID, sp.SpanID, sp.Timestamp}
}

// storedHashes returns the content hashes of the stored spans that have
// the identity of one of spans: of each, the first stored copy's (the
// highest version; evaluations appended later keep its content).
func (s *Store) storedHashes(ctx context.Context, spans []warehouse.Span) (map[spanIdentity]uint64, error) {
	envs, traces := map[string]bool{}, map[string]bool{}
	lo, hi := spans[0].Timestamp, spans[0].Timestamp
	for i := range spans {
		envs[spans[i].Environment], traces[spans[i].TraceID] = true, true
		lo, hi = min(lo, spans[i].Timestamp), max(hi, spans[i].Timestamp)
	}
	var w sqlfilter.Where
	w.In("environment", slices.Collect(maps.Keys(envs)))
	w.Add("timestamp >= ?", lo)
	w.Add("timestamp <= ?", hi)
	w.In("trace_id", slices.Collect(maps.Keys(traces)))
	rows, err := s.conn.Query(ctx, "SELECT environment, timestamp, trace_id, span_id, argMax(content_hash, ver) FROM "+
		s.schema.table("spans")+" WHERE "+w.SQL()+" GROUP BY environment, timestamp, trace_id, span_id", w.Args...)
	if err != nil {
		return nil, fmt.Errorf("stored content hashes: %w", mapErr(err))
	}
	defer rows.Close()
	want := make(map[spanIdentity]bool, len(spans))
	for i := range spans {
		want[identityOf(&spans[i])] = true
	}
	out := map[spanIdentity]uint64{}
	for rows.Next() {
		var id spanIdentity
		var h uint64
		if err := rows.Scan(&id.env, &id.timestamp, &id.traceID, &id.spanID, &h); err != nil {
			return nil, fmt.Errorf("stored content hashes: %w", mapErr(err))
		}
		if want[id] {
			out[id] = h
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("stored content hashes: %w", mapErr(err))
	}
	return out, nil
}

// insertSpans inserts the spans of cols, with their sequence numbers and
// versions, in one batch (all or none).
func (s *Store) insertSpans(ctx context.Context, cols *spanColumnsData, seqs []int64, vers []uint64) error {
	batch, err := s.conn.PrepareBatch(s.writeCtx(ctx), "INSERT INTO "+s.schema.table("spans")+" ("+spanInsertColumns+")")
	if err != nil {
		return fmt.Errorf("prepare: %w", mapErr(err))
	}
	for i, data := range cols.values(seqs, vers) {
		if err := batch.Column(i).Append(data); err != nil {
			batch.Abort()
			return fmt.Errorf("column %d: %w", i, mapErr(err))
		}
	}
	if err := batch.Send(); err != nil {
		return fmt.Errorf("send: %w", mapErr(err))
	}
	return nil
}

// traceKey identifies a trace within an environment.
type traceKey struct{ env, traceID string }

// writeTraceRanges inserts one span_traces row per trace of spans: the
// lowest and highest timestamp of the trace's spans in this batch.
func (s *Store) writeTraceRanges(ctx context.Context, spans []warehouse.Span) error {
	idx := make(map[traceKey]int, len(spans))
	var envs, traces []string
	var mins, maxs []int64
	for i := range spans {
		sp := &spans[i]
		k := traceKey{sp.Environment, sp.TraceID}
		j, ok := idx[k]
		if !ok {
			idx[k] = len(envs)
			envs, traces = append(envs, k.env), append(traces, k.traceID)
			mins, maxs = append(mins, sp.Timestamp), append(maxs, sp.Timestamp)
			continue
		}
		mins[j], maxs[j] = min(mins[j], sp.Timestamp), max(maxs[j], sp.Timestamp)
	}
	batch, err := s.conn.PrepareBatch(s.writeCtx(ctx), "INSERT INTO "+s.schema.table("span_traces")+" (environment, trace_id, min_ts, max_ts)")
	if err != nil {
		return fmt.Errorf("trace index: prepare: %w", mapErr(err))
	}
	for i, data := range []any{envs, traces, mins, maxs} {
		if err := batch.Column(i).Append(data); err != nil {
			batch.Abort()
			return fmt.Errorf("trace index: column %d: %w", i, mapErr(err))
		}
	}
	if err := batch.Send(); err != nil {
		return fmt.Errorf("trace index: send: %w", mapErr(err))
	}
	return nil
}

// traceFilterIDs returns the trace ids a span query is restricted to: the
// values of its first trace_id equals or in filter (filters are ANDed).
func traceFilterIDs(filters []warehouse.Filter) ([]string, bool) {
	for _, f := range filters {
		ref := warehouse.ResolveSpanField(f.Field)
		if ref.Kind != warehouse.KindColumn || ref.Column != "trace_id" {
			continue
		}
		switch f.Operator {
		case warehouse.OpEquals:
			return []string{f.Value}, true
		case warehouse.OpIn:
			return f.Values, true
		}
	}
	return nil, false
}

// traceRange returns the time range covering every stored span of the
// given traces within [from, to] (to 0: no upper bound), from the trace
// index; found is false when no span of them can be in the range.
func (s *Store) traceRange(ctx context.Context, envs, traceIDs []string, from, to int64) (lo, hi int64, found bool, err error) {
	if len(traceIDs) == 0 {
		return 0, 0, false, nil
	}
	var w sqlfilter.Where
	w.In("environment", envs)
	w.In("trace_id", traceIDs)
	w.Add("max_ts >= ?", from)
	if to != 0 {
		w.Add("min_ts <= ?", to)
	}
	var n uint64
	if err := s.conn.QueryRow(ctx, "SELECT min(min_ts), max(max_ts), count() FROM "+s.schema.table("span_traces")+" WHERE "+w.SQL(),
		w.Args...).Scan(&lo, &hi, &n); err != nil {
		return 0, 0, false, fmt.Errorf("trace index: %w", mapErr(err))
	}
	if n == 0 {
		return 0, 0, false, nil
	}
	lo = max(lo, from)
	if to != 0 {
		hi = min(hi, to)
	}
	return lo, hi, true, nil
}

// spanColumnsData holds a batch of spans column by column, in the order
// of spanColumns: appending whole columns to the batch is much cheaper
// than appending row by row.
type spanColumnsData struct {
	env, traceID, spanID, parentID, traceState, name, kind, service, scopeName, scopeVersion   []string
	statusCode, statusMsg, workflow, entity, agent, reqModel, respModel, vendor, input, output []string
	evaluations, verdicts                                                                      []string
	timestamp, duration, tokens                                                                []int64
	contentHash                                                                                []uint64
	resKeys, resValues, attrKeys, attrValues, promptKeys, promptValues, complKeys, complValues [][]string
}

func newSpanColumnsData(n int) *spanColumnsData {
	c := &spanColumnsData{}
	for _, p := range []*[]string{&c.env, &c.traceID, &c.spanID, &c.parentID, &c.traceState, &c.name, &c.kind,
		&c.service, &c.scopeName, &c.scopeVersion, &c.statusCode, &c.statusMsg, &c.workflow, &c.entity, &c.agent,
		&c.reqModel, &c.respModel, &c.vendor, &c.input, &c.output, &c.evaluations, &c.verdicts} {
		*p = make([]string, 0, n)
	}
	for _, p := range []*[]int64{&c.timestamp, &c.duration, &c.tokens} {
		*p = make([]int64, 0, n)
	}
	c.contentHash = make([]uint64, 0, n)
	for _, p := range []*[][]string{&c.resKeys, &c.resValues, &c.attrKeys, &c.attrValues, &c.promptKeys,
		&c.promptValues, &c.complKeys, &c.complValues} {
		*p = make([][]string, 0, n)
	}
	return c
}

func (c *spanColumnsData) add(sp *warehouse.Span) {
	c.env = append(c.env, sp.Environment)
	c.timestamp = append(c.timestamp, sp.Timestamp)
	c.duration = append(c.duration, sp.Duration)
	c.tokens = append(c.tokens, sp.TotalTokens)
	c.traceID = append(c.traceID, sp.TraceID)
	c.spanID = append(c.spanID, sp.SpanID)
	c.parentID = append(c.parentID, sp.ParentSpanID)
	c.traceState = append(c.traceState, sp.TraceState)
	c.name = append(c.name, sp.SpanName)
	c.kind = append(c.kind, sp.SpanKind)
	c.service = append(c.service, sp.ServiceName)
	c.scopeName = append(c.scopeName, sp.ScopeName)
	c.scopeVersion = append(c.scopeVersion, sp.ScopeVersion)
	c.statusCode = append(c.statusCode, sp.StatusCode)
	c.statusMsg = append(c.statusMsg, sp.StatusMessage)
	c.workflow = append(c.workflow, sp.WorkflowName)
	c.entity = append(c.entity, sp.EntityName)
	c.agent = append(c.agent, sp.AgentName)
	c.reqModel = append(c.reqModel, sp.RequestModel)
	c.respModel = append(c.respModel, sp.ResponseModel)
	c.vendor = append(c.vendor, sp.Vendor)
	c.input = append(c.input, sp.Input)
	c.output = append(c.output, sp.Output)
	c.evaluations = append(c.evaluations, warehouse.EncodeEvaluations(sp.Evaluations))
	c.verdicts = append(c.verdicts, warehouse.VerdictIndex(sp.Evaluations))
	for _, m := range []struct {
		src        map[string]string
		keys, vals *[][]string
	}{{sp.ResourceAttributes, &c.resKeys, &c.resValues}, {sp.SpanAttributes, &c.attrKeys, &c.attrValues},
		{sp.Prompts, &c.promptKeys, &c.promptValues}, {sp.Completions, &c.complKeys, &c.complValues}} {
		k, v := mapArrays(m.src)
		*m.keys = append(*m.keys, k)
		*m.vals = append(*m.vals, v)
	}
	i := len(c.env) - 1
	c.contentHash = append(c.contentHash, spanContentHash(sp.Duration, [][]string{c.resKeys[i], c.resValues[i], c.attrKeys[i],
		c.attrValues[i], c.promptKeys[i], c.promptValues[i], c.complKeys[i], c.complValues[i],
		{sp.Input, sp.Output, sp.ParentSpanID, sp.TraceState, sp.SpanName, sp.SpanKind, sp.ServiceName, sp.ScopeName,
			sp.ScopeVersion, sp.StatusCode, sp.StatusMessage}}))
}

// castagnoli is the CRC-32C table (hardware-accelerated on amd64 and
// arm64); it is never written after init.
var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// spanContentHash is the content_hash of a span: in the high 32 bits
// CRC-32C of everything a sender controls in the span but its identity
// (environment, trace and span id) and start time, which the sort key
// covers, as stored (the parts: attribute, content and resource arrays,
// the texts); in the low 32 bits an FNV-1a hash of the parts' lengths and
// the duration, so that parts cannot shift into each other. It leaves out
// the evaluations (a resent span may be evaluated differently, yet it is
// the same span). Never 0.
// CRC-32C as on SQLite: it runs at several GB/s on every span's path.
func spanContentHash(duration int64, parts [][]string) uint64 {
	const prime64 = 1099511628211
	var crc uint32
	lengths := uint64(14695981039346656037)
	for _, part := range parts {
		for _, s := range part {
			crc = crc32.Update(crc, castagnoli, unsafe.Slice(unsafe.StringData(s), len(s)))
			lengths = (lengths ^ uint64(len(s))) * prime64
		}
		lengths = (lengths ^ 0xff) * prime64
	}
	lengths = (lengths ^ uint64(duration)) * prime64
	return max(uint64(crc)<<32|lengths&0xffffffff, 1)
}

// values returns the columns in the order of spanInsertColumns.
func (c *spanColumnsData) values(seqs []int64, vers []uint64) []any {
	return []any{c.env, c.timestamp, seqs, vers, c.duration, c.tokens, c.traceID, c.spanID, c.parentID,
		c.traceState, c.name, c.kind, c.service, c.scopeName, c.scopeVersion, c.statusCode, c.statusMsg,
		c.workflow, c.entity, c.agent, c.reqModel, c.respModel, c.vendor, c.resKeys, c.resValues, c.attrKeys,
		c.attrValues, c.promptKeys, c.promptValues, c.complKeys, c.complValues, c.input, c.output, c.evaluations, c.verdicts,
		c.contentHash}
}

// version is the ReplacingMergeTree version of a row: the first insertion
// (lowest seq) has the highest version and wins.
func version(seq int64) uint64 { return uint64(math.MaxInt64 - seq) }

// sortColumns is the whitelist of ORDER BY columns (from
// warehouse.SortKey.Column); nothing else reaches ORDER BY.
var sortColumns = map[string]bool{"timestamp": true, "duration": true, "span_name": true, "trace_id": true,
	"total_tokens": true, "workflow_name": true, "entity_name": true, "response_model": true}

// ReadSpans answers one page of a span query (warehouse.Backend). The
// snapshot is the highest sequence number among the spans in the query's
// environments and time range (only those can match; reading seq within a
// primary-key range is cheap); a trace_id equals/in filter first narrows
// the range through the trace index.
func (s *Store) ReadSpans(ctx context.Context, r warehouse.SpanRead) (warehouse.SpanRows, error) {
	var out warehouse.SpanRows
	if err := s.ready(ctx, "read spans"); err != nil {
		return out, err
	}
	q := r.Query
	table := s.schema.table("spans")
	from, to := q.FromMs, q.ToMs
	if ids, ok := traceFilterIDs(q.Filters); ok {
		// Only the time range of the wanted traces can match.
		lo, hi, found, err := s.traceRange(ctx, q.Environments, ids, from, to)
		if err != nil {
			return out, err
		}
		if !found {
			return out, nil
		}
		from, to = lo, hi
	}
	var w sqlfilter.Where
	w.In("environment", q.Environments)
	w.Add("timestamp >= ?", from)
	if to != 0 {
		w.Add("timestamp <= ?", to)
	}
	snapshot := r.Snapshot
	if r.First {
		if err := s.conn.QueryRow(ctx, "SELECT max(seq) FROM "+table+" WHERE "+w.SQL(), w.Args...).Scan(&snapshot); err != nil {
			return out, fmt.Errorf("snapshot: %w", mapErr(err))
		}
		// Whatever this store writes from now on sorts after the snapshot.
		s.clock.observe(snapshot)
		out.Snapshot = snapshot
	}
	w.Add("seq <= ?", snapshot)
	// Verdict filters read the verdict index, which an appended evaluation
	// changes in a later copy of the row (same seq): they must see the
	// collapsed row, so they go with the FINAL read's own conditions. The
	// other filters read what every copy holds alike (see splitSelect).
	var fw sqlfilter.Where
	for i, c := range dialect.SpanFilters(q.Filters) {
		if warehouse.ResolveSpanField(q.Filters[i].Field).Kind == warehouse.KindVerdict {
			w.AddExpr(c)
		} else {
			fw.AddExpr(c)
		}
	}
	addSearch(&fw, q.SearchTerms())
	matchSQL, matchArgs := w.SQL()+" AND "+fw.SQL(), append(slices.Clone(w.Args), fw.Args...)

	col, dir, cmp := q.SortOrder()
	if !sortColumns[col] {
		return out, fmt.Errorf("sort column %q not allowed", col)
	}
	if !r.First {
		last := r.AfterValue()
		w.Add("("+col+" "+cmp+" ? OR ("+col+" = ? AND seq "+cmp+" ?))", last, last, r.After.Seq)
	}
	// Two steps: the page's keys from the narrow columns (FINAL, so
	// duplicates never show), then the whole rows of those keys. Reading
	// every (wide) column only for the page's rows keeps the cost of a
	// page low when many spans match.
	keys, err := s.readKeys(ctx, keyRead{table: "spans", timeCol: "timestamp", cond: w.SQL(), args: w.Args,
		filter: fw.Conds, filterArgs: fw.Args,
		order: "sort_value " + dir + ", key_seq " + dir, sortExpr: col, limit: []any{r.Limit}, from: from, to: to})
	if err != nil {
		return out, err
	}
	page, cut, err := s.fitKeys(ctx, "spans", spanBytesExpr, "timestamp", q.Environments, keys, r.MaxBytes)
	if err != nil {
		return out, err
	}
	out.Cut = cut
	if out.Spans, err = readBySeq(ctx, s, "spans", "seq, "+spanColumns, "timestamp", q.Environments, page, scanSpanVersion); err != nil {
		return out, err
	}
	out.Seqs = page.seqs
	if r.NeedsCount(len(out.Spans), out.Cut) {
		// The key query sorted every match (no cursor condition on the
		// first page), so its rows_before_limit is the total.
		n, ok := keys.counter.count()
		if !ok || n < uint64(len(keys.seqs)) {
			if err := s.conn.QueryRow(ctx, "SELECT count() FROM "+table+" FINAL WHERE "+matchSQL, matchArgs...).Scan(&n); err != nil {
				return out, fmt.Errorf("count: %w", mapErr(err))
			}
		}
		out.Total = int64(n)
	}
	return out, nil
}

// spanBytesExpr is the size of a row of spans as a page counts it
// (warehouse.RowBytes): the lengths of its texts.
const spanBytesExpr = `length(input) + length(output) + length(evaluations) +
	length(arrayStringConcat(resource_keys)) + length(arrayStringConcat(resource_values)) +
	length(arrayStringConcat(attr_keys)) + length(arrayStringConcat(attr_values)) +
	length(arrayStringConcat(prompt_keys)) + length(arrayStringConcat(prompt_values)) +
	length(arrayStringConcat(completion_keys)) + length(arrayStringConcat(completion_values))`

// fitKeys returns the first of keys (in page order) whose rows fit
// maxBytes (a warehouse.PageBudget: one row at least; 0: no bound), their
// sizes (sizeExpr) measured by the server, so that the page's rows are
// read only once they are known to fit; cut reports that keys were left
// out. A page of one key is not measured.
func (s *Store) fitKeys(ctx context.Context, table, sizeExpr, timeCol string, envs []string, keys pageKeys,
	maxBytes int64) (_ pageKeys, cut bool, _ error) {
	if maxBytes <= 0 || len(keys.seqs) < 2 {
		return keys, false, nil
	}
	args := make([]any, len(keys.seqs))
	for i, seq := range keys.seqs {
		args[i] = seq
	}
	var w sqlfilter.Where
	w.In("environment", envs)
	w.Add(timeCol+" >= ?", keys.minT)
	w.Add(timeCol+" <= ?", keys.maxT)
	w.Add("seq IN ("+placeholders(len(keys.seqs))+")", args...)
	rows, err := s.conn.Query(ctx, "SELECT seq, max("+sizeExpr+") FROM "+s.schema.table(table)+" WHERE "+w.SQL()+" GROUP BY seq", w.Args...)
	if err != nil {
		return keys, false, fmt.Errorf("row sizes: %w", mapErr(err))
	}
	defer rows.Close()
	sizes := make(map[int64]uint64, len(keys.seqs))
	for rows.Next() {
		var seq int64
		var n uint64
		if err := rows.Scan(&seq, &n); err != nil {
			return keys, false, fmt.Errorf("row sizes: %w", mapErr(err))
		}
		sizes[seq] = n
	}
	if err := rows.Err(); err != nil {
		return keys, false, fmt.Errorf("row sizes: %w", mapErr(err))
	}
	budget := warehouse.NewPageBudget(maxBytes)
	for i, seq := range keys.seqs {
		if budget.Full() {
			kept := pageKeys{seqs: keys.seqs[:i], times: keys.times[:i], minT: math.MaxInt64, maxT: math.MinInt64, counter: keys.counter}
			for _, t := range kept.times {
				kept.minT, kept.maxT = min(kept.minT, t), max(kept.maxT, t)
			}
			return kept, true, nil
		}
		budget.Add(int(min(sizes[seq], math.MaxInt32)))
	}
	return keys, false, nil
}

// readBySeq reads the rows of the page keys (their sequence numbers,
// all with times in [keys.minT, keys.maxT]) from table, columns cols (the
// time column timeCol), and returns them in the order of keys.seqs. A seq
// can have several rows: retried copies (equal content) and the rows
// AppendEvaluations adds (higher versions): the highest version wins, the
// row FINAL would pick. scan reads one row: the value, its seq and its
// version.
func readBySeq[T any](ctx context.Context, s *Store, table, cols, timeCol string, envs []string, keys pageKeys,
	scan func(driver.Rows) (T, int64, uint64, error)) ([]T, error) {
	out := make([]T, len(keys.seqs))
	if len(keys.seqs) == 0 {
		return out, nil
	}
	pos := make(map[int64]int, len(keys.seqs))
	args := make([]any, len(keys.seqs))
	for i, seq := range keys.seqs {
		pos[seq] = i
		args[i] = seq
	}
	var w sqlfilter.Where
	w.In("environment", envs)
	w.Add(timeCol+" >= ?", keys.minT)
	w.Add(timeCol+" <= ?", keys.maxT)
	w.Add("seq IN ("+placeholders(len(keys.seqs))+")", args...)
	rows, err := s.conn.Query(ctx, "SELECT "+cols+" FROM "+s.schema.table(table)+" WHERE "+w.SQL(), w.Args...)
	if err != nil {
		return nil, mapErr(err)
	}
	defer rows.Close()
	found, seen, vers := 0, make([]bool, len(keys.seqs)), make([]uint64, len(keys.seqs))
	for rows.Next() {
		v, seq, ver, err := scan(rows)
		if err != nil {
			return nil, err
		}
		i, ok := pos[seq]
		if !ok || seen[i] && ver <= vers[i] {
			continue
		}
		if !seen[i] {
			found++
		}
		out[i], seen[i], vers[i] = v, true, ver
	}
	if err := rows.Err(); err != nil {
		return nil, mapErr(err)
	}
	if found != len(keys.seqs) {
		return nil, fmt.Errorf("read %d of %d rows of the page from %s (rows removed meanwhile?): %w", found, len(keys.seqs), table, warehouse.ErrUnavailable)
	}
	return out, nil
}

// scanSpanVersion reads a row of "seq, "+spanColumns: the span, its seq
// and its version.
func scanSpanVersion(rows driver.Rows) (warehouse.Span, int64, uint64, error) {
	var (
		sp                     warehouse.Span
		seq, seq2              int64
		ver                    uint64
		rk, rv, ak, av, pk, pv []string
		ck, cv                 []string
		evals                  string
	)
	if err := rows.Scan(&seq, &sp.Environment, &sp.Timestamp, &seq2, &ver, &sp.Duration, &sp.TotalTokens,
		&sp.TraceID, &sp.SpanID, &sp.ParentSpanID, &sp.TraceState, &sp.SpanName, &sp.SpanKind, &sp.ServiceName,
		&sp.ScopeName, &sp.ScopeVersion, &sp.StatusCode, &sp.StatusMessage, &sp.WorkflowName, &sp.EntityName,
		&sp.AgentName, &sp.RequestModel, &sp.ResponseModel, &sp.Vendor, &rk, &rv, &ak, &av, &pk, &pv, &ck, &cv,
		&sp.Input, &sp.Output, &evals); err != nil {
		return sp, 0, 0, mapErr(err)
	}
	sp.ResourceAttributes = arraysMap(rk, rv)
	sp.SpanAttributes = arraysMap(ak, av)
	sp.Prompts = arraysMap(pk, pv)
	sp.Completions = arraysMap(ck, cv)
	if evals != "" && evals != "[]" {
		if err := json.Unmarshal([]byte(evals), &sp.Evaluations); err != nil {
			return sp, 0, 0, fmt.Errorf("span %d evaluations: %w", seq, err)
		}
	}
	return sp, seq, ver, nil
}

// mapArrays returns a map as parallel key and value arrays, keys sorted.
func mapArrays(m map[string]string) (keys, values []string) {
	keys = make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	values = make([]string, len(keys))
	for i, k := range keys {
		values[i] = m[k]
	}
	return keys, values
}

// arraysMap is the inverse of mapArrays; never nil.
func arraysMap(keys, values []string) map[string]string {
	m := make(map[string]string, len(keys))
	for i, k := range keys {
		if i < len(values) {
			m[k] = values[i]
		}
	}
	return m
}
