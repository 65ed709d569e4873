package console

import (
	"context"
	"net/http"
	"sort"

	"github.com/evalcol/evalcol/evaluators"
	"github.com/evalcol/evalcol/internal/annotation"
	"github.com/evalcol/evalcol/internal/tenant"
	"github.com/evalcol/evalcol/internal/warehouse"
)

// Evaluators checked against people: for the spans a queue's reviewers
// labelled, each evaluator's verdicts against the human label (the task's
// first boolean tag: true is a good answer, false a bad one), as a
// confusion matrix with precision and recall of "fail" at finding the bad
// answers, and the spans where they disagree.

// maxDisagreements bounds the disagreeing spans listed per page.
const maxDisagreements = 100

// agreementRow is one evaluator's confusion matrix.
type agreementRow struct {
	Evaluator string
	// Human label × verdict.
	BadFail, BadPass, GoodFail, GoodPass int
}

// Total is the number of labelled spans the evaluator judged.
func (a agreementRow) Total() int { return a.BadFail + a.BadPass + a.GoodFail + a.GoodPass }

// Precision is the share of fail verdicts on bad answers (-1: no fail).
func (a agreementRow) Precision() float64 { return ratio(a.BadFail, a.BadFail+a.GoodFail) }

// Recall is the share of bad answers the evaluator failed (-1: none bad).
func (a agreementRow) Recall() float64 { return ratio(a.BadFail, a.BadFail+a.BadPass) }

// Agreement is the share of spans where verdict and label agree.
func (a agreementRow) Agreement() float64 { return ratio(a.BadFail+a.GoodPass, a.Total()) }

func ratio(n, d int) float64 {
	if d == 0 {
		return -1
	}
	return float64(n) / float64(d)
}

// disagreement is a span where an evaluator and a reviewer disagree.
type disagreement struct {
	Evaluator, Verdict, Reviewer, SpanID, Link string
	Good                                       bool
}

// agreementData is the data of a queue's agreement page.
type agreementData struct {
	Queue reviewQueue
	Task  annotation.Task
	// Tag is the boolean tag compared ("" when the task has none).
	Tag           string
	Labelled      int
	Rows          []agreementRow
	Disagreements []disagreement
}

// humanLabels are the latest label of tag per span, with its reviewer.
func humanLabels(anns []annotation.Annotation, tag string) (good map[string]bool, by map[string]string) {
	good, by = map[string]bool{}, map[string]string{}
	for _, a := range anns { // newest first: keep the first seen
		v, ok := a.Tags[tag].(bool)
		if _, seen := good[a.EntityInstanceID]; ok && !seen {
			good[a.EntityInstanceID], by[a.EntityInstanceID] = v, a.ActorID
		}
	}
	return good, by
}

// agreement compares the verdicts on spans with the human labels.
func agreement(spans []warehouse.Span, good map[string]bool, by map[string]string) ([]agreementRow, []disagreement) {
	rows := map[string]*agreementRow{}
	var dis []disagreement
	for _, s := range spans {
		label, ok := good[s.SpanID]
		if !ok {
			continue
		}
		for _, ev := range s.Evaluations {
			v := verdictOf(ev)
			if v != evaluators.VerdictPass && v != evaluators.VerdictFail {
				continue
			}
			row := rows[ev.Name]
			if row == nil {
				row = &agreementRow{Evaluator: ev.Name}
				rows[ev.Name] = row
			}
			fail := v == evaluators.VerdictFail
			switch {
			case !label && fail:
				row.BadFail++
			case !label:
				row.BadPass++
			case fail:
				row.GoodFail++
			default:
				row.GoodPass++
			}
			if fail == label && len(dis) < maxDisagreements {
				dis = append(dis, disagreement{Evaluator: ev.Name, Verdict: string(v), Reviewer: by[s.SpanID], SpanID: s.SpanID,
					Link: traceLink(s.TraceID, s.Timestamp, s.SpanID), Good: label})
			}
		}
	}
	out := make([]agreementRow, 0, len(rows))
	for _, r := range rows {
		out = append(out, *r)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Evaluator < out[j].Evaluator })
	sort.SliceStable(dis, func(i, j int) bool { return dis[i].Evaluator < dis[j].Evaluator })
	return out, dis
}

// labelledSpans reads the spans of ids (at most warehouse.MaxFilterValues).
func (c *Console) labelledSpans(ctx context.Context, env string, ids []string) ([]warehouse.Span, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	ids = ids[:min(len(ids), warehouse.MaxFilterValues)]
	return c.allSpans(ctx, warehouse.SpanQuery{Environments: []string{env},
		Filters: []warehouse.Filter{{Field: "span_id", Operator: warehouse.OpIn, Values: ids}},
		SortBy:  warehouse.SortTimestamp, Limit: warehouse.MaxSpanLimit}, len(ids))
}

func (c *Console) agreementPage(w http.ResponseWriter, r *http.Request) {
	t, _ := tenant.FromContext(r.Context())
	q, task, ok := c.queueAndTask(w, r, t)
	if !ok {
		return
	}
	data := agreementData{Queue: q, Task: task}
	for _, tag := range task.Tags {
		if tag.Type == annotation.TypeBoolean {
			data.Tag = tag.Name
			break
		}
	}
	if data.Tag != "" {
		anns, err := c.queueLabels(r.Context(), t.Environment, q)
		if err != nil {
			c.unavailable(w, r, err)
			return
		}
		good, by := humanLabels(anns, data.Tag)
		data.Labelled = len(good)
		ids := make([]string, 0, len(good))
		for id := range good {
			ids = append(ids, id)
		}
		sort.Strings(ids)
		spans, err := c.labelledSpans(r.Context(), t.Environment, ids)
		if err != nil {
			c.unavailable(w, r, err)
			return
		}
		data.Rows, data.Disagreements = agreement(spans, good, by)
	}
	c.render(w, r, http.StatusOK, "agreement", page{Title: "Agreement " + q.Name, Nav: "review", Data: data})
}
