package console

import (
	"math"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"time"

	"github.com/evalcol/evalcol/evaluators"
	"github.com/evalcol/evalcol/internal/tenant"
	"github.com/evalcol/evalcol/internal/warehouse"
)

// bucketSizes are the time bucket widths of the scores charts; a range
// gets the smallest that makes at most maxChartBuckets bars.
var bucketSizes = []time.Duration{time.Minute, 5 * time.Minute, 15 * time.Minute, 30 * time.Minute, time.Hour,
	3 * time.Hour, 6 * time.Hour, 12 * time.Hour, 24 * time.Hour, 7 * 24 * time.Hour}

const (
	maxChartBuckets = 36
	// maxWorkflowCharts bounds the per-workflow charts (the busiest).
	maxWorkflowCharts = 6
)

func bucketFor(span time.Duration) time.Duration {
	for _, b := range bucketSizes {
		if span/b < maxChartBuckets {
			return b
		}
	}
	return bucketSizes[len(bucketSizes)-1]
}

// counts are evaluation results by verdict.
type counts struct{ Pass, Fail, Other int64 }

func (c counts) total() int64 { return c.Pass + c.Fail + c.Other }

// rate is the pass rate among results with a verdict (-1 without any).
func (c counts) rate() float64 {
	if c.Pass+c.Fail == 0 {
		return -1
	}
	return float64(c.Pass) / float64(c.Pass+c.Fail)
}

func (c *counts) add(verdict string, n int64) {
	switch evaluators.Verdict(verdict) {
	case evaluators.VerdictPass:
		c.Pass += n
	case evaluators.VerdictFail:
		c.Fail += n
	default:
		c.Other += n
	}
}

// evalScores is the card of one evaluator.
type evalScores struct {
	Slug       string
	Totals     counts
	Rate       float64
	Chart      barChart
	Histogram  *barChart
	Mean       string
	Numeric    bool
	FailLink   string
	numericSum float64
	numericN   int64
	bins       [warehouse.ScoreBins]int64
	buckets    map[int64]*counts
}

// workflowRow is one workflow × evaluator line of the table.
type workflowRow struct {
	Workflow, Evaluator string
	Totals              counts
	Rate                float64
	Meter               float64 // width of the pass part of a 80-unit meter
	Link, FailLink      string
}

// workflowScores is the chart of one workflow (all evaluators).
type workflowScores struct {
	Workflow string
	Totals   counts
	Rate     float64
	Chart    barChart
	buckets  map[int64]*counts
}

// scoresData is the data of the scores page.
type scoresData struct {
	Presets            []preset
	Range              string
	FromInput, ToInput string
	Workflow           string
	Workflows          []string
	BucketLabel        string
	Evaluators         []*evalScores
	WorkflowRows       []workflowRow
	WorkflowCharts     []*workflowScores
	Total              int64
	Errors             map[string]string
}

func (c *Console) scoresPage(w http.ResponseWriter, r *http.Request) {
	t, _ := tenant.FromContext(r.Context())
	p, errs := parseListParams(r.URL.Query(), c.opts.Now())
	data := scoresData{Range: p.Range, Workflow: p.Workflow, Errors: errs,
		FromInput: time.UnixMilli(p.FromMs).UTC().Format(customTimeLayout), ToInput: time.UnixMilli(p.ToMs).UTC().Format(customTimeLayout)}
	for _, pr := range timePresets {
		v := url.Values{"range": {pr.Key}}
		if p.Workflow != "" {
			v.Set("workflow", p.Workflow)
		}
		data.Presets = append(data.Presets, preset{Label: pr.Label, Link: "/ui/scores?" + v.Encode(), Active: p.Range == pr.Key})
	}
	bucket := bucketFor(time.Duration(p.ToMs-p.FromMs) * time.Millisecond)
	data.BucketLabel = bucket.String()
	bucketMs := bucket.Milliseconds()
	from := p.FromMs - p.FromMs%bucketMs // buckets on whole minutes, hours, days (UTC)
	// One read of the pre-aggregated counts (warehouse.EvaluationCounter),
	// never of the points: every workflow, for the filter's choices too;
	// every evaluator, the prebuilt ones and the LLM judges.
	all, err := c.opts.Store.CountEvaluations(r.Context(), warehouse.EvaluationCountQuery{
		Environment: t.Environment, FromMs: from, ToMs: p.ToMs, BucketMs: bucketMs})
	if err != nil {
		c.unavailable(w, r, err)
		return
	}
	flows := map[string]bool{}
	byEval := map[string]*evalScores{}
	byFlow := map[string]*workflowScores{}
	type flowEval struct{ wf, ev string }
	rows := map[flowEval]*counts{}
	for _, row := range all {
		ev, wf, verdict := row.Evaluator, row.Workflow, row.Verdict
		if wf != "" {
			flows[wf] = true
		}
		if p.Workflow != "" && wf != p.Workflow {
			continue
		}
		data.Total += row.N
		es := byEval[ev]
		if es == nil {
			es = &evalScores{Slug: ev, buckets: map[int64]*counts{}}
			byEval[ev] = es
		}
		es.Totals.add(verdict, row.N)
		bucketCounts(es.buckets, row.Bucket).add(verdict, row.N)
		if row.Bin >= 0 && row.Bin < warehouse.ScoreBins {
			es.numericSum += row.Sum
			es.numericN += row.N
			es.bins[row.Bin] += row.N
		}
		ws := byFlow[wf]
		if ws == nil {
			ws = &workflowScores{Workflow: wf, buckets: map[int64]*counts{}}
			byFlow[wf] = ws
		}
		ws.Totals.add(verdict, row.N)
		bucketCounts(ws.buckets, row.Bucket).add(verdict, row.N)
		fe := flowEval{wf, ev}
		if rows[fe] == nil {
			rows[fe] = &counts{}
		}
		rows[fe].add(verdict, row.N)
	}
	for wf := range flows {
		data.Workflows = append(data.Workflows, wf)
	}
	sort.Strings(data.Workflows)
	nBuckets := int((p.ToMs-from)/bucketMs) + 1
	link := func(b int64, verdict, evaluator, workflow string) string {
		return spansLink(b, b+bucketMs-1, verdict, evaluator, workflow)
	}
	rangeLink := func(verdict, evaluator, workflow string) string {
		return spansLink(p.FromMs, p.ToMs, verdict, evaluator, workflow)
	}
	stacksOf := func(buckets map[int64]*counts, evaluator, workflow string) []stack {
		out := make([]stack, nBuckets)
		for i := range out {
			b := from + int64(i)*bucketMs
			cnt := buckets[b]
			if cnt == nil {
				cnt = &counts{}
			}
			when := timeLabel(b, bucketMs)
			out[i] = stack{
				Counts: []int64{cnt.Pass, cnt.Fail, cnt.Other},
				Class:  []string{"pass", "fail", "errs"},
				Links:  []string{link(b, "pass", evaluator, workflow), link(b, "fail", evaluator, workflow), link(b, "", evaluator, workflow)},
				Titles: []string{when + ": " + strconv.FormatInt(cnt.Pass, 10) + " passed", when + ": " + strconv.FormatInt(cnt.Fail, 10) + " failed",
					when + ": " + strconv.FormatInt(cnt.Other, 10) + " without verdict"},
				Rate: cnt.rate(),
			}
		}
		return out
	}
	for _, es := range byEval {
		es.Rate = es.Totals.rate()
		es.Chart = newBarChart(from, bucketMs, stacksOf(es.buckets, es.Slug, p.Workflow), true)
		es.FailLink = rangeLink("fail", es.Slug, p.Workflow)
		if es.numericN > 0 {
			es.Numeric = true
			es.Mean = formatScore(es.numericSum / float64(es.numericN))
			es.Histogram = scoreHistogram(es.bins[:])
		}
		data.Evaluators = append(data.Evaluators, es)
	}
	sort.Slice(data.Evaluators, func(i, j int) bool { return data.Evaluators[i].Slug < data.Evaluators[j].Slug })
	for fe, cnt := range rows {
		row := workflowRow{Workflow: fe.wf, Evaluator: fe.ev, Totals: *cnt, Rate: cnt.rate(),
			Link: rangeLink("", "", fe.wf), FailLink: rangeLink("fail", fe.ev, fe.wf)}
		if row.Rate >= 0 {
			row.Meter = round2(row.Rate * 80)
		}
		data.WorkflowRows = append(data.WorkflowRows, row)
	}
	sort.Slice(data.WorkflowRows, func(i, j int) bool {
		a, b := data.WorkflowRows[i], data.WorkflowRows[j]
		if a.Workflow != b.Workflow {
			return a.Workflow < b.Workflow
		}
		return a.Evaluator < b.Evaluator
	})
	for _, ws := range byFlow {
		ws.Rate = ws.Totals.rate()
		data.WorkflowCharts = append(data.WorkflowCharts, ws)
	}
	sort.Slice(data.WorkflowCharts, func(i, j int) bool {
		a, b := data.WorkflowCharts[i], data.WorkflowCharts[j]
		if a.Totals.total() != b.Totals.total() {
			return a.Totals.total() > b.Totals.total()
		}
		return a.Workflow < b.Workflow
	})
	if len(data.WorkflowCharts) > maxWorkflowCharts {
		data.WorkflowCharts = data.WorkflowCharts[:maxWorkflowCharts]
	}
	for _, ws := range data.WorkflowCharts {
		ws.Chart = newBarChart(from, bucketMs, stacksOf(ws.buckets, "", ws.Workflow), true)
	}
	c.render(w, r, http.StatusOK, "scores", page{Title: "Scores", Nav: "scores", Data: data})
}

func bucketCounts(m map[int64]*counts, b int64) *counts {
	c := m[b]
	if c == nil {
		c = &counts{}
		m[b] = c
	}
	return c
}

// scoreHistogram is the chart of the score bins (warehouse.ScoreBin) from
// the first to the last that holds results.
func scoreHistogram(bins []int64) *barChart {
	lo, hi := -1, -1
	for i, n := range bins {
		if n > 0 {
			if lo < 0 {
				lo = i
			}
			hi = i
		}
	}
	if lo < 0 {
		return nil
	}
	shown := bins[lo : hi+1]
	edges := make([]float64, 0, len(shown)+1)
	for i := lo; i <= hi; i++ {
		a, _ := warehouse.ScoreBinBounds(i)
		edges = append(edges, a)
	}
	_, last := warehouse.ScoreBinBounds(hi)
	edges = append(edges, last)
	h := newEdgeHistogram(edges, shown, func(i int) string {
		upper := "∞"
		if !math.IsInf(edges[i+1], 1) {
			upper = formatScore(edges[i+1])
		}
		return formatScore(edges[i]) + " – " + upper + ": " + strconv.FormatInt(shown[i], 10)
	})
	return &h
}

// spansLink is the spans view of [from, to] with results of evaluator ("":
// any) with verdict ("": no verdict filter) in workflow ("": any).
func spansLink(from, to int64, verdict, evaluator, workflow string) string {
	v := url.Values{"view": {"spans"}, "range": {"custom"}, "from": {strconv.FormatInt(from, 10)}, "to": {strconv.FormatInt(to, 10)}}
	if verdict != "" {
		if evaluator == "" {
			evaluator = "*"
		}
		v.Set("verdict", verdict+":"+evaluator)
	}
	if workflow != "" {
		v.Set("workflow", workflow)
	}
	return "/ui/traces?" + v.Encode()
}
