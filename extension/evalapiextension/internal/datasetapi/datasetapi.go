// Package datasetapi serves /v2/datasets as Traceloop's SDKs call it
// (client.datasets in the Node SDK 0.27.0): datasets of the key's
// organization and project, their columns and rows, and published
// versions read back as CSV or JSONL. Everything is kept as warehouse
// documents (internal/dataset).
package datasetapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/evalcol/evalcol/extension/evalapiextension/internal/httpjson"
	"github.com/evalcol/evalcol/internal/dataset"
	"github.com/evalcol/evalcol/internal/randid"
	"github.com/evalcol/evalcol/internal/tenant"
	"github.com/evalcol/evalcol/internal/warehouse"
)

// Service serves the dataset routes.
type Service struct {
	store warehouse.DocumentStore
	now   func() time.Time
}

// New returns the service over store.
func New(store warehouse.DocumentStore) *Service { return &Service{store: store, now: time.Now} }

// Routes are the service's paths.
func (s *Service) Routes() []httpjson.Route {
	h := func(m map[string]http.HandlerFunc) map[string]http.HandlerFunc { return m }
	return append([]httpjson.Route{
		{Pattern: "/v2/datasets", Handlers: h(map[string]http.HandlerFunc{http.MethodGet: s.list, http.MethodPost: s.create})},
		{Pattern: "/v2/datasets/{slug}", Handlers: h(map[string]http.HandlerFunc{http.MethodGet: s.get, http.MethodPut: s.update, http.MethodDelete: s.delete})},
		{Pattern: "/v2/datasets/{slug}/columns", Handlers: h(map[string]http.HandlerFunc{http.MethodPost: s.addColumn})},
		{Pattern: "/v2/datasets/{slug}/columns/{column}", Handlers: h(map[string]http.HandlerFunc{http.MethodPut: s.updateColumn, http.MethodDelete: s.deleteColumn})},
		{Pattern: "/v2/datasets/{slug}/rows", Handlers: h(map[string]http.HandlerFunc{http.MethodGet: s.rows, http.MethodPost: s.addRows})},
		{Pattern: "/v2/datasets/{slug}/rows/{row}", Handlers: h(map[string]http.HandlerFunc{http.MethodPut: s.updateRow, http.MethodDelete: s.deleteRow})},
		{Pattern: "/v2/datasets/{slug}/publish", Handlers: h(map[string]http.HandlerFunc{http.MethodPost: s.publish})},
		{Pattern: "/v2/datasets/{slug}/override", Handlers: h(map[string]http.HandlerFunc{http.MethodPost: s.override})},
		{Pattern: "/v2/datasets/{slug}/versions", Handlers: h(map[string]http.HandlerFunc{http.MethodGet: s.versions})},
		{Pattern: "/v2/datasets/{slug}/versions/{version}", Handlers: h(map[string]http.HandlerFunc{http.MethodGet: s.versionCSV})},
		{Pattern: "/v2/datasets/{slug}/versions/{version}/jsonl", Handlers: h(map[string]http.HandlerFunc{http.MethodGet: s.versionJSONL})},
	}, s.fileRoutes()...)
}

// errNotFound names what is missing.
type errNotFound struct{ what string }

func (e errNotFound) Error() string { return e.what + " not found" }

// answerError answers err: 400 for a *dataset.FieldError, 404, 409, 503.
func answerError(w http.ResponseWriter, err error) {
	var fe *dataset.FieldError
	var nf errNotFound
	switch {
	case errors.As(err, &fe):
		httpjson.WriteError(w, http.StatusBadRequest, err.Error())
	case errors.As(err, &nf):
		httpjson.WriteError(w, http.StatusNotFound, err.Error())
	case errors.Is(err, warehouse.ErrNotFound):
		httpjson.WriteError(w, http.StatusNotFound, "not found")
	case errors.Is(err, warehouse.ErrConflict):
		httpjson.WriteError(w, http.StatusConflict, "conflict: "+err.Error())
	case warehouse.IsRetryable(err):
		httpjson.WriteError(w, http.StatusServiceUnavailable, "warehouse unavailable, retry later")
	case warehouse.IsQueryError(err):
		httpjson.WriteError(w, http.StatusBadRequest, err.Error())
	default:
		httpjson.WriteError(w, http.StatusInternalServerError, "internal error")
	}
}

// load reads a dataset by slug or id.
func (s *Service) load(ctx context.Context, t tenant.Tenant, key string) (dataset.Dataset, error) {
	d, err := s.store.GetDocument(ctx, dataset.Kind, t.ProjectScope(), key)
	if errors.Is(err, warehouse.ErrNotFound) {
		return dataset.Dataset{}, errNotFound{fmt.Sprintf("dataset %q", key)}
	}
	if err != nil {
		return dataset.Dataset{}, err
	}
	var ds dataset.Dataset
	if err := json.Unmarshal(d.Body, &ds); err != nil {
		return ds, fmt.Errorf("decode dataset %s: %w", d.ID, err)
	}
	ds.ID, ds.Slug, ds.Rev, ds.CreatedAt, ds.UpdatedAt = d.ID, d.Slug, d.Version, d.CreatedAt, d.UpdatedAt
	return ds, nil
}

// save stores a changed dataset (compare-and-set on its Rev).
func (s *Service) save(ctx context.Context, t tenant.Tenant, ds dataset.Dataset) error {
	body, _ := json.Marshal(ds)
	return s.store.UpdateDocument(ctx, warehouse.Document{Kind: dataset.Kind, Scope: t.ProjectScope(), ID: ds.ID, Slug: ds.Slug, Body: body, Version: ds.Rev + 1})
}

// change applies fn to the dataset and saves it, again from a fresh read
// when another request changed it meanwhile.
func (s *Service) change(ctx context.Context, t tenant.Tenant, key string, fn func(*dataset.Dataset) error) (dataset.Dataset, error) {
	for attempt := 0; ; attempt++ {
		ds, err := s.load(ctx, t, key)
		if err != nil {
			return ds, err
		}
		if err := fn(&ds); err != nil {
			return ds, err
		}
		err = s.save(ctx, t, ds)
		if errors.Is(err, warehouse.ErrConflict) && attempt < 5 {
			continue
		}
		if err != nil {
			return ds, err
		}
		return s.load(ctx, t, ds.ID)
	}
}

// view is a dataset as the API answers it: columns keyed by slug, as
// Traceloop's SDKs read them.
func view(ds dataset.Dataset) map[string]any {
	order := make([]string, len(ds.Columns))
	for i, c := range ds.Columns {
		order[i] = c.Slug
	}
	var version any
	if ds.Version != "" {
		version = ds.Version
	}
	return map[string]any{"id": ds.ID, "slug": ds.Slug, "name": ds.Name, "description": ds.Description, "columns": orderedColumns(ds.Columns),
		"column_order": order, "version": version, "published": ds.Published, "row_count": ds.RowCount,
		"created_at": ds.CreatedAt, "updated_at": ds.UpdatedAt}
}

// orderedColumns encodes as a JSON object by column slug, in the
// columns' order (clients list a dataset's columns in the object's key
// order; a Go map would sort them).
type orderedColumns []dataset.Column

// MarshalJSON writes the object.
func (cs orderedColumns) MarshalJSON() ([]byte, error) {
	var buf bytes.Buffer
	buf.WriteByte('{')
	for i, c := range cs {
		if i > 0 {
			buf.WriteByte(',')
		}
		k, _ := json.Marshal(c.Slug)
		v, err := json.Marshal(map[string]any{"name": c.Name, "type": c.Type, "required": c.Required, "description": c.Description})
		if err != nil {
			return nil, err
		}
		buf.Write(k)
		buf.WriteByte(':')
		buf.Write(v)
	}
	buf.WriteByte('}')
	return buf.Bytes(), nil
}

// createRequest is the body of POST /v2/datasets (the Python SDK may send
// columns and rows with it).
type createRequest struct {
	Name        string           `json:"name"`
	Slug        string           `json:"slug"`
	Description string           `json:"description"`
	Columns     []dataset.Column `json:"columns"`
	Rows        []map[string]any `json:"rows"`
}

func (s *Service) create(w http.ResponseWriter, r *http.Request) {
	t, _ := tenant.FromContext(r.Context())
	var req createRequest
	if !httpjson.ReadObject(w, r, &req) {
		return
	}
	if err := dataset.CheckName("name", req.Name); err != nil {
		answerError(w, err)
		return
	}
	if req.Slug == "" {
		req.Slug = dataset.SlugOf(req.Name)
	}
	if !dataset.ValidSlug(req.Slug) {
		answerError(w, &dataset.FieldError{Field: "slug", Msg: fmt.Sprintf("%q is not a dataset slug: 1 to 64 of a-z, 0-9 and '-'", req.Slug)})
		return
	}
	ds := dataset.Dataset{ID: randid.New(), Slug: req.Slug, Name: req.Name, Description: req.Description}
	for i, c := range req.Columns {
		col, err := ds.NewColumn(c)
		if err != nil {
			var fe *dataset.FieldError
			if errors.As(err, &fe) {
				fe.Field = fmt.Sprintf("columns[%d].%s", i, fe.Field)
			}
			answerError(w, err)
			return
		}
		ds.Columns = append(ds.Columns, col)
	}
	rows, err := s.checkRows(&ds, req.Rows)
	if err != nil {
		answerError(w, err)
		return
	}
	ds.RowCount = len(rows)
	body, _ := json.Marshal(ds)
	if err := s.store.CreateDocument(r.Context(), warehouse.Document{Kind: dataset.Kind, Scope: t.ProjectScope(), ID: ds.ID, Slug: ds.Slug, Body: body}); err != nil {
		if errors.Is(err, warehouse.ErrConflict) {
			httpjson.WriteError(w, http.StatusConflict, fmt.Sprintf("a dataset with slug %q exists", ds.Slug))
			return
		}
		answerError(w, err)
		return
	}
	if _, err := s.storeRows(r.Context(), ds, rows); err != nil {
		answerError(w, err)
		return
	}
	s.answerWithRows(w, r, t, ds.ID, http.StatusCreated)
}

// answerWithRows answers a dataset with its first rows (Traceloop's
// Python SDK reads the rows of a created or fetched dataset).
func (s *Service) answerWithRows(w http.ResponseWriter, r *http.Request, t tenant.Tenant, key string, status int) {
	ds, rows, err := s.Rows(r.Context(), t, key, warehouse.MaxDocumentPage, 0)
	if err != nil {
		answerError(w, err)
		return
	}
	out := view(ds)
	out["rows"] = rows
	httpjson.WriteJSON(w, status, out)
}

func (s *Service) list(w http.ResponseWriter, r *http.Request) {
	t, _ := tenant.FromContext(r.Context())
	docs, err := s.store.ListDocuments(r.Context(), warehouse.DocumentQuery{Kind: dataset.Kind, Scope: t.ProjectScope()})
	if err != nil {
		answerError(w, err)
		return
	}
	out := make([]map[string]any, 0, len(docs))
	for _, d := range docs {
		var ds dataset.Dataset
		if err := json.Unmarshal(d.Body, &ds); err != nil {
			answerError(w, err)
			return
		}
		ds.ID, ds.Slug, ds.CreatedAt, ds.UpdatedAt = d.ID, d.Slug, d.CreatedAt, d.UpdatedAt
		out = append(out, view(ds))
	}
	httpjson.WriteJSON(w, http.StatusOK, map[string]any{"datasets": out, "total": len(out)})
}

func (s *Service) get(w http.ResponseWriter, r *http.Request) {
	t, _ := tenant.FromContext(r.Context())
	s.answerWithRows(w, r, t, r.PathValue("slug"), http.StatusOK)
}

func (s *Service) update(w http.ResponseWriter, r *http.Request) {
	t, _ := tenant.FromContext(r.Context())
	var req struct {
		Name        *string `json:"name"`
		Description *string `json:"description"`
	}
	if !httpjson.ReadObject(w, r, &req) {
		return
	}
	ds, err := s.change(r.Context(), t, r.PathValue("slug"), func(ds *dataset.Dataset) error {
		if req.Name != nil {
			if err := dataset.CheckName("name", *req.Name); err != nil {
				return err
			}
			ds.Name = *req.Name
		}
		if req.Description != nil {
			ds.Description = *req.Description
		}
		return nil
	})
	if err != nil {
		answerError(w, err)
		return
	}
	httpjson.WriteJSON(w, http.StatusOK, view(ds))
}

// deleteAll removes every document of a kind and scope, a page at a time.
func (s *Service) deleteAll(ctx context.Context, kind, sc string) error {
	for {
		docs, err := s.store.ListDocuments(ctx, warehouse.DocumentQuery{Kind: kind, Scope: sc})
		if err != nil {
			return err
		}
		if len(docs) == 0 {
			return nil
		}
		for _, d := range docs {
			if err := s.store.DeleteDocument(ctx, kind, sc, d.ID); err != nil && !errors.Is(err, warehouse.ErrNotFound) {
				return err
			}
		}
	}
}

func (s *Service) delete(w http.ResponseWriter, r *http.Request) {
	t, _ := tenant.FromContext(r.Context())
	ds, err := s.load(r.Context(), t, r.PathValue("slug"))
	if err != nil {
		answerError(w, err)
		return
	}
	// The definition goes first: the dataset is gone for every reader at
	// once; its rows and versions follow.
	if err := s.store.DeleteDocument(r.Context(), dataset.Kind, t.ProjectScope(), ds.ID); err != nil {
		answerError(w, err)
		return
	}
	versions, err := s.store.ListDocuments(r.Context(), warehouse.DocumentQuery{Kind: dataset.VersionKind, Scope: ds.ID})
	if err == nil {
		for _, v := range versions {
			if err = s.deleteAll(r.Context(), dataset.ChunkKind, ds.ID+"@"+v.ID); err != nil {
				break
			}
		}
	}
	if err == nil {
		err = s.deleteAll(r.Context(), dataset.VersionKind, ds.ID)
	}
	if err == nil {
		err = s.deleteAll(r.Context(), dataset.RowKind, ds.ID)
	}
	if err != nil {
		answerError(w, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

func (s *Service) addColumn(w http.ResponseWriter, r *http.Request) {
	t, _ := tenant.FromContext(r.Context())
	var c dataset.Column
	if !httpjson.ReadObject(w, r, &c) {
		return
	}
	var added dataset.Column
	ds, err := s.change(r.Context(), t, r.PathValue("slug"), func(ds *dataset.Dataset) error {
		col, err := ds.NewColumn(c)
		if err != nil {
			return err
		}
		added = col
		ds.Columns = append(ds.Columns, col)
		return nil
	})
	if err != nil {
		answerError(w, err)
		return
	}
	httpjson.WriteJSON(w, http.StatusCreated, map[string]any{"slug": added.Slug, "name": added.Name, "type": added.Type,
		"required": added.Required, "description": added.Description, "created_at": ds.UpdatedAt, "updated_at": ds.UpdatedAt})
}

func (s *Service) updateColumn(w http.ResponseWriter, r *http.Request) {
	t, _ := tenant.FromContext(r.Context())
	var req struct {
		Name        *string `json:"name"`
		Type        *string `json:"type"`
		Description *string `json:"description"`
		Required    *bool   `json:"required"`
	}
	if !httpjson.ReadObject(w, r, &req) {
		return
	}
	key := r.PathValue("column")
	ds, err := s.change(r.Context(), t, r.PathValue("slug"), func(ds *dataset.Dataset) error {
		for i, c := range ds.Columns {
			if c.Slug != key {
				continue
			}
			if req.Name != nil {
				if err := dataset.CheckName("name", *req.Name); err != nil {
					return err
				}
				c.Name = *req.Name
			}
			if req.Type != nil {
				c.Type = *req.Type
			}
			if req.Description != nil {
				c.Description = *req.Description
			}
			if req.Required != nil {
				c.Required = *req.Required
			}
			rest := append(append([]dataset.Column{}, ds.Columns[:i]...), ds.Columns[i+1:]...)
			probe := dataset.Dataset{Columns: rest}
			checked, err := probe.NewColumn(c)
			if err != nil {
				return err
			}
			ds.Columns[i] = checked
			return nil
		}
		return errNotFound{fmt.Sprintf("column %q", key)}
	})
	if err != nil {
		answerError(w, err)
		return
	}
	httpjson.WriteJSON(w, http.StatusOK, view(ds))
}

func (s *Service) deleteColumn(w http.ResponseWriter, r *http.Request) {
	t, _ := tenant.FromContext(r.Context())
	key := r.PathValue("column")
	_, err := s.change(r.Context(), t, r.PathValue("slug"), func(ds *dataset.Dataset) error {
		for i, c := range ds.Columns {
			if c.Slug == key {
				ds.Columns = append(ds.Columns[:i], ds.Columns[i+1:]...)
				return nil
			}
		}
		return errNotFound{fmt.Sprintf("column %q", key)}
	})
	if err != nil {
		answerError(w, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// checkRows validates new rows of ds.
func (s *Service) checkRows(ds *dataset.Dataset, in []map[string]any) ([]map[string]any, error) {
	if len(in) > dataset.MaxRowsPerPost {
		return nil, &dataset.FieldError{Field: "rows", Msg: fmt.Sprintf("at most %d rows a request", dataset.MaxRowsPerPost)}
	}
	if ds.RowCount+len(in) > dataset.MaxRows {
		return nil, &dataset.FieldError{Field: "rows", Msg: fmt.Sprintf("a dataset holds at most %d rows (it has %d)", dataset.MaxRows, ds.RowCount)}
	}
	out := make([]map[string]any, len(in))
	for i, row := range in {
		v, err := ds.CheckValues(row, false)
		if err != nil {
			var fe *dataset.FieldError
			if errors.As(err, &fe) {
				fe.Field = fmt.Sprintf("rows[%d].%s", i, fe.Field)
			}
			return nil, err
		}
		out[i] = v
	}
	return out, nil
}

// storeRows stores checked rows of ds.
func (s *Service) storeRows(ctx context.Context, ds dataset.Dataset, rows []map[string]any) ([]dataset.Row, error) {
	now := s.now().UTC()
	out := make([]dataset.Row, 0, len(rows))
	for _, values := range rows {
		row := dataset.Row{ID: randid.New(), Values: values, CreatedAt: now, UpdatedAt: now}
		body, _ := json.Marshal(row)
		if err := s.store.CreateDocument(ctx, warehouse.Document{Kind: dataset.RowKind, Scope: ds.ID, ID: row.ID, Body: body}); err != nil {
			return out, err
		}
		out = append(out, row)
	}
	return out, nil
}

// Append adds rows to the tenant's dataset named name (created with
// columns cols when it does not exist; columns it lacks are added),
// leaving out the rows whose value of the column key equals that of a row
// the dataset holds. It returns the dataset and how many rows it added.
func (s *Service) Append(ctx context.Context, t tenant.Tenant, name string, cols []dataset.Column, key string, rows []map[string]any) (dataset.Dataset, int, error) {
	slug := dataset.SlugOf(name)
	if err := dataset.CheckName("name", name); err != nil {
		return dataset.Dataset{}, 0, err
	}
	if !dataset.ValidSlug(slug) {
		return dataset.Dataset{}, 0, &dataset.FieldError{Field: "name", Msg: fmt.Sprintf("%q makes no slug: use letters or digits", name)}
	}
	if _, err := s.load(ctx, t, slug); err != nil {
		var nf errNotFound
		if !errors.As(err, &nf) {
			return dataset.Dataset{}, 0, err
		}
		ds := dataset.Dataset{ID: randid.New(), Slug: slug, Name: name}
		body, _ := json.Marshal(ds)
		if err := s.store.CreateDocument(ctx, warehouse.Document{Kind: dataset.Kind, Scope: t.ProjectScope(), ID: ds.ID, Slug: ds.Slug, Body: body}); err != nil && !errors.Is(err, warehouse.ErrConflict) {
			return dataset.Dataset{}, 0, err
		}
	}
	var fresh []map[string]any
	ds, err := s.change(ctx, t, slug, func(ds *dataset.Dataset) error {
		for _, c := range cols {
			if _, ok := ds.Column(c.Slug); ok {
				continue
			}
			col, err := ds.NewColumn(c)
			if err != nil {
				return err
			}
			ds.Columns = append(ds.Columns, col)
		}
		have := map[any]bool{}
		if key != "" {
			existing, err := s.allRows(ctx, *ds)
			if err != nil {
				return err
			}
			for _, r := range existing {
				have[r[key]] = true
			}
		}
		fresh = fresh[:0]
		for _, r := range rows {
			if key == "" || !have[r[key]] {
				fresh = append(fresh, r)
			}
		}
		var err error
		if fresh, err = s.checkRows(ds, fresh); err != nil {
			return err
		}
		ds.RowCount += len(fresh)
		return nil
	})
	if err != nil {
		return ds, 0, err
	}
	if _, err := s.storeRows(ctx, ds, fresh); err != nil {
		return ds, 0, err
	}
	return ds, len(fresh), nil
}

// override replaces a dataset's rows (and, when the body names them, its
// columns) with the body's: {"columns": [...], "rows": [...]} (or
// "Rows"). The new rows are checked first; nothing changes when one is
// bad. Published versions stay as they are.
func (s *Service) override(w http.ResponseWriter, r *http.Request) {
	t, _ := tenant.FromContext(r.Context())
	body, rows, ok := readRows(w, r)
	if !ok {
		return
	}
	var req struct {
		Columns []dataset.Column `json:"columns"`
	}
	_ = json.Unmarshal(body, &req) // readRows read it: it is an object
	var checked []map[string]any
	ds, err := s.change(r.Context(), t, r.PathValue("slug"), func(ds *dataset.Dataset) error {
		if req.Columns != nil {
			next := dataset.Dataset{}
			for i, c := range req.Columns {
				col, err := next.NewColumn(c)
				if err != nil {
					var fe *dataset.FieldError
					if errors.As(err, &fe) {
						fe.Field = fmt.Sprintf("columns[%d].%s", i, fe.Field)
					}
					return err
				}
				next.Columns = append(next.Columns, col)
			}
			ds.Columns = next.Columns
		}
		ds.RowCount = 0
		var err error
		if checked, err = s.checkRows(ds, rows); err != nil {
			return err
		}
		ds.RowCount = len(checked)
		return nil
	})
	if err != nil {
		answerError(w, err)
		return
	}
	// The definition says the new count; the old rows go, the new come.
	if err := s.deleteAll(r.Context(), dataset.RowKind, ds.ID); err != nil {
		answerError(w, err)
		return
	}
	if _, err := s.storeRows(r.Context(), ds, checked); err != nil {
		answerError(w, err)
		return
	}
	s.answerWithRows(w, r, t, ds.ID, http.StatusOK)
}

// readRows reads a body of rows, answering 413 or 400 itself when it
// cannot (ok false).
func readRows(w http.ResponseWriter, r *http.Request) (body []byte, rows []map[string]any, ok bool) {
	if body, ok = httpjson.ReadBody(w, r); !ok {
		return nil, nil, false
	}
	rows, err := decodeRows(body)
	if err != nil {
		var fe *dataset.FieldError
		if !errors.As(err, &fe) {
			err = &dataset.FieldError{Field: "body", Msg: err.Error()}
		}
		answerError(w, err)
		return nil, nil, false
	}
	return body, rows, true
}

// decodeStrictRows reads {"Rows": [...]} (Node SDK) or {"rows": [...]}
// (Python SDK).
func decodeRows(body []byte) ([]map[string]any, error) {
	var req map[string]json.RawMessage
	if err := httpjson.DecodeObject(body, &req); err != nil {
		return nil, err
	}
	raw, ok := req["Rows"]
	if !ok {
		raw, ok = req["rows"]
	}
	if !ok {
		return nil, &dataset.FieldError{Field: "rows", Msg: "send {\"rows\": [{column: value, ...}, ...]}"}
	}
	var rows []map[string]any
	dec := json.NewDecoder(bytes.NewReader(raw))
	if err := dec.Decode(&rows); err != nil {
		return nil, &dataset.FieldError{Field: "rows", Msg: "must be a list of objects: " + err.Error()}
	}
	return rows, nil
}

func (s *Service) addRows(w http.ResponseWriter, r *http.Request) {
	t, _ := tenant.FromContext(r.Context())
	_, in, ok := readRows(w, r)
	if !ok {
		return
	}
	var checked []map[string]any
	ds, err := s.change(r.Context(), t, r.PathValue("slug"), func(ds *dataset.Dataset) error {
		var err error
		if checked, err = s.checkRows(ds, in); err != nil {
			return err
		}
		ds.RowCount += len(checked) // counted first: a failed write leaves the count high, never the rows uncounted
		return nil
	})
	if err != nil {
		answerError(w, err)
		return
	}
	rows, err := s.storeRows(r.Context(), ds, checked)
	if err != nil {
		answerError(w, err)
		return
	}
	httpjson.WriteJSON(w, http.StatusCreated, map[string]any{"rows": rows, "total": len(rows)})
}

func (s *Service) rows(w http.ResponseWriter, r *http.Request) {
	t, _ := tenant.FromContext(r.Context())
	limit, offset := 100, 0
	var err error
	if v := r.URL.Query().Get("limit"); v != "" {
		if limit, err = strconv.Atoi(v); err != nil || limit < 1 || limit > warehouse.MaxDocumentPage {
			httpjson.WriteError(w, http.StatusBadRequest, fmt.Sprintf("limit: %q is not a number from 1 to %d", v, warehouse.MaxDocumentPage))
			return
		}
	}
	if v := r.URL.Query().Get("offset"); v != "" {
		if offset, err = strconv.Atoi(v); err != nil || offset < 0 || offset > dataset.MaxRows {
			httpjson.WriteError(w, http.StatusBadRequest, fmt.Sprintf("offset: %q is not a number from 0 to %d", v, dataset.MaxRows))
			return
		}
	}
	ds, rows, err := s.Rows(r.Context(), t, r.PathValue("slug"), limit, offset)
	if err != nil {
		answerError(w, err)
		return
	}
	httpjson.WriteJSON(w, http.StatusOK, map[string]any{"rows": rows, "total": ds.RowCount, "limit": limit, "offset": offset})
}

// Get returns the tenant's dataset whose slug or id is key.
func (s *Service) Get(ctx context.Context, t tenant.Tenant, key string) (dataset.Dataset, error) {
	return s.load(ctx, t, key)
}

// IsNotFound reports whether err says that a dataset, row or version
// does not exist.
func IsNotFound(err error) bool {
	var nf errNotFound
	return errors.As(err, &nf)
}

// Rows returns a page of a dataset's rows in insertion order.
func (s *Service) Rows(ctx context.Context, t tenant.Tenant, key string, limit, offset int) (dataset.Dataset, []dataset.Row, error) {
	ds, err := s.load(ctx, t, key)
	if err != nil {
		return ds, nil, err
	}
	docs, err := s.store.ListDocuments(ctx, warehouse.DocumentQuery{Kind: dataset.RowKind, Scope: ds.ID, Limit: limit, Offset: offset})
	if err != nil {
		return ds, nil, err
	}
	rows := make([]dataset.Row, 0, len(docs))
	for _, d := range docs {
		var row dataset.Row
		if err := json.Unmarshal(d.Body, &row); err != nil {
			return ds, nil, fmt.Errorf("decode row %s: %w", d.ID, err)
		}
		rows = append(rows, row)
	}
	return ds, rows, nil
}

func (s *Service) updateRow(w http.ResponseWriter, r *http.Request) {
	t, _ := tenant.FromContext(r.Context())
	var req map[string]map[string]any
	if !httpjson.ReadObject(w, r, &req) {
		return
	}
	values, ok := req["Values"]
	if !ok {
		values, ok = req["values"]
	}
	if !ok {
		httpjson.WriteError(w, http.StatusBadRequest, `values: send {"values": {column: value, ...}}`)
		return
	}
	row, err := s.UpdateRow(r.Context(), t, r.PathValue("slug"), r.PathValue("row"), values)
	if err != nil {
		answerError(w, err)
		return
	}
	httpjson.WriteJSON(w, http.StatusOK, row)
}

// UpdateRow changes some values of a row (by column slug or name).
func (s *Service) UpdateRow(ctx context.Context, t tenant.Tenant, key, rowID string, values map[string]any) (dataset.Row, error) {
	ds, err := s.load(ctx, t, key)
	if err != nil {
		return dataset.Row{}, err
	}
	checked, err := ds.CheckValues(values, true)
	if err != nil {
		return dataset.Row{}, err
	}
	d, err := s.store.GetDocument(ctx, dataset.RowKind, ds.ID, rowID)
	if errors.Is(err, warehouse.ErrNotFound) {
		return dataset.Row{}, errNotFound{fmt.Sprintf("row %q", rowID)}
	}
	if err != nil {
		return dataset.Row{}, err
	}
	var row dataset.Row
	if err := json.Unmarshal(d.Body, &row); err != nil {
		return row, fmt.Errorf("decode row %s: %w", rowID, err)
	}
	if row.Values == nil {
		row.Values = map[string]any{}
	}
	for k, v := range checked {
		row.Values[k] = v
	}
	row.UpdatedAt = s.now().UTC()
	d.Body, _ = json.Marshal(row)
	d.Version++
	return row, s.store.UpdateDocument(ctx, d)
}

func (s *Service) deleteRow(w http.ResponseWriter, r *http.Request) {
	t, _ := tenant.FromContext(r.Context())
	ds, err := s.load(r.Context(), t, r.PathValue("slug"))
	if err != nil {
		answerError(w, err)
		return
	}
	if err := s.store.DeleteDocument(r.Context(), dataset.RowKind, ds.ID, r.PathValue("row")); err != nil {
		if errors.Is(err, warehouse.ErrNotFound) {
			err = errNotFound{fmt.Sprintf("row %q", r.PathValue("row"))}
		}
		answerError(w, err)
		return
	}
	if _, err := s.change(r.Context(), t, ds.ID, func(ds *dataset.Dataset) error {
		ds.RowCount = max(ds.RowCount-1, 0)
		return nil
	}); err != nil {
		answerError(w, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// allRows reads every row of ds in order.
func (s *Service) allRows(ctx context.Context, ds dataset.Dataset) ([]map[string]any, error) {
	var out []map[string]any
	var after int64
	for {
		docs, err := s.store.ListDocuments(ctx, warehouse.DocumentQuery{Kind: dataset.RowKind, Scope: ds.ID, AfterSeq: after})
		if err != nil {
			return nil, err
		}
		for _, d := range docs {
			var row dataset.Row
			if err := json.Unmarshal(d.Body, &row); err != nil {
				return nil, fmt.Errorf("decode row %s: %w", d.ID, err)
			}
			out = append(out, row.Values)
		}
		if len(docs) < warehouse.MaxDocumentPage {
			return out, nil
		}
		after = docs[len(docs)-1].Seq
	}
}

func (s *Service) publish(w http.ResponseWriter, r *http.Request) {
	t, _ := tenant.FromContext(r.Context())
	ds, err := s.Publish(r.Context(), t, r.PathValue("slug"))
	if errors.Is(err, errPublishRace) {
		httpjson.WriteError(w, http.StatusConflict, err.Error())
		return
	}
	if err != nil {
		answerError(w, err)
		return
	}
	httpjson.WriteJSON(w, http.StatusOK, view(ds))
}

// errPublishRace is a publish that met another at once.
var errPublishRace = errors.New("another publish of this dataset ran at the same time; publish again")

// Publish snapshots the dataset's rows as its next version.
func (s *Service) Publish(ctx context.Context, t tenant.Tenant, key string) (dataset.Dataset, error) {
	ds, err := s.load(ctx, t, key)
	if err != nil {
		return ds, err
	}
	rows, err := s.allRows(ctx, ds)
	if err != nil {
		return ds, err
	}
	existing, err := s.store.ListDocuments(ctx, warehouse.DocumentQuery{Kind: dataset.VersionKind, Scope: ds.ID})
	if err != nil {
		return ds, err
	}
	v := dataset.Version{Version: "v" + strconv.Itoa(len(existing)+1), RowCount: len(rows), Columns: ds.Columns, PublishedAt: s.now().UTC()}
	// The rows as JSONL, in chunks; the version document is written last,
	// so a version that exists is whole.
	data := dataset.JSONL(ds.Columns, rows)
	for start := 0; start < len(data); v.Chunks++ {
		end := min(start+dataset.ChunkBytes, len(data))
		if i := bytes.LastIndexByte(data[start:end], '\n'); end < len(data) && i > 0 {
			end = start + i + 1
		}
		chunk, _ := json.Marshal(string(data[start:end]))
		if err := s.store.CreateDocument(ctx, warehouse.Document{Kind: dataset.ChunkKind, Scope: ds.ID + "@" + v.Version,
			ID: fmt.Sprintf("%06d", v.Chunks), Body: chunk}); err != nil {
			if errors.Is(err, warehouse.ErrConflict) {
				return ds, errPublishRace
			}
			return ds, err
		}
		start = end
	}
	body, _ := json.Marshal(struct {
		dataset.Version
		Chunks int `json:"chunks"`
	}{v, v.Chunks})
	if err := s.store.CreateDocument(ctx, warehouse.Document{Kind: dataset.VersionKind, Scope: ds.ID, ID: v.Version, Body: body}); err != nil {
		if errors.Is(err, warehouse.ErrConflict) {
			return ds, errPublishRace
		}
		return ds, err
	}
	return s.change(ctx, t, ds.ID, func(ds *dataset.Dataset) error {
		ds.Version, ds.Published = v.Version, true
		return nil
	})
}

func (s *Service) versions(w http.ResponseWriter, r *http.Request) {
	t, _ := tenant.FromContext(r.Context())
	ds, out, err := s.Versions(r.Context(), t, r.PathValue("slug"))
	if err != nil {
		answerError(w, err)
		return
	}
	httpjson.WriteJSON(w, http.StatusOK, map[string]any{"dataset_id": ds.ID, "dataset_slug": ds.Slug, "versions": out, "total": len(out)})
}

// Versions returns a dataset's published versions, oldest first.
func (s *Service) Versions(ctx context.Context, t tenant.Tenant, key string) (dataset.Dataset, []dataset.Version, error) {
	ds, err := s.load(ctx, t, key)
	if err != nil {
		return ds, nil, err
	}
	docs, err := s.store.ListDocuments(ctx, warehouse.DocumentQuery{Kind: dataset.VersionKind, Scope: ds.ID})
	if err != nil {
		return ds, nil, err
	}
	out := make([]dataset.Version, 0, len(docs))
	for _, d := range docs {
		var v dataset.Version
		if err := json.Unmarshal(d.Body, &v); err != nil {
			return ds, nil, fmt.Errorf("decode version %s: %w", d.ID, err)
		}
		out = append(out, v)
	}
	return ds, out, nil
}

// VersionJSONL returns a published version as JSONL.
func (s *Service) VersionJSONL(ctx context.Context, t tenant.Tenant, key, version string) ([]byte, error) {
	return s.versionData(ctx, t, key, version)
}

// VersionCSV returns a published version as CSV.
func (s *Service) VersionCSV(ctx context.Context, t tenant.Tenant, key, version string) ([]byte, error) {
	data, err := s.versionData(ctx, t, key, version)
	if err != nil {
		return nil, err
	}
	lines := bytes.Split(bytes.TrimRight(data, "\n"), []byte("\n"))
	var head struct {
		Columns []dataset.Column `json:"columns"`
	}
	if err := json.Unmarshal(lines[0], &head); err != nil {
		return nil, fmt.Errorf("decode version header: %w", err)
	}
	rows := make([]map[string]any, 0, len(lines)-1)
	for _, l := range lines[1:] {
		var row map[string]any
		if err := json.Unmarshal(l, &row); err != nil {
			return nil, fmt.Errorf("decode version row: %w", err)
		}
		rows = append(rows, row)
	}
	return dataset.CSV(head.Columns, rows), nil
}

// versionData reads a published version's JSONL.
func (s *Service) versionData(ctx context.Context, t tenant.Tenant, slug, version string) ([]byte, error) {
	ds, err := s.load(ctx, t, slug)
	if err != nil {
		return nil, err
	}
	vd, err := s.store.GetDocument(ctx, dataset.VersionKind, ds.ID, version)
	if errors.Is(err, warehouse.ErrNotFound) {
		return nil, errNotFound{fmt.Sprintf("version %q of dataset %q", version, slug)}
	}
	if err != nil {
		return nil, err
	}
	var v struct {
		Chunks int `json:"chunks"`
	}
	if err := json.Unmarshal(vd.Body, &v); err != nil {
		return nil, fmt.Errorf("decode version: %w", err)
	}
	var buf bytes.Buffer
	for i := range v.Chunks {
		d, err := s.store.GetDocument(ctx, dataset.ChunkKind, ds.ID+"@"+version, fmt.Sprintf("%06d", i))
		if err != nil {
			return nil, fmt.Errorf("read version %s chunk %d: %w", version, i, err)
		}
		var part string
		if err := json.Unmarshal(d.Body, &part); err != nil {
			return nil, fmt.Errorf("decode version chunk: %w", err)
		}
		buf.WriteString(part)
	}
	return buf.Bytes(), nil
}

func (s *Service) versionJSONL(w http.ResponseWriter, r *http.Request) {
	t, _ := tenant.FromContext(r.Context())
	data, err := s.versionData(r.Context(), t, r.PathValue("slug"), r.PathValue("version"))
	if err != nil {
		answerError(w, err)
		return
	}
	w.Header().Set("Content-Type", "application/x-ndjson")
	_, _ = w.Write(data)
}

func (s *Service) versionCSV(w http.ResponseWriter, r *http.Request) {
	t, _ := tenant.FromContext(r.Context())
	out, err := s.VersionCSV(r.Context(), t, r.PathValue("slug"), r.PathValue("version"))
	if err != nil {
		answerError(w, err)
		return
	}
	// Traceloop's Node SDK 0.27.0 (getVersionCSV) accepts only a JSON
	// string; other clients get text/csv.
	if r.Header.Get("X-Traceloop-SDK-Version") != "" && !strings.Contains(r.Header.Get("Accept"), "text/csv") {
		httpjson.WriteJSON(w, http.StatusOK, string(out))
		return
	}
	w.Header().Set("Content-Type", "text/csv; charset=utf-8")
	_, _ = w.Write(out)
}
