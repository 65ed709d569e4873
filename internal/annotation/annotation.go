// Package annotation is human feedback on spans: annotation tasks define
// the tags people may set (thumbs up/down, a score, a category, a
// comment), and an annotation sets them for one entity: a trace or span
// id, or a value the app reported as an association property. The package
// validates tasks and tags and turns an annotation into metric points
// (source "annotation"), which both warehouse backends store and query
// like evaluator results.
package annotation

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"regexp"
	"slices"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/evalcol/evalcol/internal/warehouse"
)

// DocumentKind is the warehouse document kind of annotation tasks.
const DocumentKind = "annotation_task"

// Tag types.
const (
	TypeBoolean  = "boolean"
	TypeNumber   = "number"
	TypeCategory = "category"
	TypeText     = "text"
)

// Limits of tasks and annotations.
const (
	MaxTags        = 32
	MaxValues      = 64
	MaxNameBytes   = 64
	MaxTextBytes   = 4096
	MaxEntityBytes = 256
)

var slugPattern = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]{0,63}$`)

// Tag defines one tag of a task.
type Tag struct {
	Name        string   `json:"name"`
	Type        string   `json:"type"`
	Description string   `json:"description,omitempty"`
	Min         *float64 `json:"min,omitempty"`
	Max         *float64 `json:"max,omitempty"`
	// Values are the categories a category tag may take.
	Values   []string `json:"values,omitempty"`
	Required bool     `json:"required,omitempty"`
}

// Task is an annotation task: the tags an annotation of it sets. Its JSON
// form is the API's object.
type Task struct {
	ID          string    `json:"id"`
	Slug        string    `json:"slug"`
	Name        string    `json:"name"`
	Description string    `json:"description"`
	Tags        []Tag     `json:"tags"`
	CreatedAt   time.Time `json:"created_at"`
	UpdatedAt   time.Time `json:"updated_at"`
	// Version grows with every change (the warehouse document's).
	Version int64 `json:"version"`
}

// FieldError is a mistake in a request: Field names the part at fault.
type FieldError struct {
	Field string
	Msg   string
}

func (e *FieldError) Error() string { return e.Field + ": " + e.Msg }

func fieldErrorf(field, format string, args ...any) error {
	return &FieldError{Field: field, Msg: fmt.Sprintf(format, args...)}
}

// Validate checks a task's slug, name and tags.
func (t Task) Validate() error {
	if !slugPattern.MatchString(t.Slug) {
		return fieldErrorf("slug", "%q is not a slug: 1 to 64 of a-z, 0-9, '-' and '_', starting with a letter or digit", t.Slug)
	}
	if strings.TrimSpace(t.Name) == "" || len(t.Name) > 256 || !utf8.ValidString(t.Name) {
		return fieldErrorf("name", "is required (valid UTF-8, at most 256 bytes)")
	}
	if len(t.Description) > MaxTextBytes || !utf8.ValidString(t.Description) {
		return fieldErrorf("description", "must be valid UTF-8 of at most %d bytes", MaxTextBytes)
	}
	if len(t.Tags) == 0 || len(t.Tags) > MaxTags {
		return fieldErrorf("tags", "a task needs 1 to %d tags, got %d", MaxTags, len(t.Tags))
	}
	seen := map[string]bool{}
	for i, tag := range t.Tags {
		field := fmt.Sprintf("tags[%d]", i)
		if !slugPattern.MatchString(tag.Name) {
			return fieldErrorf(field+".name", "%q is not a tag name: 1 to 64 of a-z, 0-9, '-' and '_'", tag.Name)
		}
		if seen[tag.Name] {
			return fieldErrorf(field+".name", "%q is defined twice", tag.Name)
		}
		seen[tag.Name] = true
		switch tag.Type {
		case TypeBoolean, TypeText:
			if tag.Min != nil || tag.Max != nil || len(tag.Values) > 0 {
				return fieldErrorf(field, "a %s tag takes no min, max or values", tag.Type)
			}
		case TypeNumber:
			if len(tag.Values) > 0 {
				return fieldErrorf(field+".values", "a number tag takes min and max, not values")
			}
			for name, b := range map[string]*float64{"min": tag.Min, "max": tag.Max} {
				if b != nil && (math.IsNaN(*b) || math.IsInf(*b, 0)) {
					return fieldErrorf(field+"."+name, "must be a finite number")
				}
			}
			if tag.Min != nil && tag.Max != nil && *tag.Min > *tag.Max {
				return fieldErrorf(field, "min %g is above max %g", *tag.Min, *tag.Max)
			}
		case TypeCategory:
			if tag.Min != nil || tag.Max != nil {
				return fieldErrorf(field, "a category tag takes values, not min or max")
			}
			if len(tag.Values) == 0 || len(tag.Values) > MaxValues {
				return fieldErrorf(field+".values", "a category tag needs 1 to %d values", MaxValues)
			}
			for j, v := range tag.Values {
				if v == "" || len(v) > MaxNameBytes || !utf8.ValidString(v) {
					return fieldErrorf(fmt.Sprintf("%s.values[%d]", field, j), "must be 1 to %d bytes of UTF-8", MaxNameBytes)
				}
				if slices.Contains(tag.Values[:j], v) {
					return fieldErrorf(fmt.Sprintf("%s.values[%d]", field, j), "%q is listed twice", v)
				}
			}
		default:
			return fieldErrorf(field+".type", "%q is not one of boolean, number, category, text", tag.Type)
		}
	}
	return nil
}

// Annotation is one set of tag values for one entity.
type Annotation struct {
	ID string `json:"id"`
	// Task is the task's slug.
	Task string `json:"annotation_task"`
	// EntityInstanceID names what is annotated: a trace or span id, or an
	// association property value the app reported on its spans.
	EntityInstanceID string         `json:"entity_instance_id"`
	Tags             map[string]any `json:"tags"`
	Source           string         `json:"source"`
	Flow             string         `json:"flow"`
	ActorType        string         `json:"actor_type"`
	ActorID          string         `json:"actor_id"`
	CreatedAt        time.Time      `json:"created_at"`
}

// CheckTags validates tag values against the task and returns them
// normalised: numbers as float64, categories as a sorted list of strings.
// A value of a wrong type, out of range or not among a category's values,
// an unknown tag and a missing required tag are errors that name the tag.
func (t Task) CheckTags(tags map[string]any) (map[string]any, error) {
	if len(tags) == 0 {
		return nil, fieldErrorf("tags", "no tag is set: the task %q defines %s", t.Slug, t.tagNames())
	}
	out := make(map[string]any, len(tags))
	for name, v := range tags {
		i := slices.IndexFunc(t.Tags, func(tag Tag) bool { return tag.Name == name })
		if i < 0 {
			return nil, fieldErrorf("tags."+name, "the task %q has no such tag (it defines %s)", t.Slug, t.tagNames())
		}
		nv, err := t.Tags[i].check(v)
		if err != nil {
			return nil, fieldErrorf("tags."+name, "%v", err)
		}
		out[name] = nv
	}
	for _, tag := range t.Tags {
		if _, ok := out[tag.Name]; tag.Required && !ok {
			return nil, fieldErrorf("tags."+tag.Name, "is required by the task %q", t.Slug)
		}
	}
	return out, nil
}

func (t Task) tagNames() string {
	names := make([]string, len(t.Tags))
	for i, tag := range t.Tags {
		names[i] = tag.Name
	}
	return strings.Join(names, ", ")
}

func (tag Tag) check(v any) (any, error) {
	switch tag.Type {
	case TypeBoolean:
		b, ok := v.(bool)
		if !ok {
			return nil, fmt.Errorf("a boolean tag takes true or false, got %s", describe(v))
		}
		return b, nil
	case TypeNumber:
		f, ok := v.(float64)
		if n, isNum := v.(json.Number); isNum {
			var err error
			f, err = n.Float64()
			ok = err == nil
		}
		if !ok || math.IsNaN(f) || math.IsInf(f, 0) {
			return nil, fmt.Errorf("a number tag takes a finite number, got %s", describe(v))
		}
		if tag.Min != nil && f < *tag.Min || tag.Max != nil && f > *tag.Max {
			return nil, fmt.Errorf("%g is outside [%s, %s]", f, bound(tag.Min, "-inf"), bound(tag.Max, "+inf"))
		}
		return f, nil
	case TypeCategory:
		var vals []string
		switch x := v.(type) {
		case string:
			vals = []string{x}
		case []any:
			for _, e := range x {
				s, ok := e.(string)
				if !ok {
					return nil, fmt.Errorf("a category tag takes strings, got %s in the list", describe(e))
				}
				vals = append(vals, s)
			}
		default:
			return nil, fmt.Errorf("a category tag takes one of its values or a list of them, got %s", describe(v))
		}
		if len(vals) == 0 {
			return nil, errors.New("an empty list sets no category")
		}
		for _, s := range vals {
			if !slices.Contains(tag.Values, s) {
				return nil, fmt.Errorf("%q is not one of %s", s, strings.Join(tag.Values, ", "))
			}
		}
		sort.Strings(vals)
		return slices.Compact(vals), nil
	case TypeText:
		s, ok := v.(string)
		if !ok {
			return nil, fmt.Errorf("a text tag takes a string, got %s", describe(v))
		}
		if len(s) > MaxTextBytes || !utf8.ValidString(s) {
			return nil, fmt.Errorf("text must be valid UTF-8 of at most %d bytes", MaxTextBytes)
		}
		return s, nil
	}
	return nil, fmt.Errorf("unknown tag type %q", tag.Type)
}

func bound(b *float64, none string) string {
	if b == nil {
		return none
	}
	return fmt.Sprint(*b)
}

func describe(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case float64, json.Number:
		return "a number"
	case string:
		return "a string"
	case []any:
		return "a list"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("%T", v)
}

// Labels of annotation points.
const (
	LabelTask     = "annotation_task"
	LabelEntity   = "entity_instance_id"
	LabelFlow     = "flow"
	LabelSource   = "annotation_source"
	LabelActor    = "actor_id"
	LabelActorTyp = "actor_type"
	LabelID       = "annotation_id"
	// LabelCategory is the value of a category tag's point.
	LabelCategory = "category"
)

var (
	traceIDPattern = regexp.MustCompile(`^[0-9a-f]{32}$`)
	spanIDPattern  = regexp.MustCompile(`^[0-9a-f]{16}$`)
)

// Points turns an annotation (its tags checked by CheckTags) into metric
// points of environment env: one per tag value, named
// "<task slug>.<tag name>", with source "annotation" and the annotation's
// entity, flow and actor as labels. An entity id that has the shape of a
// trace id (32 hex digits) or span id (16) is also set as the point's
// trace or span id.
func Points(env, org string, a Annotation) []warehouse.MetricPoint {
	labels := map[string]string{
		LabelTask: a.Task, LabelEntity: a.EntityInstanceID, LabelFlow: a.Flow, LabelSource: a.Source,
		LabelActor: a.ActorID, LabelActorTyp: a.ActorType, LabelID: a.ID, "metric_source": warehouse.SourceAnnotation,
	}
	base := warehouse.MetricPoint{Environment: env, OrganizationID: org, Source: warehouse.SourceAnnotation,
		EventTime: a.CreatedAt.UnixMilli(), Labels: labels}
	id := strings.ToLower(a.EntityInstanceID)
	switch {
	case traceIDPattern.MatchString(id):
		base.TraceID = id
	case spanIDPattern.MatchString(id):
		base.SpanID = id
	}
	names := make([]string, 0, len(a.Tags))
	for n := range a.Tags {
		names = append(names, n)
	}
	sort.Strings(names)
	var pts []warehouse.MetricPoint
	for _, n := range names {
		p := base
		p.MetricName = a.Task + "." + n
		switch v := a.Tags[n].(type) {
		case bool:
			p.BoolValue = &v
			pts = append(pts, p)
		case float64:
			p.NumericValue = &v
			pts = append(pts, p)
		case string:
			p.EnumValue = &v
			pts = append(pts, p)
		case []string:
			for _, s := range v {
				q := p
				q.EnumValue = &s
				// The category is a label too: points that differ only in
				// their value are one point to a store that keys points by
				// name, time and labels (ClickHouse).
				q.Labels = maps.Clone(labels)
				q.Labels[LabelCategory] = s
				pts = append(pts, q)
			}
		}
	}
	return pts
}

// FromPoints reassembles the annotations whose points are pts (as read
// back from the warehouse), newest first.
func FromPoints(pts []warehouse.MetricPoint) []Annotation {
	byID := map[string]*Annotation{}
	var order []string
	for _, p := range pts {
		id := p.Labels[LabelID]
		a, ok := byID[id]
		if !ok {
			a = &Annotation{ID: id, Task: p.Labels[LabelTask], EntityInstanceID: p.Labels[LabelEntity], Flow: p.Labels[LabelFlow],
				Source: p.Labels[LabelSource], ActorType: p.Labels[LabelActorTyp], ActorID: p.Labels[LabelActor],
				CreatedAt: time.UnixMilli(p.EventTime).UTC(), Tags: map[string]any{}}
			byID[id] = a
			order = append(order, id)
		}
		tag := strings.TrimPrefix(p.MetricName, a.Task+".")
		switch {
		case p.BoolValue != nil:
			a.Tags[tag] = *p.BoolValue
		case p.NumericValue != nil:
			a.Tags[tag] = *p.NumericValue
		case p.EnumValue != nil:
			if prev, ok := a.Tags[tag]; ok {
				switch x := prev.(type) {
				case string:
					a.Tags[tag] = []string{x, *p.EnumValue}
				case []string:
					a.Tags[tag] = append(x, *p.EnumValue)
				}
			} else {
				a.Tags[tag] = *p.EnumValue
			}
		}
	}
	out := make([]Annotation, 0, len(order))
	for _, id := range order {
		for _, v := range byID[id].Tags {
			if list, ok := v.([]string); ok {
				sort.Strings(list)
			}
		}
		out = append(out, *byID[id])
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].CreatedAt.After(out[j].CreatedAt) })
	return out
}
