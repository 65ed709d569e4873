package console

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/evalcol/evalcol/extension/evalapiextension/internal/datasetapi"
	"github.com/evalcol/evalcol/internal/dataset"
	"github.com/evalcol/evalcol/internal/tenant"
	"github.com/evalcol/evalcol/internal/warehouse"
)

// Datasets in the console: the project's datasets, a new one from a CSV
// (pasted, or read from a file by console.js), and a dataset's rows
// (paged, each editable), versions (CSV and JSONL downloads) and publish.

const datasetRowsPerPage = 50

// datasetsData is the data of /ui/datasets.
type datasetsData struct {
	Datasets []dataset.Dataset
	Name     string
	Error    string
	Notice   string
}

func (c *Console) datasetsPage(w http.ResponseWriter, r *http.Request) {
	c.renderDatasets(w, r, http.StatusOK, datasetsData{Notice: r.URL.Query().Get("notice")})
}

func (c *Console) renderDatasets(w http.ResponseWriter, r *http.Request, status int, data datasetsData) {
	if c.opts.Datasets == nil {
		c.renderError(w, r, http.StatusNotFound, "Datasets unavailable", "Datasets are not served by this collector.")
		return
	}
	t, _ := tenant.FromContext(r.Context())
	docs, err := c.opts.Store.ListDocuments(r.Context(), warehouse.DocumentQuery{Kind: dataset.Kind, Scope: t.ProjectScope()})
	if err != nil {
		c.unavailable(w, r, err)
		return
	}
	for _, d := range docs {
		var ds dataset.Dataset
		if err := json.Unmarshal(d.Body, &ds); err == nil {
			ds.Slug, ds.UpdatedAt = d.Slug, d.UpdatedAt
			data.Datasets = append(data.Datasets, ds)
		}
	}
	c.render(w, r, status, "datasets", page{Title: "Datasets", Nav: "datasets", Data: data})
}

// uploadCSV creates a dataset from a CSV, or adds its rows to the dataset
// of that name (whose columns it must name).
func (c *Console) uploadCSV(w http.ResponseWriter, r *http.Request) {
	if c.opts.Datasets == nil {
		c.renderError(w, r, http.StatusNotFound, "Datasets unavailable", "Datasets are not served by this collector.")
		return
	}
	t, _ := tenant.FromContext(r.Context())
	name := strings.TrimSpace(r.PostFormValue("name"))
	cols, rows, err := dataset.ParseCSV([]byte(r.PostFormValue("csv")))
	var ds dataset.Dataset
	added := 0
	if err == nil {
		ds, added, err = c.opts.Datasets.Append(r.Context(), t, name, cols, "", rows)
	}
	var fe *dataset.FieldError
	if errors.As(err, &fe) {
		c.renderDatasets(w, r, http.StatusBadRequest, datasetsData{Name: name, Error: "Nothing was added: " + err.Error()})
		return
	}
	if err != nil {
		c.unavailable(w, r, err)
		return
	}
	http.Redirect(w, r, "/ui/datasets/"+url.PathEscape(ds.Slug)+"?notice="+url.QueryEscape(fmt.Sprintf("Added %d rows from the CSV.", added)), http.StatusSeeOther)
}

// datasetData is the data of /ui/datasets/{slug}.
type datasetData struct {
	Dataset  dataset.Dataset
	Rows     []datasetRow
	Versions []dataset.Version
	Offset   int
	Prev     string
	Next     string
	Notice   string
}

// datasetRow is one row as the page shows it: a value per column.
type datasetRow struct {
	ID     string
	Values []string
}

// cellText is a value as a cell shows it.
func cellText(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64)
	case bool:
		return strconv.FormatBool(x)
	}
	b, _ := json.Marshal(v)
	return string(b)
}

func (c *Console) datasetPage(w http.ResponseWriter, r *http.Request) {
	if c.opts.Datasets == nil {
		c.renderError(w, r, http.StatusNotFound, "Datasets unavailable", "Datasets are not served by this collector.")
		return
	}
	t, _ := tenant.FromContext(r.Context())
	slug := r.PathValue("slug")
	offset, _ := strconv.Atoi(r.URL.Query().Get("offset"))
	offset = min(max(offset, 0), dataset.MaxRows)
	ds, rows, err := c.opts.Datasets.Rows(r.Context(), t, slug, datasetRowsPerPage+1, offset)
	if datasetapi.IsNotFound(err) {
		c.renderError(w, r, http.StatusNotFound, "Dataset not found", "There is no dataset "+quote(truncate(60, slug))+" in this project.")
		return
	}
	if err != nil {
		c.unavailable(w, r, err)
		return
	}
	_, versions, err := c.opts.Datasets.Versions(r.Context(), t, slug)
	if err != nil {
		c.unavailable(w, r, err)
		return
	}
	data := datasetData{Dataset: ds, Versions: versions, Offset: offset, Notice: r.URL.Query().Get("notice")}
	base := "/ui/datasets/" + url.PathEscape(ds.Slug)
	if len(rows) > datasetRowsPerPage {
		rows = rows[:datasetRowsPerPage]
		data.Next = base + "?offset=" + strconv.Itoa(offset+datasetRowsPerPage)
	}
	if offset > 0 {
		data.Prev = base + "?offset=" + strconv.Itoa(max(offset-datasetRowsPerPage, 0))
	}
	for _, row := range rows {
		dr := datasetRow{ID: row.ID}
		for _, col := range ds.Columns {
			dr.Values = append(dr.Values, cellText(row.Values[col.Slug]))
		}
		data.Rows = append(data.Rows, dr)
	}
	c.render(w, r, http.StatusOK, "dataset", page{Title: "Dataset " + ds.Name, Nav: "datasets", Data: data})
}

// datasetAction publishes a dataset, or saves a row's values (one form
// field per column slug, "col.<slug>"; an empty field clears the value).
func (c *Console) datasetAction(w http.ResponseWriter, r *http.Request) {
	if c.opts.Datasets == nil {
		c.renderError(w, r, http.StatusNotFound, "Datasets unavailable", "Datasets are not served by this collector.")
		return
	}
	t, _ := tenant.FromContext(r.Context())
	slug := r.PathValue("slug")
	back := "/ui/datasets/" + url.PathEscape(slug)
	var notice string
	var err error
	switch r.PathValue("action") {
	case "publish":
		var ds dataset.Dataset
		if ds, err = c.opts.Datasets.Publish(r.Context(), t, slug); err == nil {
			notice = "Published " + ds.Version + "."
		}
	case "row":
		var ds dataset.Dataset
		if ds, err = c.opts.Datasets.Get(r.Context(), t, slug); err == nil {
			values := map[string]any{}
			for _, col := range ds.Columns {
				if vs, ok := r.PostForm["col."+col.Slug]; ok {
					if v := strings.TrimSpace(vs[0]); v != "" {
						values[col.Slug] = v
					} else {
						values[col.Slug] = nil
					}
				}
			}
			if _, err = c.opts.Datasets.UpdateRow(r.Context(), t, slug, r.PostFormValue("row"), values); err == nil {
				notice = "Saved the row."
			}
		}
	default:
		c.renderError(w, r, http.StatusNotFound, "Not found", "There is no such action.")
		return
	}
	var fe *dataset.FieldError
	switch {
	case errors.As(err, &fe):
		notice = "Not saved: " + err.Error()
	case datasetapi.IsNotFound(err):
		c.renderError(w, r, http.StatusNotFound, "Not found", err.Error()+".")
		return
	case err != nil:
		c.unavailable(w, r, err)
		return
	}
	http.Redirect(w, r, back+"?notice="+url.QueryEscape(notice), http.StatusSeeOther)
}

// datasetVersion downloads a published version as CSV or JSONL.
func (c *Console) datasetVersion(w http.ResponseWriter, r *http.Request) {
	if c.opts.Datasets == nil {
		c.renderError(w, r, http.StatusNotFound, "Datasets unavailable", "Datasets are not served by this collector.")
		return
	}
	t, _ := tenant.FromContext(r.Context())
	slug, file := r.PathValue("slug"), r.PathValue("file")
	version, ext, _ := strings.Cut(file, ".")
	var data []byte
	var err error
	switch ext {
	case "csv":
		data, err = c.opts.Datasets.VersionCSV(r.Context(), t, slug, version)
		w.Header().Set("Content-Type", "text/csv; charset=utf-8")
	case "jsonl":
		data, err = c.opts.Datasets.VersionJSONL(r.Context(), t, slug, version)
		w.Header().Set("Content-Type", "application/x-ndjson")
	default:
		err = fmt.Errorf("no such file %q", file)
	}
	if err != nil {
		w.Header().Del("Content-Type")
		if datasetapi.IsNotFound(err) || ext != "csv" && ext != "jsonl" {
			c.renderError(w, r, http.StatusNotFound, "Not found", "There is no such version of dataset "+quote(truncate(60, slug))+".")
			return
		}
		c.unavailable(w, r, err)
		return
	}
	w.Header().Set("Content-Disposition", "attachment; filename="+strconv.Quote(slug+"-"+file))
	_, _ = w.Write(data)
}
