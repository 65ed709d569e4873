// Package setups implements auto monitor setups: parsing and validating the
// API's requests, building the stored setup (bindings with the evaluator
// catalogue's schemas, init rules from the entity and the selector), and a
// Service that stores them, compiles them into monitors for the evaluator
// processor and moves them through their lifecycle.
package setups

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/evalcol/evalcol/internal/monitor"
)

// FieldError is a bad request naming the field at fault (HTTP 400).
type FieldError struct {
	Field, Msg string
}

func (e *FieldError) Error() string { return e.Field + ": " + e.Msg }

func fieldErrorf(field, format string, args ...any) *FieldError {
	return &FieldError{Field: field, Msg: fmt.Sprintf(format, args...)}
}

// EntityTypes are the accepted entity types, each naming what it selects.
var EntityTypes = []string{monitor.EntityWorkflow, monitor.EntityAgent, monitor.EntityEntity, monitor.EntitySpan, monitor.EntityService, monitor.EntityModel}

// Limits of one setup. They keep a setup, and a page of setups, small
// whatever a request body holds (issue: a 1 MB body once made 74 000
// bindings).
const (
	// MaxEvaluators is the number of distinct evaluators a setup binds
	// (duplicates, also under different names, are merged first).
	MaxEvaluators = 64
	// MaxSelectorRules is the number of rules of a selector (the keys of
	// its flat form).
	MaxSelectorRules = 64
	// MaxSelectorBytes is the size of the selector as sent.
	MaxSelectorBytes = 16 << 10
	// MaxEntityValueBytes and MaxExternalIDBytes bound those strings.
	MaxEntityValueBytes = 1024
	MaxExternalIDBytes  = 256
)

// EvaluatorRef is one item of a request's evaluators list.
type EvaluatorRef struct {
	// Name is the evaluator as given: a slug, one of Traceloop's names for
	// it (see ResolveEvaluator), or an evaluator_id (ours are the slugs).
	Name string
	// Slug is the catalogue slug Name resolves to; "" when it names no
	// evaluator (the binding then fails with an error message).
	Slug string
}

// Request is a validated create or update request.
type Request struct {
	// EntityType and EntityValue are both set or both empty (a setup that
	// selects by its selector alone, as Traceloop's API takes them).
	EntityType, EntityValue string
	// ExternalID is optional; without it the setup has none.
	ExternalID string
	Evaluators []EvaluatorRef
	// Rules are the selector's rules ([] when there is no selector).
	Rules []monitor.InitRule
	// Selector is the selector as given, kept for display.
	Selector json.RawMessage
	// SampleRate is in 0..1; 1 when not given.
	SampleRate float64
	// BackfillFromSec asks to evaluate stored spans since then (0: no).
	BackfillFromSec int64
	// Level is "" (spans) or "trace" (an evalcol extension: the setup's
	// evaluators run once on each matching trace, QuietPeriodSec after its
	// last span; 0 takes the default).
	Level          string
	QuietPeriodSec int64

	// fields are the top-level fields the body had.
	fields map[string]bool
}

// Has reports whether the body had the top-level field name (an update
// without entity_type keeps what the body does not mention).
func (r Request) Has(name string) bool { return r.fields[name] }

// HasEntity reports whether the request names an entity.
func (r Request) HasEntity() bool { return r.EntityType != "" }

var knownFields = map[string]bool{
	"entity_type": true, "entity_value": true, "evaluators": true, "external_id": true,
	"selector": true, "sample_rate": true, "backfill_from_timestamp_sec": true,
	"level": true, "quiet_period_sec": true,
}

// Setup levels (evalcol's extension of Traceloop's setups).
const (
	LevelSpan  = "span"
	LevelTrace = "trace"
)

// MaxQuietPeriodSec bounds quiet_period_sec.
const MaxQuietPeriodSec = 3600

// ParseRequest parses the JSON body of POST /v2/auto-monitor-setups: the
// evaluators are required, entity_type and entity_value come together or
// not at all, everything else is optional. Errors are *FieldError.
func ParseRequest(body []byte) (Request, error) {
	r, err := parse(body)
	if err != nil {
		return Request{}, err
	}
	if !r.Has("evaluators") {
		return Request{}, fieldErrorf("evaluators", "is required")
	}
	return r, nil
}

// ParseUpdate parses the JSON body of PUT /v2/auto-monitor-setups/<id>. A
// body with entity_type (and entity_value) replaces the setup, as a
// create does; a body without them, as Traceloop's
// UpdateAutoMonitorSetupInput ({evaluators, selector}), changes only the
// fields it has and must have at least one.
func ParseUpdate(body []byte) (Request, error) {
	r, err := parse(body)
	if err != nil {
		return Request{}, err
	}
	if r.HasEntity() && !r.Has("evaluators") {
		return Request{}, fieldErrorf("evaluators", "is required when entity_type is given (the setup is replaced); leave entity_type out to change only some fields")
	}
	if len(r.fields) == 0 {
		return Request{}, fieldErrorf("body", "nothing to update: send evaluators, selector, external_id, sample_rate or backfill_from_timestamp_sec")
	}
	return r, nil
}

func parse(body []byte) (Request, error) {
	var raw map[string]json.RawMessage
	dec := json.NewDecoder(bytes.NewReader(body))
	if len(bytes.TrimSpace(body)) == 0 {
		return Request{}, fieldErrorf("body", "request body is empty: send a JSON object")
	}
	if err := dec.Decode(&raw); err != nil || raw == nil {
		return Request{}, fieldErrorf("body", "request body must be a JSON object")
	}
	if dec.More() {
		return Request{}, fieldErrorf("body", "request body has data after the JSON object")
	}
	names := make([]string, 0, len(raw))
	for k := range raw {
		names = append(names, k)
	}
	sort.Strings(names)
	r := Request{fields: map[string]bool{}}
	for _, k := range names {
		if !knownFields[k] {
			return Request{}, fieldErrorf("body", "unknown field %q (known: backfill_from_timestamp_sec, entity_type, entity_value, evaluators, external_id, level, quiet_period_sec, sample_rate, selector)", k)
		}
		if string(raw[k]) != "null" {
			r.fields[k] = true
		}
	}
	var err error
	if r.Has("entity_type") || r.Has("entity_value") {
		if r.EntityType, err = requiredString(raw, "entity_type", 0); err != nil {
			return Request{}, err
		}
		if !contains(EntityTypes, r.EntityType) {
			return Request{}, fieldErrorf("entity_type", "%q is not one of %s", r.EntityType, strings.Join(EntityTypes, ", "))
		}
		if r.EntityValue, err = requiredString(raw, "entity_value", MaxEntityValueBytes); err != nil {
			return Request{}, err
		}
	}
	if r.Has("external_id") {
		if r.ExternalID, err = requiredString(raw, "external_id", MaxExternalIDBytes); err != nil {
			return Request{}, err
		}
	}
	if r.Has("evaluators") {
		if r.Evaluators, err = parseEvaluators(raw["evaluators"]); err != nil {
			return Request{}, err
		}
	}
	if r.Rules, err = parseSelector(raw["selector"]); err != nil {
		return Request{}, err
	}
	if r.Has("selector") {
		r.Selector = raw["selector"]
	}
	r.SampleRate = 1
	if r.Has("sample_rate") {
		if err := json.Unmarshal(raw["sample_rate"], &r.SampleRate); err != nil || r.SampleRate < 0 || r.SampleRate > 1 || math.IsNaN(r.SampleRate) {
			return Request{}, fieldErrorf("sample_rate", "must be a number between 0 and 1")
		}
	}
	if r.Has("backfill_from_timestamp_sec") {
		if err := json.Unmarshal(raw["backfill_from_timestamp_sec"], &r.BackfillFromSec); err != nil || r.BackfillFromSec <= 0 {
			return Request{}, fieldErrorf("backfill_from_timestamp_sec", "must be a positive integer (Unix seconds)")
		}
	}
	if r.Has("level") {
		if err := json.Unmarshal(raw["level"], &r.Level); err != nil || (r.Level != LevelSpan && r.Level != LevelTrace) {
			return Request{}, fieldErrorf("level", "must be %q (each matching span, the default) or %q (each matching trace, once complete)", LevelSpan, LevelTrace)
		}
		if r.Level == LevelSpan {
			r.Level = ""
		}
	}
	if r.Has("quiet_period_sec") {
		if err := json.Unmarshal(raw["quiet_period_sec"], &r.QuietPeriodSec); err != nil || r.QuietPeriodSec < 1 || r.QuietPeriodSec > MaxQuietPeriodSec {
			return Request{}, fieldErrorf("quiet_period_sec", "must be an integer between 1 and %d (seconds)", MaxQuietPeriodSec)
		}
		if r.Level != LevelTrace {
			return Request{}, fieldErrorf("quiet_period_sec", "only a setup of level %q waits for a quiet period", LevelTrace)
		}
	}
	if r.Level == LevelTrace && r.BackfillFromSec > 0 {
		return Request{}, fieldErrorf("backfill_from_timestamp_sec", "a setup of level %q is not backfilled (yet): its traces are evaluated as they arrive", LevelTrace)
	}
	return r, nil
}

// requiredString decodes a non-blank string field of at most maxBytes
// bytes (0: no limit).
func requiredString(raw map[string]json.RawMessage, name string, maxBytes int) (string, error) {
	v, ok := raw[name]
	if !ok || string(v) == "null" {
		return "", fieldErrorf(name, "is required")
	}
	var s string
	if err := json.Unmarshal(v, &s); err != nil {
		return "", fieldErrorf(name, "must be a string")
	}
	if strings.TrimSpace(s) == "" {
		return "", fieldErrorf(name, "must not be empty")
	}
	if maxBytes > 0 && len(s) > maxBytes {
		return "", fieldErrorf(name, "is %d bytes long; the limit is %d bytes", len(s), maxBytes)
	}
	return s, nil
}

// evaluatorObject is the object form of an evaluators item: Traceloop's
// clients send {"evaluator_type": ...} or {"evaluator_id": ...} (never
// both); {"slug": ...} is the form of Traceloop's evaluator configs.
type evaluatorObject struct {
	EvaluatorType *string `json:"evaluator_type"`
	EvaluatorID   *string `json:"evaluator_id"`
	Slug          *string `json:"slug"`
}

// maxEvaluatorNameBytes bounds one evaluator name; no real name comes near.
const maxEvaluatorNameBytes = 256

func parseEvaluators(v json.RawMessage) ([]EvaluatorRef, error) {
	var items []json.RawMessage
	if err := json.Unmarshal(v, &items); err != nil {
		return nil, fieldErrorf("evaluators", "must be an array of evaluator slugs or {evaluator_type | evaluator_id} objects")
	}
	if len(items) == 0 {
		return nil, fieldErrorf("evaluators", "must list at least one evaluator")
	}
	refs := make([]EvaluatorRef, 0, min(len(items), MaxEvaluators))
	seen := make(map[string]bool, min(len(items), MaxEvaluators))
	for i, it := range items {
		field := "evaluators[" + strconv.Itoa(i) + "]"
		name, err := evaluatorName(field, it)
		if err != nil {
			return nil, err
		}
		ref := EvaluatorRef{Name: name}
		ref.Slug, _ = ResolveEvaluator(name)
		key := ref.Slug
		if key == "" {
			key = "?" + name // unknown names merge with themselves only
		}
		if seen[key] {
			continue
		}
		seen[key] = true
		if len(refs) == MaxEvaluators {
			return nil, fieldErrorf("evaluators", "a setup binds at most %d distinct evaluators (duplicates merged); this request lists more", MaxEvaluators)
		}
		refs = append(refs, ref)
	}
	return refs, nil
}

// evaluatorName returns the name one evaluators item gives.
func evaluatorName(field string, it json.RawMessage) (string, error) {
	var name string
	if err := json.Unmarshal(it, &name); err != nil {
		var obj evaluatorObject
		dec := json.NewDecoder(bytes.NewReader(it))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&obj); err != nil {
			return "", fieldErrorf(field, "must be a slug string or an object with evaluator_type or evaluator_id")
		}
		given := 0
		for _, p := range []*string{obj.EvaluatorType, obj.EvaluatorID, obj.Slug} {
			if p != nil {
				given++
				name = *p
			}
		}
		switch {
		case given == 0:
			return "", fieldErrorf(field, "must be a slug string or an object with evaluator_type or evaluator_id")
		case given > 1:
			return "", fieldErrorf(field, "give either evaluator_type or evaluator_id, not both")
		}
	}
	if strings.TrimSpace(name) == "" {
		return "", fieldErrorf(field, "must not be empty")
	}
	if len(name) > maxEvaluatorNameBytes {
		return "", fieldErrorf(field, "is %d bytes long; the limit is %d bytes", len(name), maxEvaluatorNameBytes)
	}
	return name, nil
}

// selectorRule is one rule of the array form of a selector.
type selectorRule struct {
	Key       *string          `json:"key"`
	Source    string           `json:"source"`
	Operator  string           `json:"operator"`
	Op        string           `json:"op"`
	Value     *json.RawMessage `json:"value"`
	Values    []any            `json:"values"`
	ValueType string           `json:"value_type"`
}

var operators = []string{
	monitor.OpEquals, monitor.OpNotEquals, monitor.OpGreaterThan, monitor.OpGreaterThanOrEqual, monitor.OpLessThan,
	monitor.OpLessThanOrEqual, monitor.OpContains, monitor.OpNotContains, monitor.OpStartsWith, monitor.OpIn, monitor.OpNotIn,
	monitor.OpExists, monitor.OpNotExists,
}

var sources = []string{
	monitor.SourceSpanAttributes, monitor.SourceResourceAttributes, monitor.SourceSpanName, monitor.SourceSpanKind,
	monitor.SourceScopeName, monitor.SourceServiceName,
}

// parseSelector turns a selector into init rules. A selector is either a
// flat object {attribute: value} (the AND of span attribute equalities) or
// an array of rules {key, source, operator, value | values, value_type}.
func parseSelector(v json.RawMessage) ([]monitor.InitRule, error) {
	v = bytes.TrimSpace(v)
	if len(v) == 0 || string(v) == "null" {
		return nil, nil
	}
	if len(v) > MaxSelectorBytes {
		return nil, fieldErrorf("selector", "is %d bytes long; the limit is %d bytes", len(v), MaxSelectorBytes)
	}
	switch v[0] {
	case '{':
		var flat map[string]any
		if err := json.Unmarshal(v, &flat); err != nil {
			return nil, fieldErrorf("selector", "must be an object {attribute: value} or an array of rules")
		}
		if len(flat) > MaxSelectorRules {
			return nil, fieldErrorf("selector", "has %d keys; the limit is %d rules", len(flat), MaxSelectorRules)
		}
		keys := make([]string, 0, len(flat))
		for k := range flat {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		rules := make([]monitor.InitRule, 0, len(keys))
		for _, k := range keys {
			text, vt, ok := scalar(flat[k])
			if !ok || k == "" {
				return nil, fieldErrorf("selector."+k, "must be a string, number or boolean")
			}
			rules = append(rules, monitor.InitRule{Op: monitor.OpEquals, Source: monitor.SourceSpanAttributes, Key: k, Value: text, ValueType: vt})
		}
		return rules, nil
	case '[':
		var items []json.RawMessage
		if err := json.Unmarshal(v, &items); err != nil {
			return nil, fieldErrorf("selector", "must be an object {attribute: value} or an array of rules")
		}
		if len(items) > MaxSelectorRules {
			return nil, fieldErrorf("selector", "has %d rules; the limit is %d rules", len(items), MaxSelectorRules)
		}
		rules := make([]monitor.InitRule, len(items))
		for i, it := range items {
			r, err := parseRule("selector["+strconv.Itoa(i)+"]", it)
			if err != nil {
				return nil, err
			}
			rules[i] = r
		}
		return rules, nil
	default:
		return nil, fieldErrorf("selector", "must be an object {attribute: value} or an array of rules")
	}
}

func parseRule(field string, raw json.RawMessage) (monitor.InitRule, error) {
	var sr selectorRule
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&sr); err != nil {
		return monitor.InitRule{}, fieldErrorf(field, "must be a rule {key, source, operator, value | values, value_type}: %v", err)
	}
	op := sr.Operator
	if op == "" {
		op = sr.Op
	}
	if op == "" {
		op = monitor.OpEquals // Traceloop's selector rules default to equals
	}
	if !contains(operators, op) {
		return monitor.InitRule{}, fieldErrorf(field+".operator", "%q is not one of %s", op, strings.Join(operators, ", "))
	}
	source := sr.Source
	if source == "" {
		source = monitor.SourceSpanAttributes
	}
	if !contains(sources, source) {
		return monitor.InitRule{}, fieldErrorf(field+".source", "%q is not one of %s", source, strings.Join(sources, ", "))
	}
	r := monitor.InitRule{Op: op, Source: source, ValueType: sr.ValueType}
	if source == monitor.SourceSpanAttributes || source == monitor.SourceResourceAttributes {
		if sr.Key == nil || *sr.Key == "" {
			return monitor.InitRule{}, fieldErrorf(field+".key", "is required for source %s", source)
		}
		r.Key = *sr.Key
	}
	switch {
	case op == monitor.OpExists || op == monitor.OpNotExists:
		if sr.Value != nil || sr.Values != nil {
			return monitor.InitRule{}, fieldErrorf(field+".value", "operator %s takes no value", op)
		}
	case op == monitor.OpIn || op == monitor.OpNotIn:
		vals := sr.Values
		if vals == nil && sr.Value != nil {
			if err := json.Unmarshal(*sr.Value, &vals); err != nil {
				return monitor.InitRule{}, fieldErrorf(field+".values", "operator %s takes an array of values", op)
			}
		}
		if len(vals) == 0 {
			return monitor.InitRule{}, fieldErrorf(field+".values", "operator %s takes a non-empty array of values", op)
		}
		texts := make([]string, len(vals))
		for i, v := range vals {
			text, vt, ok := scalar(v)
			if !ok {
				return monitor.InitRule{}, fieldErrorf(fmt.Sprintf("%s.values[%d]", field, i), "must be a string, number or boolean")
			}
			texts[i] = text
			if r.ValueType == "" {
				r.ValueType = vt
			}
		}
		enc, _ := json.Marshal(texts)
		r.Value = string(enc)
	default:
		if sr.Value == nil {
			return monitor.InitRule{}, fieldErrorf(field+".value", "is required for operator %s", op)
		}
		var v any
		if err := json.Unmarshal(*sr.Value, &v); err != nil {
			return monitor.InitRule{}, fieldErrorf(field+".value", "is not valid JSON")
		}
		text, vt, ok := scalar(v)
		if !ok {
			return monitor.InitRule{}, fieldErrorf(field+".value", "must be a string, number or boolean for operator %s", op)
		}
		r.Value = text
		if r.ValueType == "" {
			r.ValueType = vt
		}
	}
	if r.ValueType == "" {
		r.ValueType = monitor.ValueTypeString
	}
	if !contains([]string{monitor.ValueTypeString, monitor.ValueTypeNumber, monitor.ValueTypeBoolean}, r.ValueType) {
		return monitor.InitRule{}, fieldErrorf(field+".value_type", "%q is not one of string, number, boolean", r.ValueType)
	}
	// Let the OTTL translation check operands (numbers for numeric
	// operators, ...) now, so that the error names the rule.
	if _, err := monitor.ConditionFromRules([]monitor.InitRule{r}); err != nil {
		msg := err.Error()
		if _, after, ok := strings.Cut(msg, ": "); ok {
			msg = after
		}
		return monitor.InitRule{}, fieldErrorf(field, "%s", msg)
	}
	return r, nil
}

// scalar renders a decoded JSON scalar as text with its value type.
func scalar(v any) (text, valueType string, ok bool) {
	switch x := v.(type) {
	case string:
		return x, monitor.ValueTypeString, true
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64), monitor.ValueTypeNumber, true
	case bool:
		return strconv.FormatBool(x), monitor.ValueTypeBoolean, true
	}
	return "", "", false
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
