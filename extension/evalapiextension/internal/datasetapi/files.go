package datasetapi

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"time"

	"github.com/evalcol/evalcol/extension/evalapiextension/internal/httpjson"
	"github.com/evalcol/evalcol/internal/dataset"
	"github.com/evalcol/evalcol/internal/randid"
	"github.com/evalcol/evalcol/internal/tenant"
	"github.com/evalcol/evalcol/internal/warehouse"
)

// File cells, as Traceloop's SDKs fill them: the SDK asks for an upload
// URL, PUTs the bytes there without credentials, then confirms; or it
// records an external URL. The upload URL is evalcol's own
// (/v2/uploads/<token>, a random 128-bit token valid for uploadTTL): the
// bytes go into the warehouse, capped by the API's max_request_body_size,
// and never to a third party. An external URL is recorded, never fetched.

// Document kinds of uploads.
const (
	uploadKind = "dataset_upload"      // scope: uploadScope, id: the token
	fileKind   = "dataset_file_chunk"  // scope: the token
	cellKind   = "dataset_upload_cell" // scope: the tenant's, id: dataset/row/column; body: the cell's latest token
	// uploadScope holds every pending upload: a token is found without
	// a tenant (the PUT carries no key), and is random.
	uploadScope = "uploads"
	uploadTTL   = 15 * time.Minute
	// fileChunkBytes is the raw bytes a chunk document holds (base64
	// keeps it under warehouse.MaxDocumentBytes).
	fileChunkBytes = 150 << 10
)

// upload is a pending or finished upload.
type upload struct {
	Scope       string         `json:"scope"`
	DatasetID   string         `json:"dataset_id"`
	RowID       string         `json:"row_id"`
	Column      string         `json:"column"`
	FileName    string         `json:"file_name"`
	ContentType string         `json:"content_type"`
	FileType    string         `json:"file_type"`
	Metadata    map[string]any `json:"metadata,omitempty"`
	Expires     int64          `json:"expires"` // Unix ms
	Size        int            `json:"size"`
	SHA256      string         `json:"sha256,omitempty"`
	Chunks      int            `json:"chunks"`
	Done        bool           `json:"done"`
}

// fileRoutes are the routes of file cells.
func (s *Service) fileRoutes() []httpjson.Route {
	cell := "/v2/datasets/{slug}/rows/{row}/cells/{column}"
	return []httpjson.Route{
		{Pattern: cell + "/upload-url", Handlers: map[string]http.HandlerFunc{http.MethodPost: s.uploadURL}},
		{Pattern: cell + "/upload-status", Handlers: map[string]http.HandlerFunc{http.MethodPut: s.uploadStatus}},
		{Pattern: cell + "/external-url", Handlers: map[string]http.HandlerFunc{http.MethodPost: s.externalURL}},
		{Pattern: "/v2/uploads/{token}", Handlers: map[string]http.HandlerFunc{http.MethodPut: s.receiveUpload}, Public: true},
	}
}

// fileCell checks that the dataset, row and file column of the path
// exist for the tenant.
func (s *Service) fileCell(ctx context.Context, t tenant.Tenant, r *http.Request) (dataset.Dataset, dataset.Column, error) {
	ds, err := s.load(ctx, t, r.PathValue("slug"))
	if err != nil {
		return ds, dataset.Column{}, err
	}
	col, ok := ds.Column(r.PathValue("column"))
	if !ok {
		return ds, col, errNotFound{fmt.Sprintf("column %q", r.PathValue("column"))}
	}
	if col.Type != dataset.TypeFile {
		return ds, col, &dataset.FieldError{Field: "column", Msg: fmt.Sprintf("%q is a %s column, not a file column", col.Slug, col.Type)}
	}
	if _, err := s.store.GetDocument(ctx, dataset.RowKind, ds.ID, r.PathValue("row")); errors.Is(err, warehouse.ErrNotFound) {
		return ds, col, errNotFound{fmt.Sprintf("row %q", r.PathValue("row"))}
	} else if err != nil {
		return ds, col, err
	}
	return ds, col, nil
}

func (s *Service) uploadURL(w http.ResponseWriter, r *http.Request) {
	t, _ := tenant.FromContext(r.Context())
	var req struct {
		Type        string         `json:"type"`
		FileName    string         `json:"file_name"`
		ContentType string         `json:"content_type"`
		Metadata    map[string]any `json:"metadata"`
	}
	if !httpjson.ReadObject(w, r, &req) {
		return
	}
	ds, col, err := s.fileCell(r.Context(), t, r)
	if err != nil {
		answerError(w, err)
		return
	}
	token := randid.New()
	expires := s.now().Add(uploadTTL)
	up := upload{Scope: t.ProjectScope(), DatasetID: ds.ID, RowID: r.PathValue("row"), Column: col.Slug, FileName: req.FileName,
		ContentType: req.ContentType, FileType: req.Type, Metadata: req.Metadata, Expires: expires.UnixMilli()}
	body, _ := json.Marshal(up)
	if err := s.store.CreateDocument(r.Context(), warehouse.Document{Kind: uploadKind, Scope: uploadScope, ID: token, Body: body}); err != nil {
		answerError(w, err)
		return
	}
	if err := s.rememberUpload(r.Context(), t.ProjectScope(), cellID(ds.ID, up.RowID, col.Slug), token); err != nil {
		answerError(w, err)
		return
	}
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	u := url.URL{Scheme: scheme, Host: r.Host, Path: "/v2/uploads/" + token}
	httpjson.WriteJSON(w, http.StatusOK, map[string]any{"upload_url": u.String(), "storage_key": "files/" + token,
		"expires_at": expires.UTC().Format(time.RFC3339), "method": http.MethodPut})
}

// receiveUpload takes the bytes of a pending upload (no API key: the
// token in the path is the capability).
func (s *Service) receiveUpload(w http.ResponseWriter, r *http.Request) {
	token := r.PathValue("token")
	d, err := s.store.GetDocument(r.Context(), uploadKind, uploadScope, token)
	if errors.Is(err, warehouse.ErrNotFound) {
		httpjson.WriteError(w, http.StatusNotFound, "no such upload")
		return
	}
	if err != nil {
		answerError(w, err)
		return
	}
	var up upload
	if err := json.Unmarshal(d.Body, &up); err != nil {
		answerError(w, err)
		return
	}
	if up.Done || s.now().UnixMilli() > up.Expires {
		httpjson.WriteError(w, http.StatusGone, "this upload URL has expired or was used; ask for a new one")
		return
	}
	data, err := io.ReadAll(r.Body)
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			httpjson.WriteError(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("a file is at most %d bytes (max_request_body_size)", tooBig.Limit))
			return
		}
		httpjson.WriteError(w, http.StatusBadRequest, "cannot read the file: "+err.Error())
		return
	}
	for i := 0; i*fileChunkBytes < len(data) || i == 0 && len(data) == 0; i++ {
		part := data[i*fileChunkBytes : min((i+1)*fileChunkBytes, len(data))]
		chunk, _ := json.Marshal(base64.StdEncoding.EncodeToString(part))
		if err := s.store.CreateDocument(r.Context(), warehouse.Document{Kind: fileKind, Scope: token, ID: fmt.Sprintf("%06d", i), Body: chunk}); err != nil {
			answerError(w, err)
			return
		}
		up.Chunks = i + 1
		if len(data) == 0 {
			break
		}
	}
	sum := sha256.Sum256(data)
	up.Size, up.SHA256, up.Done = len(data), hex.EncodeToString(sum[:]), true
	d.Body, _ = json.Marshal(up)
	d.Version++
	if err := s.store.UpdateDocument(r.Context(), d); err != nil {
		answerError(w, err)
		return
	}
	w.WriteHeader(http.StatusOK)
}

// cellID names a file cell among the tenant's.
func cellID(datasetID, rowID, column string) string { return datasetID + "/" + rowID + "/" + column }

// rememberUpload records token as the cell's latest upload.
func (s *Service) rememberUpload(ctx context.Context, sc, id, token string) error {
	body, _ := json.Marshal(token)
	err := s.store.CreateDocument(ctx, warehouse.Document{Kind: cellKind, Scope: sc, ID: id, Body: body})
	if !errors.Is(err, warehouse.ErrConflict) {
		return err
	}
	d, err := s.store.GetDocument(ctx, cellKind, sc, id)
	if err != nil {
		return err
	}
	d.Body, d.Version = body, d.Version+1
	return s.store.UpdateDocument(ctx, d)
}

// setCell sets one value of a row.
func (s *Service) setCell(ctx context.Context, ds dataset.Dataset, rowID, column string, v any) error {
	d, err := s.store.GetDocument(ctx, dataset.RowKind, ds.ID, rowID)
	if err != nil {
		return err
	}
	var row dataset.Row
	if err := json.Unmarshal(d.Body, &row); err != nil {
		return fmt.Errorf("decode row %s: %w", rowID, err)
	}
	if row.Values == nil {
		row.Values = map[string]any{}
	}
	row.Values[column], row.UpdatedAt = v, s.now().UTC()
	d.Body, _ = json.Marshal(row)
	d.Version++
	return s.store.UpdateDocument(ctx, d)
}

func (s *Service) uploadStatus(w http.ResponseWriter, r *http.Request) {
	t, _ := tenant.FromContext(r.Context())
	var req struct {
		Status   string         `json:"status"`
		Metadata map[string]any `json:"metadata"`
	}
	if !httpjson.ReadObject(w, r, &req) {
		return
	}
	ds, col, err := s.fileCell(r.Context(), t, r)
	if err != nil {
		answerError(w, err)
		return
	}
	// The cell's latest upload.
	var token string
	var up upload
	if cd, err := s.store.GetDocument(r.Context(), cellKind, t.ProjectScope(), cellID(ds.ID, r.PathValue("row"), col.Slug)); err == nil {
		_ = json.Unmarshal(cd.Body, &token)
		if d, err := s.store.GetDocument(r.Context(), uploadKind, uploadScope, token); err == nil {
			_ = json.Unmarshal(d.Body, &up)
		} else {
			token = ""
		}
	} else if !errors.Is(err, warehouse.ErrNotFound) {
		answerError(w, err)
		return
	}
	switch {
	case token == "":
		answerError(w, errNotFound{"an upload of this cell"})
	case req.Status == "success" && !up.Done:
		httpjson.WriteError(w, http.StatusConflict, "the file has not been uploaded to the upload URL yet")
	case req.Status == "success":
		ref := map[string]any{"storage_type": "internal", "storage_key": "files/" + token, "file_type": up.FileType, "file_name": up.FileName,
			"content_type": up.ContentType, "size": up.Size, "sha256": up.SHA256, "metadata": req.Metadata}
		if err := s.setCell(r.Context(), ds, r.PathValue("row"), col.Slug, ref); err != nil {
			answerError(w, err)
			return
		}
		httpjson.WriteJSON(w, http.StatusOK, map[string]any{"status": "success", "storage_key": "files/" + token})
	case req.Status == "failed":
		_ = s.deleteAll(r.Context(), fileKind, token)
		_ = s.store.DeleteDocument(r.Context(), uploadKind, uploadScope, token)
		httpjson.WriteJSON(w, http.StatusOK, map[string]any{"status": "failed"})
	default:
		httpjson.WriteError(w, http.StatusBadRequest, fmt.Sprintf("status: %q is not success or failed", req.Status))
	}
}

func (s *Service) externalURL(w http.ResponseWriter, r *http.Request) {
	t, _ := tenant.FromContext(r.Context())
	var req struct {
		Type     string         `json:"type"`
		URL      string         `json:"url"`
		Metadata map[string]any `json:"metadata"`
	}
	if !httpjson.ReadObject(w, r, &req) {
		return
	}
	if u, err := url.Parse(req.URL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || len(req.URL) > 2048 {
		httpjson.WriteError(w, http.StatusBadRequest, "url: must be an http(s) URL of at most 2048 bytes")
		return
	}
	ds, col, err := s.fileCell(r.Context(), t, r)
	if err != nil {
		answerError(w, err)
		return
	}
	ref := map[string]any{"storage_type": "external", "storage_key": "", "url": req.URL, "file_type": req.Type, "metadata": req.Metadata}
	if err := s.setCell(r.Context(), ds, r.PathValue("row"), col.Slug, ref); err != nil {
		answerError(w, err)
		return
	}
	httpjson.WriteJSON(w, http.StatusOK, map[string]any{"storage_key": "", "url": req.URL})
}
