package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"slices"
	"time"
	"unicode/utf8"

	"github.com/evalcol/evalcol/internal/warehouse"
	"github.com/evalcol/evalcol/internal/warehouse/sqlite/internal/index"
)

// insertSpanSQL starts the insert of spans; rowInserter adds the VALUES
// rows.
const insertSpanSQL = `INSERT OR FAIL INTO spans (seq, environment, timestamp, duration, total_tokens, trace_id, span_id,
	parent_span_id, trace_state, span_name, span_kind, service_name, scope_name, scope_version, status_code,
	status_message, workflow_name, entity_name, agent_name, request_model, response_model, vendor,
	resource_id, span_attributes, prompts, completions, input, input_key, output, output_key, evaluations, verdicts) VALUES `

// spanColumns is the number of columns insertSpanSQL names.
const spanColumns = 32

// insertSpanTextSQL starts the insert of spans' search texts into the
// full-text index.
const insertSpanTextSQL = `INSERT INTO span_text (rowid, text) VALUES `

const selectSpanColumns = `seq, environment, timestamp, duration, total_tokens, trace_id, span_id,
	parent_span_id, trace_state, span_name, span_kind, service_name, scope_name, scope_version, status_code,
	status_message, workflow_name, entity_name, agent_name, request_model, response_model, vendor,
	(SELECT attributes FROM resources WHERE id = spans.resource_id), span_attributes, prompts, completions,
	input, output, evaluations`

// spanBytesSQL is the size of a row of spans as scanSpan counts it,
// read from the record headers (octet_length does not load the texts).
const spanBytesSQL = `octet_length(span_attributes) + octet_length(prompts) + octet_length(completions) +
	octet_length(input) + octet_length(output) + octet_length(evaluations) +
	coalesce((SELECT octet_length(attributes) FROM resources WHERE id = spans.resource_id), 0)`

// derivedContent is what the prompts column holds for a span whose
// content is derived from its attributes at read (a stored map is JSON,
// never empty).
const derivedContent = ""

// contentColumns renders a span's prompts, completions, input and output
// as stored: once, in the attributes, when the span's content is derived
// from them (see the spans table in 00001_v0_1_0.sql).
func contentColumns(sp *warehouse.Span) (prompts, completions, input, inputKey, output, outputKey string) {
	if !sp.DerivedContent {
		return encodeMap(sp.Prompts), encodeMap(sp.Completions), sp.Input, "", sp.Output, ""
	}
	input, output = sp.Input, sp.Output
	if inputKey = warehouse.ContentKey(sp.SpanAttributes, input); inputKey != "" {
		input = ""
	}
	if outputKey = warehouse.ContentKey(sp.SpanAttributes, output); outputKey != "" {
		output = ""
	}
	return derivedContent, derivedContent, input, inputKey, output, outputKey
}

// contentExprs are the SQL of the input and output columns for filters:
// the referenced attribute, or the stored text.
var contentExprs = map[string]string{
	"input":  `(CASE input_key WHEN '' THEN input ELSE json_extract(span_attributes, '$."' || input_key || '"') END)`,
	"output": `(CASE output_key WHEN '' THEN output ELSE json_extract(span_attributes, '$."' || output_key || '"') END)`,
}

// WriteSpans stores spans in one transaction.
func (s *Store) WriteSpans(ctx context.Context, spans []warehouse.Span) error {
	_, err := s.WriteSpansReport(ctx, spans)
	return err
}

var _ warehouse.SpanConflictWriter = (*Store)(nil)

// WriteSpansReport is WriteSpans, and reports the conflicting duplicates
// (warehouse.SpanConflictWriter): spans skipped because a span of the same
// environment, trace id, span id and start time was stored first with
// other content (spanContentHash). An identical resend is skipped
// silently, as ever.
func (s *Store) WriteSpansReport(ctx context.Context, spans []warehouse.Span) (rep warehouse.SpanWriteReport, err error) {
	defer s.writes.note(&err)
	if err := s.checkOpen("write spans"); err != nil {
		return rep, err
	}
	if len(spans) == 0 {
		return rep, nil
	}
	s.lastWrite.Store(time.Now().UnixNano())
	// Encoding needs no lock: before the transaction (or already done by
	// PrepareSpans on the caller's goroutine).
	var resEnc lastEncoding
	preps := make([]*prepared, len(spans))
	keys := make([]timedKey, len(spans))
	content := make([]int64, len(spans))
	for i := range spans {
		preps[i] = s.preparedOf(&spans[i], &resEnc)
		keys[i] = timedKey{spans[i].Timestamp, preps[i].key}
		content[i] = preps[i].content
	}
	tx, err := s.writer.BeginTx(ctx, nil)
	if err != nil {
		return rep, fmt.Errorf("write spans: begin: %w", mapErr(err))
	}
	defer tx.Rollback() //nolint:errcheck // no-op after Commit
	var seq int64
	highWater, err := s.stmts.in(ctx, tx, spansHighWater)
	if err != nil {
		return rep, fmt.Errorf("write spans: next sequence: %w", mapErr(err))
	}
	if err := highWater.QueryRowContext(ctx).Scan(&seq); err != nil {
		return rep, fmt.Errorf("write spans: next sequence: %w", mapErr(err))
	}
	fresh, err := insertKeys(ctx, tx, s.stmts, spanKeysTable, keys, content)
	if err != nil {
		return rep, fmt.Errorf("write spans: %w", mapErr(err))
	}
	if slices.Contains(fresh, false) {
		if rep.Conflicts, err = conflicts(ctx, tx, spanKeysTable, keys, content, fresh); err != nil {
			return rep, fmt.Errorf("write spans: %w", mapErr(err))
		}
	}
	rows := newRowInserter(tx, s.stmts, insertSpanSQL, spanColumns, rowsPerInsert)
	defer rows.close()
	texts := newRowInserter(tx, s.stmts, insertSpanTextSQL, 2, rowsPerInsert)
	defer texts.close()
	lists := newPostings(spanPostingTables, seq+1)
	var counts minuteCounts
	var evalCounts warehouse.EvaluationCountChanges
	changes := warehouse.SpanChanges{Traces: warehouse.TraceStatChanges{Prices: s.prices}}
	res := s.resources.begin()
	vals := s.values.begin()
	for i := range spans {
		sp, p := &spans[i], preps[i]
		if !fresh[i] {
			continue // stored by an earlier write of the same span
		}
		seq++
		resID, err := res.id(ctx, tx, p.resource)
		if err != nil {
			return rep, fmt.Errorf("write spans: span %d: resource: %w", i, mapErr(err))
		}
		if err := rows.add(ctx, seq, sp.Environment, sp.Timestamp, sp.Duration, sp.TotalTokens,
			sp.TraceID, sp.SpanID, sp.ParentSpanID, sp.TraceState, sp.SpanName, sp.SpanKind, sp.ServiceName,
			sp.ScopeName, sp.ScopeVersion, sp.StatusCode, sp.StatusMessage, sp.WorkflowName, sp.EntityName,
			sp.AgentName, sp.RequestModel, sp.ResponseModel, sp.Vendor, resID,
			p.attributes, p.prompts, p.completions, p.input, p.inputKey, p.output, p.outputKey,
			p.evaluations, p.verdicts); err != nil {
			return rep, fmt.Errorf("write spans: spans up to %d: %w", i, mapErr(err))
		}
		if p.search != "" {
			if err := texts.add(ctx, seq, p.search); err != nil {
				return rep, fmt.Errorf("write spans: search index: %w", mapErr(err))
			}
		}
		lists.add(seq, sp.Environment, sp.Timestamp, p.hashes)
		vals.add(sp.Environment, index.HourOf(sp.Timestamp), seq, p.values)
		counts.add(sp.Environment, sp.Timestamp, 1)
		evalCounts.AddSpan(sp, sp.Evaluations, 1)
		changes.AddSpan(sp, 1)
	}
	if err := rows.flush(ctx); err != nil {
		return rep, fmt.Errorf("write spans: %w", mapErr(err))
	}
	if err := texts.flush(ctx); err != nil {
		return rep, fmt.Errorf("write spans: search index: %w", mapErr(err))
	}
	if err := lists.write(ctx, tx, s.stmts); err != nil {
		return rep, fmt.Errorf("write spans: attribute index: %w", mapErr(err))
	}
	if err := vals.write(ctx, tx, s.stmts); err != nil {
		return rep, fmt.Errorf("write spans: %w", mapErr(err))
	}
	if err := counts.write(ctx, tx, s.stmts); err != nil {
		return rep, fmt.Errorf("write spans: %w", mapErr(err))
	}
	if err := writeEvaluationCounts(ctx, tx, s.stmts, &evalCounts); err != nil {
		return rep, fmt.Errorf("write spans: %w", mapErr(err))
	}
	if err := writeSpanStats(ctx, tx, s.stmts, &changes.Stats); err != nil {
		return rep, fmt.Errorf("write spans: %w", mapErr(err))
	}
	if err := writeTraceStats(ctx, tx, s.stmts, &changes.Traces); err != nil {
		return rep, fmt.Errorf("write spans: %w", mapErr(err))
	}
	if err := tx.Commit(); err != nil {
		return rep, fmt.Errorf("write spans: commit: %w", mapErr(err))
	}
	s.checkpoints.poke()
	s.merges.poke()
	res.commit()
	vals.commit()
	return rep, nil
}

// scanSpan reads a row of selectSpanColumns: the span, its sequence
// number and its size as a page counts it (warehouse.RowBytes of its
// stored texts; spanBytesSQL is the same in SQL).
func scanSpan(rows *sql.Rows) (warehouse.Span, int64, int, error) {
	var (
		sp                          warehouse.Span
		seq                         int64
		res, attrs, prompts, compls string
		evals                       string
	)
	if err := rows.Scan(&seq, &sp.Environment, &sp.Timestamp, &sp.Duration, &sp.TotalTokens, &sp.TraceID,
		&sp.SpanID, &sp.ParentSpanID, &sp.TraceState, &sp.SpanName, &sp.SpanKind, &sp.ServiceName, &sp.ScopeName,
		&sp.ScopeVersion, &sp.StatusCode, &sp.StatusMessage, &sp.WorkflowName, &sp.EntityName, &sp.AgentName,
		&sp.RequestModel, &sp.ResponseModel, &sp.Vendor, &res, &attrs, &prompts, &compls, &sp.Input, &sp.Output,
		&evals); err != nil {
		return sp, 0, 0, mapErr(err)
	}
	size := warehouse.RowBytes(res, attrs, prompts, compls, sp.Input, sp.Output, evals)
	var err error
	if sp.ResourceAttributes, err = decodeMap(res); err != nil {
		return sp, 0, 0, fmt.Errorf("span %d resource_attributes: %w", seq, err)
	}
	if sp.SpanAttributes, err = decodeMap(attrs); err != nil {
		return sp, 0, 0, fmt.Errorf("span %d span_attributes: %w", seq, err)
	}
	if prompts == derivedContent {
		// The content is derived from the attributes; a stored input or
		// output text (one no attribute holds verbatim) is the original.
		input, output := sp.Input, sp.Output
		warehouse.DeriveContent(&sp)
		if input != "" {
			sp.Input = input
		}
		if output != "" {
			sp.Output = output
		}
	} else {
		if sp.Prompts, err = decodeMap(prompts); err != nil {
			return sp, 0, 0, fmt.Errorf("span %d prompts: %w", seq, err)
		}
		if sp.Completions, err = decodeMap(compls); err != nil {
			return sp, 0, 0, fmt.Errorf("span %d completions: %w", seq, err)
		}
	}
	if evals != "" && evals != "[]" {
		if err := json.Unmarshal([]byte(evals), &sp.Evaluations); err != nil {
			return sp, 0, 0, fmt.Errorf("span %d evaluations: %w", seq, err)
		}
	}
	return sp, seq, size, nil
}

// encodeMap renders a string map as a JSON object ("{}" for none), keys
// sorted so that equal maps give equal text; HTML characters stay as they
// are and invalid UTF-8 becomes U+FFFD, as encoding/json does.
func encodeMap(m map[string]string) string {
	if len(m) == 0 {
		return "{}"
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return encodeSorted(m, keys)
}

// encodeSorted is encodeMap with m's keys given in sorted order.
func encodeSorted(m map[string]string, keys []string) string {
	if len(keys) == 0 {
		return "{}"
	}
	size := 2
	for _, k := range keys {
		size += len(k) + len(m[k]) + 6
	}
	b := make([]byte, 0, size)
	b = append(b, '{')
	for i, k := range keys {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendJSONString(b, k)
		b = append(b, ':')
		b = appendJSONString(b, m[k])
	}
	return string(append(b, '}'))
}

// appendJSONString appends s as a JSON string literal.
func appendJSONString(b []byte, s string) []byte {
	const hexDigits = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

func decodeMap(s string) (map[string]string, error) {
	m := map[string]string{}
	if s == "" || s == "{}" {
		return m, nil
	}
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		return nil, err
	}
	return m, nil
}
