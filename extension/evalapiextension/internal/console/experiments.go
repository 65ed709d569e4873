package console

import (
	"encoding/json"
	"net/http"
	"sort"

	"github.com/evalcol/evalcol/extension/evalapiextension/internal/experimentapi"
	"github.com/evalcol/evalcol/internal/dataset"
	"github.com/evalcol/evalcol/internal/tenant"
	"github.com/evalcol/evalcol/internal/warehouse"
)

// Experiments in the console: the project's experiments, and one
// experiment's runs side by side per evaluator, so that two versions of
// an app compare (pass rate, mean score, errors).

// experimentRow is one experiment of the list.
type experimentRow struct {
	experimentapi.Experiment
}

// runColumn is one run of an experiment's page.
type runColumn struct {
	experimentapi.RunSummary
	Label string
}

// evaluatorLine is one evaluator across the runs shown.
type evaluatorLine struct {
	Evaluator string
	Cells     []runCell
}

// runCell is one evaluator's results in one run, with the change from
// the run to its right (the one before it).
type runCell struct {
	Present          bool
	Count, Pass      int
	Fail, Errors     int
	Rate             float64 // -1: no verdicts
	Mean             float64
	HasMean          bool
	Delta            float64 // pass rate points against the older run
	HasDelta, Better bool
}

// experimentsData is the data of /ui/experiments.
type experimentsData struct {
	Experiments []experimentapi.Experiment
	Datasets    []dataset.Dataset
}

func (c *Console) experimentsPage(w http.ResponseWriter, r *http.Request) {
	t, _ := tenant.FromContext(r.Context())
	var data experimentsData
	docs, err := c.opts.Store.ListDocuments(r.Context(), warehouse.DocumentQuery{Kind: experimentapi.Kind, Scope: t.ProjectScope()})
	if err != nil {
		c.unavailable(w, r, err)
		return
	}
	for _, d := range docs {
		var e experimentapi.Experiment
		if jsonErr := json.Unmarshal(d.Body, &e); jsonErr == nil {
			data.Experiments = append(data.Experiments, e)
		}
	}
	dsDocs, err := c.opts.Store.ListDocuments(r.Context(), warehouse.DocumentQuery{Kind: dataset.Kind, Scope: t.ProjectScope()})
	if err != nil {
		c.unavailable(w, r, err)
		return
	}
	for _, d := range dsDocs {
		var ds dataset.Dataset
		if jsonErr := json.Unmarshal(d.Body, &ds); jsonErr == nil {
			ds.Slug = d.Slug
			data.Datasets = append(data.Datasets, ds)
		}
	}
	c.render(w, r, http.StatusOK, "experiments", page{Title: "Experiments", Nav: "experiments", Data: data})
}

// experimentData is the data of /ui/experiments/{slug}.
type experimentData struct {
	Experiment experimentapi.Experiment
	Runs       []runColumn
	Lines      []evaluatorLine
}

// maxRunsShown bounds the runs an experiment's page compares.
const maxRunsShown = 8

func (c *Console) experimentPage(w http.ResponseWriter, r *http.Request) {
	t, _ := tenant.FromContext(r.Context())
	exp, runs, err := experimentapi.Runs(r.Context(), c.opts.Store, t, r.PathValue("slug"))
	if err != nil {
		if experimentapi.IsNotFound(err) {
			c.renderError(w, r, http.StatusNotFound, "Experiment not found", "There is no experiment "+quote(truncate(60, r.PathValue("slug")))+" in this project.")
			return
		}
		c.unavailable(w, r, err)
		return
	}
	data := experimentData{Experiment: exp}
	if len(runs) > maxRunsShown {
		runs = runs[:maxRunsShown]
	}
	names := map[string]bool{}
	for i, run := range runs {
		data.Runs = append(data.Runs, runColumn{RunSummary: run, Label: "run " + truncate(8, run.ID)})
		if i == 0 {
			data.Runs[i].Label += " (latest)"
		}
		for n := range run.Evaluators {
			names[n] = true
		}
	}
	sorted := make([]string, 0, len(names))
	for n := range names {
		sorted = append(sorted, n)
	}
	sort.Strings(sorted)
	for _, n := range sorted {
		line := evaluatorLine{Evaluator: n}
		for _, run := range runs {
			cell := runCell{Rate: -1}
			if es := run.Evaluators[n]; es != nil {
				cell = runCell{Present: true, Count: es.Count, Pass: es.Pass, Fail: es.Fail, Errors: es.Errors, Rate: -1, Mean: es.Mean, HasMean: es.Mean != 0}
				if es.Pass+es.Fail > 0 {
					cell.Rate = float64(es.Pass) / float64(es.Pass+es.Fail)
				}
			}
			line.Cells = append(line.Cells, cell)
		}
		for i := 0; i+1 < len(line.Cells); i++ {
			cur, prev := &line.Cells[i], line.Cells[i+1]
			if cur.Rate >= 0 && prev.Rate >= 0 {
				cur.Delta, cur.HasDelta, cur.Better = (cur.Rate-prev.Rate)*100, true, cur.Rate >= prev.Rate
			}
		}
		data.Lines = append(data.Lines, line)
	}
	c.render(w, r, http.StatusOK, "experiment", page{Title: "Experiment " + exp.Slug, Nav: "experiments", Data: data})
}
