package console

import (
	"math"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"time"

	"github.com/evalcol/evalcol/internal/tenant"
	"github.com/evalcol/evalcol/internal/warehouse"
)

// The dashboard: latency percentiles, span and error counts, tokens and
// cost over time, per workflow, per model and per day, read from the
// pre-aggregated span stats (warehouse.SpanStatter, one query), never
// from the spans. Costs are priced at read time (Options.Prices).

// spanTotals accumulates span stats rows.
type spanTotals struct {
	Spans, Errors, Input, Output int64
	cost                         float64
	priced, unpriced             bool
	bins                         [warehouse.LatencyBins]int64
}

func (s *spanTotals) add(st *warehouse.SpanStat, cost float64, priced bool) {
	s.Spans += st.N
	s.Errors += st.Errors
	s.Input += st.InputTokens
	s.Output += st.OutputTokens
	if st.Bin >= 0 && st.Bin < warehouse.LatencyBins {
		s.bins[st.Bin] += st.N
	}
	if priced {
		s.cost, s.priced = s.cost+cost, true
	} else if st.InputTokens+st.OutputTokens > 0 {
		s.unpriced = true
	}
}

// percentile is the p-th latency percentile (ms), NaN without spans.
func (s *spanTotals) percentile(p float64) float64 {
	v, ok := warehouse.LatencyPercentile(s.bins[:], p)
	if !ok {
		return math.NaN()
	}
	return v
}

// costValue is the priced cost, NaN when nothing could be priced.
func (s *spanTotals) costValue() float64 {
	if !s.priced {
		return math.NaN()
	}
	return s.cost
}

// dashRow is a line of the dashboard's tables (a workflow, a model, a
// day, or everything).
type dashRow struct {
	Name, Link      string
	Spans, Errors   int64
	ErrorRate       string
	P50, P95, P99   string
	Input, Output   int64
	Cost            string
	CostTitle       string
	totals          *spanTotals
	sortCost, sortN float64
}

func newDashRow(name, link string, t *spanTotals) dashRow {
	r := dashRow{Name: name, Link: link, Spans: t.Spans, Errors: t.Errors, Input: t.Input, Output: t.Output, totals: t,
		P50: formatLatency(t.percentile(0.5)), P95: formatLatency(t.percentile(0.95)), P99: formatLatency(t.percentile(0.99))}
	if t.Spans > 0 {
		r.ErrorRate = strconv.FormatFloat(100*float64(t.Errors)/float64(t.Spans), 'f', 1, 64) + "%"
	}
	if t.priced {
		r.Cost = formatCost(t.cost)
		if t.unpriced {
			r.Cost = "≥ " + r.Cost
			r.CostTitle = "some tokens are of models without a price"
		}
	}
	r.sortCost, r.sortN = t.cost, float64(t.Spans)
	return r
}

// formatLatency renders a percentile estimate ("—" for none).
func formatLatency(ms float64) string {
	if math.IsNaN(ms) {
		return "—"
	}
	return formatDuration(int64(math.Round(ms)))
}

// dashboardData is the data of the dashboard page.
type dashboardData struct {
	Presets            []preset
	Range              string
	FromInput, ToInput string
	Workflow, Model    string
	Workflows, Models  []string
	BucketLabel        string
	Errors             map[string]string
	Total              dashRow
	SpansChart         barChart
	LatencyChart       lineChart
	TokensChart        barChart
	CostChart          lineChart
	ByWorkflow         []dashRow
	ByModel            []dashRow
	ByDay              []dashRow
}

func (c *Console) dashboardPage(w http.ResponseWriter, r *http.Request) {
	t, _ := tenant.FromContext(r.Context())
	p, errs := parseListParams(r.URL.Query(), c.opts.Now())
	data := dashboardData{Range: p.Range, Workflow: p.Workflow, Model: p.Model, Errors: errs,
		FromInput: time.UnixMilli(p.FromMs).UTC().Format(customTimeLayout), ToInput: time.UnixMilli(p.ToMs).UTC().Format(customTimeLayout)}
	for _, pr := range timePresets {
		v := url.Values{"range": {pr.Key}}
		if p.Workflow != "" {
			v.Set("workflow", p.Workflow)
		}
		if p.Model != "" {
			v.Set("model", p.Model)
		}
		data.Presets = append(data.Presets, preset{Label: pr.Label, Link: "/ui/dashboard?" + v.Encode(), Active: p.Range == pr.Key})
	}
	bucket := bucketFor(time.Duration(p.ToMs-p.FromMs) * time.Millisecond)
	data.BucketLabel = bucket.String()
	bucketMs := bucket.Milliseconds()
	from := p.FromMs - p.FromMs%bucketMs
	// One read of the stats, every workflow and model (the filters'
	// choices); the filters apply here.
	rows, err := c.opts.Store.SpanStats(r.Context(), warehouse.SpanStatQuery{
		Environment: t.Environment, FromMs: from, ToMs: p.ToMs, BucketMs: bucketMs})
	if err != nil {
		c.unavailable(w, r, err)
		return
	}
	const dayMs = 24 * 3600 * 1000
	var total spanTotals
	flows, models := map[string]bool{}, map[string]bool{}
	byBucket, byFlow, byModel, byDay := map[int64]*spanTotals{}, map[string]*spanTotals{}, map[string]*spanTotals{}, map[int64]*spanTotals{}
	get := func(m map[int64]*spanTotals, k int64) *spanTotals {
		if m[k] == nil {
			m[k] = &spanTotals{}
		}
		return m[k]
	}
	getS := func(m map[string]*spanTotals, k string) *spanTotals {
		if m[k] == nil {
			m[k] = &spanTotals{}
		}
		return m[k]
	}
	for i := range rows {
		st := &rows[i]
		flows[st.Workflow], models[st.Model] = true, true
		if p.Workflow != "" && st.Workflow != p.Workflow || p.Model != "" && st.Model != p.Model {
			continue
		}
		cost, priced := c.opts.Prices.Cost(st.Model, st.InputTokens, st.OutputTokens)
		total.add(st, cost, priced)
		get(byBucket, st.Bucket).add(st, cost, priced)
		getS(byFlow, st.Workflow).add(st, cost, priced)
		getS(byModel, st.Model).add(st, cost, priced)
		get(byDay, st.Bucket-st.Bucket%max(bucketMs, dayMs)).add(st, cost, priced)
	}
	for wf := range flows {
		if wf != "" {
			data.Workflows = append(data.Workflows, wf)
		}
	}
	for m := range models {
		if m != "" {
			data.Models = append(data.Models, m)
		}
	}
	sort.Strings(data.Workflows)
	sort.Strings(data.Models)
	data.Total = newDashRow("all", "", &total)

	n := int((p.ToMs-from)/bucketMs) + 1
	spanStacks := make([]stack, n)
	tokenStacks := make([]stack, n)
	p50, p95, p99, costs := make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n)
	for i := range n {
		b := from + int64(i)*bucketMs
		bt := byBucket[b]
		if bt == nil {
			bt = &spanTotals{}
		}
		when := timeLabel(b, bucketMs)
		link := spansLink(b, b+bucketMs-1, "", "", p.Workflow)
		spanStacks[i] = stack{Counts: []int64{bt.Spans - bt.Errors, bt.Errors}, Class: []string{"bin", "fail"},
			Links:  []string{link, link + "&status=error"},
			Titles: []string{when + ": " + strconv.FormatInt(bt.Spans-bt.Errors, 10) + " spans without error", when + ": " + strconv.FormatInt(bt.Errors, 10) + " error spans"},
			Rate:   -1}
		tokenStacks[i] = stack{Counts: []int64{bt.Input, bt.Output}, Class: []string{"tok-in", "tok-out"}, Links: []string{"", ""},
			Titles: []string{when + ": " + strconv.FormatInt(bt.Input, 10) + " input tokens", when + ": " + strconv.FormatInt(bt.Output, 10) + " output tokens"},
			Rate:   -1}
		p50[i], p95[i], p99[i], costs[i] = bt.percentile(0.5), bt.percentile(0.95), bt.percentile(0.99), bt.costValue()
	}
	data.SpansChart = newBarChart(from, bucketMs, spanStacks, false)
	data.TokensChart = newBarChart(from, bucketMs, tokenStacks, false)
	data.LatencyChart = newLineChart(from, bucketMs, []string{"p50", "p95", "p99"}, []string{"p50", "p95", "p99"},
		[][]float64{p50, p95, p99}, func(v float64) string { return formatDuration(int64(math.Round(v))) })
	data.CostChart = newLineChart(from, bucketMs, []string{"cost"}, []string{"cost"}, [][]float64{costs}, formatCost)

	for wf, st := range byFlow {
		data.ByWorkflow = append(data.ByWorkflow, newDashRow(wf, spansLink(p.FromMs, p.ToMs, "", "", wf), st))
	}
	for m, st := range byModel {
		data.ByModel = append(data.ByModel, newDashRow(m, "", st))
	}
	busiest := func(rows []dashRow) {
		sort.Slice(rows, func(i, j int) bool {
			if rows[i].sortCost != rows[j].sortCost {
				return rows[i].sortCost > rows[j].sortCost
			}
			if rows[i].sortN != rows[j].sortN {
				return rows[i].sortN > rows[j].sortN
			}
			return rows[i].Name < rows[j].Name
		})
	}
	busiest(data.ByWorkflow)
	busiest(data.ByModel)
	for d, st := range byDay {
		data.ByDay = append(data.ByDay, newDashRow(time.UnixMilli(d).UTC().Format("2006-01-02"), "", st))
	}
	sort.Slice(data.ByDay, func(i, j int) bool { return data.ByDay[i].Name > data.ByDay[j].Name })
	c.render(w, r, http.StatusOK, "dashboard", page{Title: "Dashboard", Nav: "dashboard", Data: data})
}
