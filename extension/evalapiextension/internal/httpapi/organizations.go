package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"

	"github.com/evalcol/evalcol/internal/organizations"
	"github.com/evalcol/evalcol/internal/tenant"
	"github.com/evalcol/evalcol/internal/warehouse"
)

// OrganizationService manages runtime organizations and their API keys
// (organizations.Service).
type OrganizationService interface {
	Create(ctx context.Context, r organizations.CreateRequest) (organizations.Created, error)
	List(ctx context.Context) ([]organizations.OrganizationView, error)
	Get(ctx context.Context, id string) (organizations.OrganizationView, error)
	AddEnvironment(ctx context.Context, orgID, slug string) (organizations.NewKey, error)
	IssueKey(ctx context.Context, orgID, slug string) (organizations.NewKey, error)
	RotateKey(ctx context.Context, orgID, keyID string) (organizations.NewKey, error)
	RevokeKey(ctx context.Context, orgID, keyID string) error
}

// adminOnly answers 403 unless the request's key has the admin role.
func adminOnly(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if t, _ := tenant.FromContext(r.Context()); !t.Admin {
			writeError(w, http.StatusForbidden, "this API key may not manage organizations: that takes a key with role: admin in the evalapi api_keys")
			return
		}
		h(w, r)
	}
}

// decodeStrict decodes body as one JSON object into v, rejecting unknown
// fields.
func decodeStrict(body []byte, v any) error {
	if len(bytes.TrimSpace(body)) == 0 {
		return errors.New("request body is empty: send a JSON object")
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return errors.New("request body: " + err.Error())
	}
	if dec.More() {
		return errors.New("request body has data after the JSON object")
	}
	return nil
}

func (a *API) createOrganization(w http.ResponseWriter, r *http.Request) {
	body, ok := readBody(w, r)
	if !ok {
		return
	}
	var req organizations.CreateRequest
	if err := decodeStrict(body, &req); err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	created, err := a.opts.Organizations.Create(r.Context(), req)
	if err != nil {
		a.writeOrgError(w, err)
		return
	}
	writeJSON(w, http.StatusCreated, created)
}

func (a *API) listOrganizations(w http.ResponseWriter, r *http.Request) {
	orgs, err := a.opts.Organizations.List(r.Context())
	if err != nil {
		a.writeOrgError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, orgs)
}

func (a *API) getOrganization(w http.ResponseWriter, r *http.Request) {
	org, err := a.opts.Organizations.Get(r.Context(), r.PathValue("org_id"))
	if err != nil {
		a.writeOrgError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, org)
}

// addEnvironmentRequest is the body of POST
// /v2/organizations/<org_id>/environments.
type addEnvironmentRequest struct {
	Slug string `json:"slug"`
}

func (a *API) addEnvironment(w http.ResponseWriter, r *http.Request) {
	body, ok := readBody(w, r)
	if !ok {
		return
	}
	var req addEnvironmentRequest
	if err := decodeStrict(body, &req); err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	k, err := a.opts.Organizations.AddEnvironment(r.Context(), r.PathValue("org_id"), req.Slug)
	if err != nil {
		a.writeOrgError(w, err)
		return
	}
	writeJSON(w, http.StatusCreated, k)
}

func (a *API) issueKey(w http.ResponseWriter, r *http.Request) {
	k, err := a.opts.Organizations.IssueKey(r.Context(), r.PathValue("org_id"), r.PathValue("slug"))
	if err != nil {
		a.writeOrgError(w, err)
		return
	}
	writeJSON(w, http.StatusCreated, k)
}

func (a *API) rotateKey(w http.ResponseWriter, r *http.Request) {
	k, err := a.opts.Organizations.RotateKey(r.Context(), r.PathValue("org_id"), r.PathValue("key_id"))
	if err != nil {
		a.writeOrgError(w, err)
		return
	}
	writeJSON(w, http.StatusCreated, k)
}

func (a *API) revokeKey(w http.ResponseWriter, r *http.Request) {
	if err := a.opts.Organizations.RevokeKey(r.Context(), r.PathValue("org_id"), r.PathValue("key_id")); err != nil {
		a.writeOrgError(w, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

func (a *API) writeOrgError(w http.ResponseWriter, err error) {
	var re *organizations.RequestError
	switch {
	case errors.As(err, &re):
		writeError(w, http.StatusBadRequest, re.Error())
	case errors.Is(err, warehouse.ErrNotFound):
		writeError(w, http.StatusNotFound, err.Error()) // names the organization, environment or key
	case errors.Is(err, organizations.ErrEnvironmentExists):
		writeError(w, http.StatusConflict, "slug: the organization has this environment already")
	default:
		a.writeStoreError(w, err)
	}
}
