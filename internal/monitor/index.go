package monitor

import (
	"github.com/evalcol/evalcol/internal/tenant"
	"slices"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"
)

// Selection is what an auto monitor setup selects, in a form an Index can
// look up: every span the monitor's condition matches has its resource in
// Environment, has the entity EntityType = EntityValue (see
// EntityCondition), and satisfies every Equals. The condition still
// decides; a Selection only lets the index skip monitors that cannot
// match.
type Selection struct {
	Environment string
	// EntityType and EntityValue are empty for a setup without entity
	// (selected by its selector rules alone).
	EntityType  string
	EntityValue string
	// Equals are selector rules of the form String(path) == Value.
	Equals []Equality
}

// Equality is a string-equality selector rule: Source and Key as in
// InitRule (span_attributes, resource_attributes, span_name, scope_name or
// service_name), and the value.
type Equality struct {
	Source, Key, Value string
}

// EqualityOf returns the Equality of an init rule when the rule is a
// string equality on a source the Index can look up.
func EqualityOf(r InitRule) (Equality, bool) {
	if r.Op != OpEquals || (r.ValueType != "" && r.ValueType != ValueTypeString) {
		return Equality{}, false
	}
	switch r.Source {
	case "", SourceSpanAttributes:
		return Equality{Source: SourceSpanAttributes, Key: r.Key, Value: r.Value}, r.Key != ""
	case SourceResourceAttributes:
		return Equality{Source: SourceResourceAttributes, Key: r.Key, Value: r.Value}, r.Key != ""
	case SourceServiceName:
		return Equality{Source: SourceResourceAttributes, Key: "service.name", Value: r.Value}, true
	case SourceSpanName, SourceScopeName:
		return Equality{Source: r.Source, Value: r.Value}, true
	}
	return Equality{}, false
}

// SetupCondition returns the OTTL condition of an auto monitor setup: the
// spans whose resource is in environment env (deployment.environment.name,
// or deployment.environment when the resource has no
// deployment.environment.name), of the entity entityType = entityValue
// (EntityCondition; no entity when entityType is ""), satisfying every rule
// (ConditionFromRules). It also returns the Selection that lets an Index
// find the monitor.
func SetupCondition(env, entityType, entityValue string, rules []InitRule) (string, *Selection, error) {
	entity := ""
	if entityType != "" {
		var err error
		if entity, err = EntityCondition(entityType, entityValue); err != nil {
			return "", nil, err
		}
	}
	selector, err := ConditionFromRules(rules)
	if err != nil {
		return "", nil, err
	}
	e := quote(env)
	// tenant.EnvironmentOf in OTTL: the name when it is a non-empty
	// string, else the legacy name when the name is absent or empty.
	name, legacy := `resource.attributes["`+tenant.EnvironmentAttribute+`"]`, `resource.attributes["`+tenant.LegacyEnvironmentAttribute+`"]`
	cond := `(` + name + ` == ` + e + ` or ((` + name + ` == nil or ` + name + ` == "") and ` + legacy + ` == ` + e + `))`
	if entity != "" {
		cond += ` and (` + entity + `)`
	}
	if selector != "" {
		cond += " and " + selector
	}
	sel := &Selection{Environment: env, EntityType: entityType, EntityValue: entityValue}
	for _, r := range rules {
		if eq, ok := EqualityOf(r); ok {
			sel.Equals = append(sel.Equals, eq)
		}
	}
	return cond, sel, nil
}

// The span attributes an entity type reads (see EntityCondition).
const (
	attrWorkflow = "traceloop.workflow.name"
	attrEntity   = "traceloop.entity.name"
	attrAgent    = "gen_ai.agent.name"
)

// The model attributes, in the order of EntityCondition.
const (
	attrModel0 = "gen_ai.request.model"
	attrModel1 = "gen_ai.response.model"
	attrModel2 = "llm.request.model"
	attrModel3 = "llm.response.model"
	attrModel4 = "llm.model_name"
)

var modelAttributes = [...]string{attrModel0, attrModel1, attrModel2, attrModel3, attrModel4}

// Index holds a snapshot of monitors and finds, for a span, the few whose
// condition can match it, so that matching costs the same whatever the
// number of monitors selecting other environments, entities or selector
// values. Monitors without a Selection (static monitors with arbitrary
// conditions) are candidates for every span. An Index is immutable and
// safe for concurrent use.
type Index struct {
	monitors []*Monitor
	// always are the positions of the monitors without a Selection.
	always []int
	envs   map[string]*envIndex
}

// envIndex are the monitors of one environment by entity value: one map
// lookup per distinct value a span carries serves every entity type.
type envIndex struct {
	values map[string]*entityBuckets
	// prints has the fingerprint bit of every key of values: most values
	// a span carries are no setup's, and a fingerprint test is cheaper
	// than a map lookup.
	prints fingerprints
	// used has a bit per entity type that has monitors.
	used uint8
	// noEntity are the monitors of setups without entity (selected by
	// their selector rules alone).
	noEntity *bucket
}

// lookup returns the monitors whose entity value is value.
func (e *envIndex) lookup(value string) *entityBuckets {
	if !e.prints.has(value) {
		return nil
	}
	return e.values[value]
}

// fingerprints is a 65 536-bit set of string fingerprints (8 KiB, cache
// resident): a clear bit proves a string is not in the set.
type fingerprints [1 << 10]uint64

// fingerprint mixes a string's length and three of its bytes: constant
// time whatever the length.
func fingerprint(s string) uint32 {
	n := uint32(len(s))
	h := n * 0x9e3779b1
	if n > 0 {
		h ^= uint32(s[0])<<8 ^ uint32(s[n-1])<<16 ^ uint32(s[n/2])*0x85ebca6b
	}
	h ^= h >> 15
	h *= 0x2c1b3c6d
	return h >> 16
}

func (f *fingerprints) add(s string) {
	p := fingerprint(s)
	f[p>>6] |= 1 << (p & 63)
}

func (f *fingerprints) has(s string) bool {
	p := fingerprint(s)
	return f[p>>6]&(1<<(p&63)) != 0
}

// entityBuckets are the monitors of one environment whose entity value is
// one string, per entity type.
type entityBuckets [numEntityTypes]*bucket

// The entity types, as positions in entityBuckets and bits of used.
const (
	entWorkflow = iota
	entAgent
	entEntity
	entSpan
	entService
	entModel
	numEntityTypes
)

var entityTypeIndex = map[string]int{
	EntityWorkflow: entWorkflow, EntityAgent: entAgent, EntityEntity: entEntity,
	EntitySpan: entSpan, EntityService: entService, EntityModel: entModel,
}

// bucket are the monitors of one environment and entity: those without an
// equality rule, and the others by the value of their first equality's
// path.
type bucket struct {
	rest   []int
	byPath []pathIndex
}

type pathIndex struct {
	source, key string
	byValue     map[string][]int
	all         []int
}

// NewIndex indexes ms; the monitors keep their order (Monitors, and the
// positions Candidates returns).
func NewIndex(ms []*Monitor) *Index {
	x := &Index{monitors: ms, envs: map[string]*envIndex{}}
	for i, m := range ms {
		sel := m.selection
		et, ok := -1, false
		if sel != nil {
			et, ok = entityTypeIndex[sel.EntityType]
			ok = ok || sel.EntityType == ""
		}
		if !ok {
			x.always = append(x.always, i)
			continue
		}
		env := x.envs[sel.Environment]
		if env == nil {
			env = &envIndex{values: map[string]*entityBuckets{}}
			x.envs[sel.Environment] = env
		}
		if sel.EntityType == "" {
			if env.noEntity == nil {
				env.noEntity = &bucket{}
			}
			env.noEntity.add(i, sel.Equals)
			continue
		}
		env.used |= 1 << et
		eb := env.values[sel.EntityValue]
		if eb == nil {
			eb = &entityBuckets{}
			env.values[sel.EntityValue] = eb
			env.prints.add(sel.EntityValue)
		}
		if eb[et] == nil {
			eb[et] = &bucket{}
		}
		eb[et].add(i, sel.Equals)
	}
	return x
}

func (b *bucket) add(i int, eqs []Equality) {
	if len(eqs) == 0 {
		b.rest = append(b.rest, i)
		return
	}
	eq := eqs[0]
	for j := range b.byPath {
		p := &b.byPath[j]
		if p.source == eq.Source && p.key == eq.Key {
			p.byValue[eq.Value] = append(p.byValue[eq.Value], i)
			p.all = append(p.all, i)
			return
		}
	}
	b.byPath = append(b.byPath, pathIndex{source: eq.Source, key: eq.Key, byValue: map[string][]int{eq.Value: {i}}, all: []int{i}})
}

// Monitors returns the indexed monitors in order; the slice must not be
// modified.
func (x *Index) Monitors() []*Monitor {
	if x == nil {
		return nil
	}
	return x.monitors
}

// Len is the number of monitors.
func (x *Index) Len() int {
	if x == nil {
		return 0
	}
	return len(x.monitors)
}

// ResourceCandidates finds candidates among the spans of one resource.
type ResourceCandidates struct {
	x        *Index
	resource pcommon.Map
	// envs are the environment indexes the resource can be in (at most
	// two: deployment.environment.name, else deployment.environment), and
	// the monitors of each selecting the resource's service.
	envs    [2]*envIndex
	service [2]*bucket
	// ents is scratch space for the spans' entity values; its has bits
	// say which are set, so it is never cleared.
	ents spanEntities
}

// Resource prepares candidate lookups for the spans of a resource.
func (x *Index) Resource(resource pcommon.Map) ResourceCandidates {
	rc := ResourceCandidates{x: x, resource: resource}
	if x == nil || len(x.envs) == 0 {
		return rc
	}
	// The resource's environment, decided as everywhere else.
	if e := x.envs[tenant.EnvironmentOf(resource)]; e != nil {
		rc.envs[0] = e
	}
	if v, ok := resource.Get("service.name"); ok && v.Type() == pcommon.ValueTypeStr {
		for i, env := range rc.envs {
			if env != nil && env.used&(1<<entService) != 0 {
				if eb := env.lookup(v.Str()); eb != nil {
					rc.service[i] = eb[entService]
				}
			}
		}
	}
	return rc
}

// spanEntities are the string values of the entity attributes of a span,
// read in one pass over its attributes.
type spanEntities struct {
	workflow, entity, agent string
	models                  [len(modelAttributes)]string
	has                     uint16 // bit i: value i present (0 workflow, 1 entity, 2 agent, 3+ models)
}

// read fills e from the span attributes the entity types in used need;
// values that are not strings are never equal to a string literal, so they
// are left out. One or two keys are looked up, more are read in one pass.
func (e *spanEntities) read(attrs pcommon.Map, used uint8) {
	if used&(1<<entModel|1<<entAgent) == 0 {
		if used&(1<<entWorkflow) != 0 {
			if v, ok := attrs.Get(attrWorkflow); ok && v.Type() == pcommon.ValueTypeStr {
				e.workflow, e.has = v.Str(), e.has|1
			}
		}
		if used&(1<<entEntity) != 0 {
			if v, ok := attrs.Get(attrEntity); ok && v.Type() == pcommon.ValueTypeStr {
				e.entity, e.has = v.Str(), e.has|2
			}
		}
		return
	}
	attrs.Range(func(k string, v pcommon.Value) bool {
		var bit uint16
		var dst *string
		switch k {
		case attrWorkflow:
			bit, dst = 1, &e.workflow
		case attrEntity:
			bit, dst = 2, &e.entity
		case attrAgent:
			bit, dst = 4, &e.agent
		case attrModel0:
			bit, dst = 8<<0, &e.models[0]
		case attrModel1:
			bit, dst = 8<<1, &e.models[1]
		case attrModel2:
			bit, dst = 8<<2, &e.models[2]
		case attrModel3:
			bit, dst = 8<<3, &e.models[3]
		case attrModel4:
			bit, dst = 8<<4, &e.models[4]
		default:
			return true
		}
		if v.Type() == pcommon.ValueTypeStr {
			*dst, e.has = v.Str(), e.has|bit
		}
		return true
	})
}

// Candidates appends to out the positions (in Monitors) of the monitors
// whose condition may match span, in increasing order without repeats,
// and returns it. Every monitor whose condition matches the span is among
// them.
func (rc *ResourceCandidates) Candidates(span ptrace.Span, scope pcommon.InstrumentationScope, out []int) []int {
	out = out[:0]
	if rc.x == nil {
		return out
	}
	out = append(out, rc.x.always...)
	if rc.envs[0] == nil {
		return out
	}
	ents := &rc.ents
	ents.has = 0
	read := false
	for i := 0; i < len(rc.envs) && rc.envs[i] != nil; i++ {
		env := rc.envs[i]
		if env.used&(1<<entWorkflow|1<<entAgent|1<<entEntity|1<<entModel) != 0 && !read {
			ents.read(span.Attributes(), env.used)
			read = true
		}
		if env.used&(1<<entWorkflow) != 0 && ents.has&1 != 0 {
			if eb := env.lookup(ents.workflow); eb != nil {
				out = rc.addBucket(out, eb[entWorkflow], span, scope)
			}
		}
		// traceloop.entity.name selects entities, and agents of agent spans.
		if env.used&(1<<entEntity|1<<entAgent) != 0 && ents.has&2 != 0 {
			if eb := env.lookup(ents.entity); eb != nil {
				out = rc.addBucket(out, eb[entEntity], span, scope)
				out = rc.addBucket(out, eb[entAgent], span, scope)
			}
		}
		if env.used&(1<<entAgent) != 0 && ents.has&4 != 0 {
			if eb := env.lookup(ents.agent); eb != nil {
				out = rc.addBucket(out, eb[entAgent], span, scope)
			}
		}
		if env.used&(1<<entSpan) != 0 {
			if eb := env.lookup(span.Name()); eb != nil {
				out = rc.addBucket(out, eb[entSpan], span, scope)
			}
		}
		if b := rc.service[i]; b != nil {
			out = rc.addBucket(out, b, span, scope)
		}
		if env.noEntity != nil {
			out = rc.addBucket(out, env.noEntity, span, scope)
		}
		if env.used&(1<<entModel) != 0 && ents.has>>3 != 0 {
			for m := range modelAttributes {
				if ents.has&(8<<m) != 0 {
					if eb := env.lookup(ents.models[m]); eb != nil {
						out = rc.addBucket(out, eb[entModel], span, scope)
					}
				}
			}
		}
	}
	if len(out) > len(rc.x.always) {
		slices.Sort(out)
		out = slices.Compact(out)
	}
	return out
}

// addBucket appends the monitors of b that may match: those without an
// equality rule, and those whose first equality's path has the value
// indexed (every monitor of the path when its value is not a string: a
// String() conversion may still make it equal).
func (rc *ResourceCandidates) addBucket(out []int, b *bucket, span ptrace.Span, scope pcommon.InstrumentationScope) []int {
	if b == nil {
		return out
	}
	out = append(out, b.rest...)
	for i := range b.byPath {
		p := &b.byPath[i]
		var v pcommon.Value
		var ok bool
		switch p.source {
		case SourceSpanAttributes:
			v, ok = span.Attributes().Get(p.key)
		case SourceResourceAttributes:
			v, ok = rc.resource.Get(p.key)
		case SourceSpanName:
			out = append(out, p.byValue[span.Name()]...)
			continue
		case SourceScopeName:
			out = append(out, p.byValue[scope.Name()]...)
			continue
		}
		switch {
		case !ok:
			// String(nil) is nil, never equal to a string.
		case v.Type() == pcommon.ValueTypeStr:
			out = append(out, p.byValue[v.Str()]...)
		default:
			out = append(out, p.all...)
		}
	}
	return out
}
