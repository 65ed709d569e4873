package httpapi

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"

	"github.com/evalcol/evalcol/extension/evalapiextension/internal/setups"
	"github.com/evalcol/evalcol/internal/cursorseal"
	"github.com/evalcol/evalcol/internal/tenant"
	"github.com/evalcol/evalcol/internal/warehouse"
)

// SetupService manages auto monitor setups for the API (setups.Service).
type SetupService interface {
	Create(ctx context.Context, t tenant.Tenant, r setups.Request) (warehouse.MonitorSetup, error)
	Get(ctx context.Context, t tenant.Tenant, id string) (warehouse.MonitorSetup, error)
	List(ctx context.Context, t tenant.Tenant, q warehouse.SetupQuery) (warehouse.SetupPage, error)
	Update(ctx context.Context, t tenant.Tenant, id string, r setups.Request) (warehouse.MonitorSetup, error)
	Delete(ctx context.Context, t tenant.Tenant, id string) error
}

func (a *API) createSetup(w http.ResponseWriter, r *http.Request) {
	req, ok := a.parseSetupRequest(w, r, setups.ParseRequest)
	if !ok {
		return
	}
	t, _ := tenant.FromContext(r.Context())
	s, err := a.opts.Setups.Create(r.Context(), t, req)
	if err != nil {
		a.writeSetupError(w, err, req.ExternalID)
		return
	}
	w.Header().Set("Location", "/v2/auto-monitor-setups/"+s.ID)
	writeJSON(w, http.StatusCreated, s)
}

func (a *API) updateSetup(w http.ResponseWriter, r *http.Request) {
	req, ok := a.parseSetupRequest(w, r, setups.ParseUpdate)
	if !ok {
		return
	}
	t, _ := tenant.FromContext(r.Context())
	s, err := a.opts.Setups.Update(r.Context(), t, r.PathValue("id"), req)
	if err != nil {
		a.writeSetupError(w, err, req.ExternalID)
		return
	}
	writeJSON(w, http.StatusOK, s)
}

func (a *API) parseSetupRequest(w http.ResponseWriter, r *http.Request, parse func([]byte) (setups.Request, error)) (setups.Request, bool) {
	body, ok := readBody(w, r)
	if !ok {
		return setups.Request{}, false
	}
	req, err := parse(body)
	if err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return setups.Request{}, false
	}
	return req, true
}

func (a *API) getSetup(w http.ResponseWriter, r *http.Request) {
	t, _ := tenant.FromContext(r.Context())
	s, err := a.opts.Setups.Get(r.Context(), t, r.PathValue("id"))
	if err != nil {
		a.writeSetupError(w, err, "")
		return
	}
	writeJSON(w, http.StatusOK, s)
}

func (a *API) deleteSetup(w http.ResponseWriter, r *http.Request) {
	t, _ := tenant.FromContext(r.Context())
	if err := a.opts.Setups.Delete(r.Context(), t, r.PathValue("id")); err != nil {
		a.writeSetupError(w, err, "")
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// listSetups answers a bare JSON array of setups, as Traceloop's backend
// does; the cursor of the next page is in the X-Next-Cursor header, absent
// on the last page.
func (a *API) listSetups(w http.ResponseWriter, r *http.Request) {
	v := r.URL.Query()
	q := warehouse.SetupQuery{
		EntityType: v.Get("entity_type"), EntityValue: v.Get("entity_value"),
		ExternalID: v.Get("external_id"), Status: v.Get("status"), Cursor: v.Get("cursor"),
	}
	if s := v.Get("limit"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > setups.MaxListLimit {
			writeError(w, http.StatusBadRequest, fmt.Sprintf("limit: must be an integer between 1 and %d", setups.MaxListLimit))
			return
		}
		q.Limit = n
	}
	t, _ := tenant.FromContext(r.Context())
	var err error
	if q.Cursor, err = a.openCursor(r.Context(), cursorseal.Setups, t.Environment, q.Cursor); err != nil {
		a.writeStoreError(w, err)
		return
	}
	page, err := a.opts.Setups.List(r.Context(), t, q)
	if err != nil {
		a.writeSetupError(w, err, "")
		return
	}
	if page.Setups == nil {
		page.Setups = []warehouse.MonitorSetup{}
	}
	next, err := a.opts.Cursors.Seal(r.Context(), cursorseal.Setups, t.Environment, page.NextCursor)
	if err != nil {
		a.writeStoreError(w, err)
		return
	}
	if next != "" {
		w.Header().Set(NextCursorHeader, next)
	}
	writeJSON(w, http.StatusOK, page.Setups)
}

// NextCursorHeader carries the cursor of the next page of a listing.
const NextCursorHeader = "X-Next-Cursor"

func (a *API) writeSetupError(w http.ResponseWriter, err error, externalID string) {
	var fe *setups.FieldError
	var le *setups.LimitError
	switch {
	case errors.As(err, &fe):
		writeError(w, http.StatusBadRequest, fe.Error())
	case errors.As(err, &le):
		writeError(w, http.StatusConflict, le.Error())
	case errors.Is(err, warehouse.ErrNotFound):
		writeError(w, http.StatusNotFound, "auto monitor setup not found")
	case errors.Is(err, warehouse.ErrConflict):
		writeError(w, http.StatusConflict, "external_id: a setup with external_id "+quote(externalID)+" already exists in this project")
	default:
		a.writeStoreError(w, err)
	}
}
