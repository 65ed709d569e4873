package setups

import (
	"fmt"
	"github.com/evalcol/evalcol/extension/evalapiextension/internal/customevaluators"
	"github.com/evalcol/evalcol/internal/judge"
	"strconv"
	"strings"
	"time"

	"github.com/evalcol/evalcol/evaluators"
	"github.com/evalcol/evalcol/internal/monitor"
	"github.com/evalcol/evalcol/internal/randid"
	"github.com/evalcol/evalcol/internal/tenant"
	"github.com/evalcol/evalcol/internal/warehouse"
)

// Setup statuses: pending on create (partial when some evaluators are
// unknown, failed when all are), waiting_for_spans once a collector has
// loaded it, in_progress after it evaluated its first span.
const (
	StatusPending         = "pending"
	StatusWaitingForSpans = "waiting_for_spans"
	StatusInProgress      = "in_progress"
	StatusPartial         = "partial"
	StatusFailed          = "failed"
)

// Binding statuses.
const (
	BindingPending = "pending"
	BindingActive  = "active"
	BindingFailed  = "failed"
)

// entityKeys names, per entity type, the init rule that displays the entity
// selection (the monitor's condition comes from monitor.EntityCondition).
var entityKeys = map[string]monitor.InitRule{
	monitor.EntityWorkflow: {Source: monitor.SourceSpanAttributes, Key: "traceloop.workflow.name"},
	monitor.EntityAgent:    {Source: monitor.SourceSpanAttributes, Key: "gen_ai.agent.name"},
	monitor.EntityEntity:   {Source: monitor.SourceSpanAttributes, Key: "traceloop.entity.name"},
	monitor.EntitySpan:     {Source: monitor.SourceSpanName},
	monitor.EntityService:  {Source: monitor.SourceServiceName},
	monitor.EntityModel:    {Source: monitor.SourceSpanAttributes, Key: "gen_ai.request.model"},
}

// build makes the setup a request describes for tenant t, keeping id and
// creation time of prev when it replaces one (prev nil on create). custom
// holds the custom evaluators the request names, by the name it uses.
func build(r Request, t tenant.Tenant, now time.Time, prev *warehouse.MonitorSetup, custom map[string]customevaluators.Version) warehouse.MonitorSetup {
	s := warehouse.MonitorSetup{
		ID: randid.New(), ExternalID: r.ExternalID, EntityType: r.EntityType, EntityValue: r.EntityValue,
		OrgID: t.OrganizationID, ProjectID: t.ProjectID, EnvProjectID: envProjectID(t),
		Environment: t.Environment, CreatedAt: now, UpdatedAt: now, Selector: r.Selector,
		SampleRate: r.SampleRate, Version: 1, Level: r.Level,
	}
	if r.Level == LevelTrace {
		s.QuietPeriodSec = r.QuietPeriodSec
	}
	if prev != nil {
		s.ID, s.CreatedAt, s.Version = prev.ID, prev.CreatedAt, prev.Version+1
	}
	failed := 0
	for i, ref := range r.Evaluators {
		b := warehouse.SetupBinding{
			BindingID:     s.ID + "-" + strconv.Itoa(i),
			EvaluatorID:   ref.Name,
			EvaluatorType: ref.Name,
			Status:        BindingPending,
			InputSchema:   []warehouse.SchemaItem{},
			OutputSchema:  []warehouse.SchemaItem{},
		}
		if def, ok := evaluators.Lookup(ref.Slug); ok {
			// The slug is canonical, whatever name the request used.
			b.EvaluatorID, b.EvaluatorType = def.Slug, def.Slug
			b.InputSchema = schema(def.Inputs)
			b.OutputSchema = schema(def.Outputs)
		} else if v, ok := custom[ref.Name]; ok {
			// A custom evaluator: its id (ce_...) marks the binding as
			// one, its slug names it when the work runs (the latest
			// version then).
			b.EvaluatorID, b.EvaluatorType = v.ID, v.Slug
			b.InputSchema = judgeSchema(v.Definition.InputSchema)
			b.OutputSchema = judgeSchema(v.Definition.OutputSchema)
		} else {
			b.Status = BindingFailed
			b.ErrorMessage = fmt.Sprintf("unknown evaluator %q: use one of the slugs of GET /v2/evaluators (%s), one of Traceloop's names for them, or a custom evaluator of this project", ref.Name, strings.Join(evaluators.Slugs(), ", "))
			b.ProcessedAt = &now
			failed++
		}
		s.Evaluators = append(s.Evaluators, b)
	}
	switch {
	case failed == len(s.Evaluators):
		s.Status = StatusFailed
	case failed > 0:
		s.Status = StatusPartial
	default:
		s.Status = StatusPending
	}
	s.InitRules = []warehouse.SetupInitRule{}
	if r.HasEntity() {
		entity := entityKeys[r.EntityType]
		entity.Op, entity.Value, entity.ValueType = monitor.OpEquals, r.EntityValue, monitor.ValueTypeString
		s.InitRules = append(s.InitRules, toStored(entity))
	}
	for _, rule := range r.Rules {
		s.InitRules = append(s.InitRules, toStored(rule))
	}
	if r.BackfillFromSec > 0 {
		s.Backfill = &warehouse.BackfillState{FromTimestampSec: r.BackfillFromSec, ToTimestampSec: now.Unix(), Status: "pending"}
	}
	return s
}

func envProjectID(t tenant.Tenant) string {
	if t.ProjectID == "" {
		return t.Environment
	}
	return t.ProjectID + "/" + t.Environment
}

func schema(fs []evaluators.Field) []warehouse.SchemaItem {
	out := make([]warehouse.SchemaItem, len(fs))
	for i, f := range fs {
		out[i] = warehouse.SchemaItem{Name: f.Name, Type: string(f.Type), Description: f.Description, Label: f.Label, EnumValues: f.EnumValues}
	}
	return out
}

func judgeSchema(fs []judge.Field) []warehouse.SchemaItem {
	out := make([]warehouse.SchemaItem, len(fs))
	for i, f := range fs {
		out[i] = warehouse.SchemaItem{Name: f.Name, Type: f.Type, Description: f.Description, EnumValues: f.EnumValues}
	}
	return out
}

func toStored(r monitor.InitRule) warehouse.SetupInitRule {
	return warehouse.SetupInitRule{Op: r.Op, Source: r.Source, Key: r.Key, Value: r.Value, ValueType: r.ValueType}
}

func fromStored(r warehouse.SetupInitRule) monitor.InitRule {
	return monitor.InitRule{Op: r.Op, Source: r.Source, Key: r.Key, Value: r.Value, ValueType: r.ValueType}
}

// requestOf returns the request that builds setup s again: the base of
// an update that changes only some fields.
func requestOf(s warehouse.MonitorSetup) Request {
	r := Request{
		EntityType: s.EntityType, EntityValue: s.EntityValue, ExternalID: s.ExternalID,
		Selector: s.Selector, SampleRate: s.SampleRate, fields: map[string]bool{},
		Level: s.Level, QuietPeriodSec: s.QuietPeriodSec,
	}
	for _, b := range s.Evaluators {
		ref := EvaluatorRef{Name: b.EvaluatorType}
		ref.Slug, _ = ResolveEvaluator(b.EvaluatorType)
		r.Evaluators = append(r.Evaluators, ref)
	}
	for _, rule := range selectorRules(s) {
		r.Rules = append(r.Rules, fromStored(rule))
	}
	return r
}

// merge returns prev's request with the fields r has replaced.
func merge(prev warehouse.MonitorSetup, r Request) Request {
	m := requestOf(prev)
	if r.Has("evaluators") {
		m.Evaluators = r.Evaluators
	}
	if r.Has("selector") {
		m.Rules, m.Selector = r.Rules, r.Selector
	}
	if r.Has("external_id") {
		m.ExternalID = r.ExternalID
	}
	if r.Has("sample_rate") {
		m.SampleRate = r.SampleRate
	}
	if r.Has("level") {
		m.Level, m.QuietPeriodSec = r.Level, 0
	}
	if r.Has("quiet_period_sec") {
		m.QuietPeriodSec = r.QuietPeriodSec
	}
	m.BackfillFromSec = r.BackfillFromSec
	return m
}

// selectorRules returns the init rules of a setup that come from its
// selector: all of them but the entity rule, which comes first when the
// setup has an entity.
func selectorRules(s warehouse.MonitorSetup) []warehouse.SetupInitRule {
	if s.EntityType != "" && len(s.InitRules) > 0 {
		return s.InitRules[1:]
	}
	return s.InitRules
}

// spec returns the monitor spec of a stored setup: its valid bindings, and
// the condition environment AND entity AND selector rules. The entity rule
// (init_rules[0], when the setup has an entity) is applied through
// monitor.EntityCondition, which knows each entity type's attributes.
func spec(s warehouse.MonitorSetup) (monitor.Spec, error) {
	var rules []monitor.InitRule
	for _, r := range selectorRules(s) {
		rules = append(rules, fromStored(r))
	}
	cond, sel, err := monitor.SetupCondition(s.Environment, s.EntityType, s.EntityValue, rules)
	if err != nil {
		return monitor.Spec{}, err
	}
	name := s.ExternalID
	if name == "" {
		name = s.ID
	}
	sp := monitor.Spec{ID: s.ID, Name: name, Condition: cond, SampleRate: s.SampleRate, Selection: sel,
		Trace: s.Level == LevelTrace, QuietPeriod: time.Duration(s.QuietPeriodSec) * time.Second}
	for _, b := range s.Evaluators {
		if b.Status != BindingFailed {
			sp.Evaluators = append(sp.Evaluators, monitor.EvaluatorSpec{Slug: b.EvaluatorType, Custom: customevaluators.IsID(b.EvaluatorID)})
		}
	}
	return sp, nil
}
