package console

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/evalcol/evalcol/extension/evalapiextension/internal/annotationapi"
	"github.com/evalcol/evalcol/internal/warehouse"
)

// associationPrefix starts the attributes of OpenLLMetry's association
// properties (withAssociationProperties), whose values annotations may
// name as their entity.
const associationPrefix = "traceloop.association.properties."

// feedbackRow is one human annotation shown on a trace page.
type feedbackRow struct {
	Task, Entity, EntityKind string
	Tags                     []kv
	Actor, Flow              string
	Time                     int64 // Unix ms
}

// traceEntities lists what an annotation of the trace may name: the
// trace id, its span ids and the values of its spans' association
// properties, each once, and what each one is.
func traceEntities(traceID string, spans []warehouse.Span) (ids []string, kinds map[string]string) {
	kinds = map[string]string{traceID: "trace"}
	ids = []string{traceID}
	add := func(id, kind string) {
		if _, ok := kinds[id]; !ok && id != "" && len(ids) < warehouse.MaxFilterValues {
			kinds[id] = kind
			ids = append(ids, id)
		}
	}
	for _, s := range spans {
		for k, v := range s.SpanAttributes {
			if strings.HasPrefix(k, associationPrefix) {
				add(v, strings.TrimPrefix(k, associationPrefix))
			}
		}
	}
	for _, s := range spans {
		add(s.SpanID, "span "+s.SpanName)
	}
	return ids, kinds
}

// traceFeedback returns the annotations about the trace, newest first;
// a warehouse that cannot answer leaves the section empty rather than the
// page unavailable.
func (c *Console) traceFeedback(ctx context.Context, env, traceID string, spans []warehouse.Span) ([]feedbackRow, error) {
	ids, kinds := traceEntities(traceID, spans)
	anns, err := annotationapi.ForEntities(ctx, c.opts.Store, env, ids)
	if err != nil {
		return nil, err
	}
	rows := make([]feedbackRow, 0, len(anns))
	for _, a := range anns {
		row := feedbackRow{Task: a.Task, Entity: a.EntityInstanceID, EntityKind: kinds[a.EntityInstanceID],
			Actor: strings.Trim(a.ActorType+" "+a.ActorID, " "), Flow: a.Flow, Time: a.CreatedAt.UnixMilli()}
		for name, v := range a.Tags {
			val := fmt.Sprint(v)
			if list, ok := v.([]string); ok {
				val = strings.Join(list, ", ")
			}
			row.Tags = append(row.Tags, kv{Key: name, Value: val})
		}
		sort.Slice(row.Tags, func(i, j int) bool { return row.Tags[i].Key < row.Tags[j].Key })
		rows = append(rows, row)
	}
	return rows, nil
}
