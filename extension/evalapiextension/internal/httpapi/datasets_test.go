package httpapi

import (
	"bytes"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/evalcol/evalcol/extension/evalapiextension/internal/datasetapi"
)

func mountDatasets(o *Options) { o.Mounts = append(o.Mounts, datasetapi.New(o.Store)) }

func TestDatasets(t *testing.T) { onBothBackendsWith(t, mountDatasets, testDatasets) }

// testDatasets: a dataset's life through the API as Traceloop's SDKs
// drive it: create with columns, add a column, rows ({"Rows"} and
// {"rows"}, by slug or name), typed values checked, pages, a row changed
// and deleted, published versions read back as CSV and JSONL and not
// changed by later edits; another organization sees none of it.
func testDatasets(t *testing.T, s *testServer) {
	a, b := "Bearer "+keyA, "Bearer "+keyB
	status, ds := s.do(t, http.MethodPost, "/v2/datasets", a, []byte(`{"name":"Support questions","description":"golden set",
		"columns":[{"name":"Question","type":"string","required":true},{"name":"Expected answer","type":"string"}]}`))
	if status != http.StatusCreated || ds["slug"] != "support-questions" || ds["version"] != nil || ds["published"] != false {
		t.Fatalf("create: %d %v", status, ds)
	}
	cols := ds["columns"].(map[string]any)
	if cols["question"].(map[string]any)["required"] != true || cols["expected-answer"].(map[string]any)["name"] != "Expected answer" {
		t.Errorf("columns %v", cols)
	}
	if rows, ok := ds["rows"].([]any); !ok || len(rows) != 0 {
		t.Errorf("a new dataset's rows: %v", ds["rows"])
	}
	if status, body := s.do(t, http.MethodPost, "/v2/datasets", a, []byte(`{"name":"Support questions"}`)); status != http.StatusConflict {
		t.Errorf("a taken slug: %d %v", status, body)
	}
	status, col := s.do(t, http.MethodPost, "/v2/datasets/support-questions/columns", a, []byte(`{"name":"Difficulty","type":"number"}`))
	if status != http.StatusCreated || col["slug"] != "difficulty" || col["type"] != "number" {
		t.Fatalf("add column: %d %v", status, col)
	}
	for _, tc := range []struct{ name, path, body, want string }{
		{"a bad column type", "/v2/datasets/support-questions/columns", `{"name":"X","type":"blob"}`, `type: "blob" is not one of string, number, boolean, date, file`},
		{"a duplicate column", "/v2/datasets/support-questions/columns", `{"name":"Difficulty","type":"string"}`, `name: the dataset has a column "Difficulty"`},
		{"a row without a required value", "/v2/datasets/support-questions/rows", `{"Rows":[{"difficulty":1}]}`, "rows[0].values.question: the column is required"},
		{"a value of the wrong type", "/v2/datasets/support-questions/rows", `{"Rows":[{"question":"q","difficulty":"hard"}]}`, "rows[0].values.difficulty: a string is not a number"},
		{"an unknown column", "/v2/datasets/support-questions/rows", `{"rows":[{"question":"q","mood":"ok"}]}`, "rows[0].values.mood: the dataset has no such column"},
	} {
		status, body := s.do(t, http.MethodPost, tc.path, a, []byte(tc.body))
		if status != http.StatusBadRequest || !strings.Contains(fmt.Sprint(body["error"]), tc.want) {
			t.Errorf("%s: %d %v, want 400 with %q", tc.name, status, body, tc.want)
		}
	}
	// The dataset and a column renamed, a column removed, a bad rename
	// refused; as the SDK's dataset.update and column.update send them.
	if status, body := s.do(t, http.MethodPut, "/v2/datasets/support-questions", a, []byte(`{"description":"the golden set"}`)); status != http.StatusOK || body["description"] != "the golden set" {
		t.Errorf("update dataset: %d %v", status, body)
	}
	if status, body := s.do(t, http.MethodPut, "/v2/datasets/support-questions", a, []byte(`{"name":""}`)); status != http.StatusBadRequest || !strings.Contains(body["error"].(string), "name: is required") {
		t.Errorf("an empty name: %d %v", status, body)
	}
	if status, body := s.do(t, http.MethodPost, "/v2/datasets/support-questions/columns", a, []byte(`{"name":"Scratch","type":"string"}`)); status != http.StatusCreated {
		t.Fatalf("add scratch column: %d %v", status, body)
	}
	status, upd := s.do(t, http.MethodPut, "/v2/datasets/support-questions/columns/scratch", a, []byte(`{"name":"Notes","description":"free text"}`))
	if status != http.StatusOK || upd["columns"].(map[string]any)["scratch"].(map[string]any)["name"] != "Notes" {
		t.Errorf("rename a column: %d %v", status, upd)
	}
	if status, body := s.do(t, http.MethodPut, "/v2/datasets/support-questions/columns/scratch", a, []byte(`{"name":"Question"}`)); status != http.StatusBadRequest || !strings.Contains(body["error"].(string), `has a column "Question"`) {
		t.Errorf("a rename onto another column's name: %d %v", status, body)
	}
	if status, body := s.do(t, http.MethodPut, "/v2/datasets/support-questions/columns/nope", a, []byte(`{"name":"X"}`)); status != http.StatusNotFound || !strings.Contains(body["error"].(string), `column "nope" not found`) {
		t.Errorf("an unknown column: %d %v", status, body)
	}
	if status, _, _ := s.send(t, http.MethodDelete, "/v2/datasets/support-questions/columns/scratch", a, nil); status != http.StatusNoContent {
		t.Errorf("delete a column: %d", status)
	}
	if status, got := s.do(t, http.MethodGet, "/v2/datasets/support-questions", a, nil); status != http.StatusOK || got["columns"].(map[string]any)["scratch"] != nil {
		t.Errorf("after the delete: %v", got["columns"])
	}
	if status, _, _ := s.send(t, http.MethodDelete, "/v2/datasets/support-questions/columns/difficulty", b, nil); status != http.StatusNotFound {
		t.Errorf("another organization deletes a column: %d", status)
	}

	// Rows as the Node SDK sends them (by slug, {"Rows"}) and as the
	// Python SDK does ({"rows"}), by column name too.
	status, added := s.do(t, http.MethodPost, "/v2/datasets/support-questions/rows", a, []byte(`{"Rows":[
		{"question":"Where is my parcel?","expected-answer":"Track it at /orders","difficulty":1},
		{"question":"Can I pay, in \"cash\"?","expected-answer":null,"difficulty":"2"}]}`))
	if status != http.StatusCreated || len(added["rows"].([]any)) != 2 {
		t.Fatalf("add rows: %d %v", status, added)
	}
	first := added["rows"].([]any)[0].(map[string]any)
	if first["values"].(map[string]any)["difficulty"] != 1.0 {
		t.Errorf("row values %v", first["values"])
	}
	if status, _ := s.do(t, http.MethodPost, "/v2/datasets/support-questions/rows", a, []byte(`{"rows":[{"Question":"How do I return it?","Difficulty":3}]}`)); status != http.StatusCreated {
		t.Fatalf("rows by column name: %d", status)
	}
	if status, got := s.do(t, http.MethodGet, "/v2/datasets/support-questions", a, nil); status != http.StatusOK || len(got["rows"].([]any)) != 3 {
		t.Errorf("GET with its rows (as the Python SDK reads them): %d %v", status, got["rows"])
	}
	status, page := s.do(t, http.MethodGet, "/v2/datasets/support-questions/rows?limit=2&offset=1", a, nil)
	if rows := page["rows"].([]any); status != http.StatusOK || len(rows) != 2 || page["total"] != 3.0 ||
		rows[0].(map[string]any)["values"].(map[string]any)["difficulty"] != 2.0 {
		t.Fatalf("rows page: %d %v", status, page)
	}

	// Publish v1, then change a row: v1 stays as it was.
	if status, pub := s.do(t, http.MethodPost, "/v2/datasets/support-questions/publish", a, []byte(`{}`)); status != http.StatusOK || pub["version"] != "v1" || pub["published"] != true {
		t.Fatalf("publish: %d %v", status, pub)
	}
	id := first["id"].(string)
	if status, row := s.do(t, http.MethodPut, "/v2/datasets/support-questions/rows/"+id, a, []byte(`{"Values":{"Expected answer":"See the tracking page"}}`)); status != http.StatusOK ||
		row["values"].(map[string]any)["expected-answer"] != "See the tracking page" || row["values"].(map[string]any)["question"] != "Where is my parcel?" {
		t.Errorf("update row: %d %v", status, row)
	}
	if status, _, _ := s.send(t, http.MethodDelete, "/v2/datasets/support-questions/rows/"+added["rows"].([]any)[1].(map[string]any)["id"].(string), a, nil); status != http.StatusNoContent {
		t.Errorf("delete row: %d", status)
	}
	if status, pub := s.do(t, http.MethodPost, "/v2/datasets/support-questions/publish", a, []byte(`{}`)); status != http.StatusOK || pub["version"] != "v2" {
		t.Fatalf("publish v2: %d %v", status, pub)
	}
	status, versions := s.do(t, http.MethodGet, "/v2/datasets/support-questions/versions", a, nil)
	if vs := versions["versions"].([]any); status != http.StatusOK || len(vs) != 2 || vs[0].(map[string]any)["row_count"] != 3.0 || vs[1].(map[string]any)["row_count"] != 2.0 {
		t.Fatalf("versions: %d %v", status, versions)
	}
	status, header, csv := s.send(t, http.MethodGet, "/v2/datasets/support-questions/versions/v1", a, nil)
	want := "Question,Expected answer,Difficulty\nWhere is my parcel?,Track it at /orders,1\n\"Can I pay, in \"\"cash\"\"?\",,2\nHow do I return it?,,3\n"
	if status != http.StatusOK || !strings.HasPrefix(header.Get("Content-Type"), "text/csv") || string(csv) != want {
		t.Errorf("v1 as CSV: %d %s\n%s", status, header.Get("Content-Type"), csv)
	}
	status, header, jsonl := s.send(t, http.MethodGet, "/v2/datasets/support-questions/versions/v2/jsonl", a, nil)
	lines := strings.Split(strings.TrimSpace(string(jsonl)), "\n")
	if status != http.StatusOK || header.Get("Content-Type") != "application/x-ndjson" || len(lines) != 3 || !strings.Contains(lines[0], `"columns"`) ||
		!strings.Contains(lines[1], `"expected-answer":"See the tracking page"`) {
		t.Errorf("v2 as JSONL: %d %s\n%s", status, header.Get("Content-Type"), jsonl)
	}
	if status, _, _ := s.send(t, http.MethodGet, "/v2/datasets/support-questions/versions/v9", a, nil); status != http.StatusNotFound {
		t.Errorf("an unknown version: %d", status)
	}

	// Override: the rows (and columns) replaced; a bad row changes
	// nothing; published versions stay.
	if status, body := s.do(t, http.MethodPost, "/v2/datasets/support-questions/override", a, []byte(`{"rows":[{"question":"q1","difficulty":"x"}]}`)); status != http.StatusBadRequest || !strings.Contains(body["error"].(string), "rows[0].values.difficulty") {
		t.Errorf("a bad override: %d %v", status, body)
	}
	if _, page := s.do(t, http.MethodGet, "/v2/datasets/support-questions/rows", a, nil); page["total"] != 2.0 || len(page["rows"].([]any)) != 2 {
		t.Errorf("after a refused override: %v", page)
	}
	status, over := s.do(t, http.MethodPost, "/v2/datasets/support-questions/override", a, []byte(`{"columns":[{"name":"prompt","required":true}],"Rows":[{"prompt":"only one"}]}`))
	if status != http.StatusOK || over["row_count"] != 1.0 || len(over["rows"].([]any)) != 1 || over["columns"].(map[string]any)["prompt"] == nil || over["columns"].(map[string]any)["question"] != nil {
		t.Errorf("override: %d %v", status, over)
	}
	if status, _, csv := s.send(t, http.MethodGet, "/v2/datasets/support-questions/versions/v1", a, nil); status != http.StatusOK || string(csv) != want {
		t.Errorf("v1 after an override: %d %s", status, csv)
	}

	// Another organization sees nothing and changes nothing.
	if status, list := s.do(t, http.MethodGet, "/v2/datasets", b, nil); status != http.StatusOK || len(list["datasets"].([]any)) != 0 {
		t.Errorf("env-b lists %v", list)
	}
	for _, p := range []string{"/v2/datasets/support-questions", "/v2/datasets/support-questions/rows", "/v2/datasets/support-questions/versions/v1/jsonl"} {
		if status, _, _ := s.send(t, http.MethodGet, p, b, nil); status != http.StatusNotFound {
			t.Errorf("env-b GET %s: %d", p, status)
		}
	}
	if status, _, _ := s.send(t, http.MethodDelete, "/v2/datasets/support-questions", b, nil); status != http.StatusNotFound {
		t.Errorf("env-b deletes the dataset: %d", status)
	}

	// Delete: gone with its rows and versions.
	if status, _, _ := s.send(t, http.MethodDelete, "/v2/datasets/support-questions", a, nil); status != http.StatusNoContent {
		t.Fatalf("delete: %d", status)
	}
	if status, list := s.do(t, http.MethodGet, "/v2/datasets", a, nil); status != http.StatusOK || len(list["datasets"].([]any)) != 0 {
		t.Errorf("after delete: %v", list)
	}
	if status, ds := s.do(t, http.MethodPost, "/v2/datasets", a, []byte(`{"name":"Support questions"}`)); status != http.StatusCreated || ds["row_count"] != 0.0 {
		t.Errorf("the slug again after delete: %d %v", status, ds)
	}
}

func TestDatasetFiles(t *testing.T) { onBothBackendsWith(t, mountDatasets, testDatasetFiles) }

// testDatasetFiles: a file cell takes an upload at evalcol's own URL
// (once, without a key, size-capped) or an external URL; bad requests are
// named and change nothing.
func testDatasetFiles(t *testing.T, s *testServer) {
	a, b := "Bearer "+keyA, "Bearer "+keyB
	status, _ := s.do(t, http.MethodPost, "/v2/datasets", a, []byte(`{"name":"receipts","columns":[{"name":"label"},{"name":"scan","type":"file"}],"rows":[{"label":"one"}]}`))
	if status != http.StatusCreated {
		t.Fatalf("create: %d", status)
	}
	_, rows := s.do(t, http.MethodGet, "/v2/datasets/receipts/rows", a, nil)
	row := rows["rows"].([]any)[0].(map[string]any)["id"].(string)
	cell := "/v2/datasets/receipts/rows/" + row + "/cells/"
	if status, body := s.do(t, http.MethodPost, cell+"label/upload-url", a, []byte(`{"file_name":"x"}`)); status != http.StatusBadRequest || !strings.Contains(body["error"].(string), `"label" is a string column, not a file column`) {
		t.Errorf("upload to a string column: %d %v", status, body)
	}
	if status, _ := s.do(t, http.MethodPost, cell+"scan/upload-url", b, []byte(`{"file_name":"x"}`)); status != http.StatusNotFound {
		t.Errorf("another organization asks for an upload URL: %d", status)
	}
	if status, body := s.do(t, http.MethodPut, cell+"scan/upload-status", a, []byte(`{"status":"success"}`)); status != http.StatusNotFound {
		t.Errorf("a status before any upload URL: %d %v", status, body)
	}
	status, up := s.do(t, http.MethodPost, cell+"scan/upload-url", a, []byte(`{"file_name":"r.pdf","content_type":"application/pdf","type":"file"}`))
	if status != http.StatusOK || up["method"] != "PUT" {
		t.Fatalf("upload URL: %d %v", status, up)
	}
	uploadPath := strings.TrimPrefix(up["upload_url"].(string), s.URL)
	if status, body := s.do(t, http.MethodPut, cell+"scan/upload-status", a, []byte(`{"status":"success"}`)); status != http.StatusConflict || !strings.Contains(body["error"].(string), "not been uploaded") {
		t.Errorf("success before the upload: %d %v", status, body)
	}
	if status, _, _ := s.send(t, http.MethodPut, uploadPath, "", bytes.Repeat([]byte("x"), 2<<20)); status != http.StatusRequestEntityTooLarge {
		t.Errorf("a file over the body limit: %d", status)
	}
	if status, _, _ := s.send(t, http.MethodPut, "/v2/uploads/0123456789abcdef0123456789abcdef", "", []byte("x")); status != http.StatusNotFound {
		t.Errorf("an unknown upload token: %d", status)
	}
	if status, _, _ := s.send(t, http.MethodPut, uploadPath, "", []byte("%PDF receipt")); status != http.StatusOK {
		t.Fatalf("upload: %d", status)
	}
	if status, _, _ := s.send(t, http.MethodPut, uploadPath, "", []byte("again")); status != http.StatusGone {
		t.Errorf("a second upload to the same URL: %d", status)
	}
	if status, body := s.do(t, http.MethodPut, cell+"scan/upload-status", a, []byte(`{"status":"success"}`)); status != http.StatusOK || !strings.HasPrefix(body["storage_key"].(string), "files/") {
		t.Fatalf("confirm: %d %v", status, body)
	}
	_, rows = s.do(t, http.MethodGet, "/v2/datasets/receipts/rows", a, nil)
	scan := rows["rows"].([]any)[0].(map[string]any)["values"].(map[string]any)["scan"].(map[string]any)
	if scan["storage_type"] != "internal" || scan["size"] != 12.0 || scan["file_name"] != "r.pdf" {
		t.Errorf("the file cell: %v", scan)
	}
	if status, body := s.do(t, http.MethodPost, cell+"scan/external-url", a, []byte(`{"url":"file:///etc/passwd"}`)); status != http.StatusBadRequest || !strings.Contains(body["error"].(string), "url:") {
		t.Errorf("a non-http URL: %d %v", status, body)
	}
	if status, body := s.do(t, http.MethodPost, cell+"scan/external-url", a, []byte(`{"url":"https://files.example.com/1.pdf","type":"file"}`)); status != http.StatusOK {
		t.Errorf("an external URL: %d %v", status, body)
	}
}
