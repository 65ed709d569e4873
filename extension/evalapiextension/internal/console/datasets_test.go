package console

import (
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/evalcol/evalcol/extension/evalapiextension/internal/datasetapi"
)

// TestDatasetPages: a CSV (with a BOM, a quoted comma and a quoted
// newline) becomes a typed dataset; a ragged CSV is refused and changes
// nothing; a row is edited; a version is published and downloaded; rows
// page; another organization sees none of it.
func TestDatasetPages(t *testing.T) {
	s := newTestServerAPI(t, false, func(o *Options) { o.Datasets = datasetapi.New(o.Store) }, nil)
	c := s.client(t)
	s.login(t, c, keyA)
	page := do(t, c, "GET", s.URL+"/ui/datasets", nil)
	upload := func(name, body string) answer {
		return do(t, c, "POST", s.URL+"/ui/datasets", url.Values{"csrf": {csrf(t, page.body)}, "name": {name}, "csv": {body}})
	}
	if a := upload("Refunds", "question,answer,ok\nonly one field\n"); a.status != http.StatusBadRequest || !strings.Contains(a.body, "Nothing was added: csv: record on line 2: wrong number of fields") {
		t.Errorf("a ragged CSV: %d", a.status)
	}
	if a := do(t, c, "GET", s.URL+"/ui/datasets", nil); strings.Contains(a.body, `href="/ui/datasets/refunds"`) {
		t.Error("a refused CSV created a dataset")
	}
	a := upload("Refunds", "\ufeffquestion,answer,score,ok\n\"Can I pay, later?\",\"Yes,\nwithin 30 days\",3,true\nWhere is it?,Tracking page,4.5,false\n")
	if a.status != http.StatusSeeOther || !strings.HasPrefix(a.header.Get("Location"), "/ui/datasets/refunds?notice=") {
		t.Fatalf("upload: %d %s\n%s", a.status, a.header.Get("Location"), a.body)
	}
	ds := do(t, c, "GET", s.URL+"/ui/datasets/refunds", nil)
	for _, want := range []string{`question <span class="hint">string</span>`, `score <span class="hint">number</span>`, `ok <span class="hint">boolean</span>`,
		`value="Can I pay, later?"`, "value=\"Yes,\nwithin 30 days\"", `value="4.5"`, `value="false"`} {
		if !strings.Contains(ds.body, want) {
			t.Errorf("the dataset page lacks %q", want)
		}
	}
	// Edit the second row: a number must be a number.
	rowID := regexp.MustCompile(`data-row="([0-9a-f]+)"`).FindAllStringSubmatch(ds.body, -1)[1][1]
	bad := do(t, c, "POST", s.URL+"/ui/datasets/refunds/row", url.Values{"csrf": {csrf(t, ds.body)}, "row": {rowID}, "col.score": {"lots"}})
	if loc, _ := url.QueryUnescape(bad.header.Get("Location")); !strings.Contains(loc, "Not saved: values.score: a string is not a number") {
		t.Errorf("a bad edit: %s", loc)
	}
	ok := do(t, c, "POST", s.URL+"/ui/datasets/refunds/row", url.Values{"csrf": {csrf(t, ds.body)}, "row": {rowID}, "col.answer": {"See the tracking page"}, "col.score": {"5"}})
	if loc, _ := url.QueryUnescape(ok.header.Get("Location")); !strings.Contains(loc, "Saved the row.") {
		t.Errorf("an edit: %s", loc)
	}
	pub := do(t, c, "POST", s.URL+"/ui/datasets/refunds/publish", url.Values{"csrf": {csrf(t, ds.body)}})
	if loc, _ := url.QueryUnescape(pub.header.Get("Location")); !strings.Contains(loc, "Published v1.") {
		t.Errorf("publish: %s", loc)
	}
	csvFile := do(t, c, "GET", s.URL+"/ui/datasets/refunds/versions/v1.csv", nil)
	want := "question,answer,score,ok\n\"Can I pay, later?\",\"Yes,\nwithin 30 days\",3,true\nWhere is it?,See the tracking page,5,false\n"
	if csvFile.status != 200 || csvFile.body != want {
		t.Errorf("v1.csv: %d %q", csvFile.status, csvFile.body)
	}
	if a := do(t, c, "GET", s.URL+"/ui/datasets/refunds/versions/v2.csv", nil); a.status != 404 {
		t.Errorf("an unknown version: %d", a.status)
	}
	// Pages of 50 rows.
	var lines []string
	for i := range 60 {
		lines = append(lines, "More question "+strings.Repeat("x", i%3)+",answer,1,true")
	}
	if a := upload("Refunds", "question,answer,score,ok\n"+strings.Join(lines, "\n")); a.status != http.StatusSeeOther {
		t.Fatalf("append: %d", a.status)
	}
	first := do(t, c, "GET", s.URL+"/ui/datasets/refunds", nil)
	second := do(t, c, "GET", s.URL+"/ui/datasets/refunds?offset=50", nil)
	if n := strings.Count(first.body, "data-row="); n != 50 || !strings.Contains(first.body, `id="next"`) {
		t.Errorf("first page: %d rows", n)
	}
	if n := strings.Count(second.body, "data-row="); n != 12 || strings.Contains(second.body, `id="next"`) || !strings.Contains(second.body, `id="prev"`) {
		t.Errorf("second page: %d rows", n)
	}
	other := s.client(t)
	s.login(t, other, keyB)
	for _, p := range []string{"/ui/datasets/refunds", "/ui/datasets/refunds/versions/v1.csv"} {
		if a := do(t, other, "GET", s.URL+p, nil); a.status != 404 {
			t.Errorf("another organization GET %s: %d", p, a.status)
		}
	}
	if a := do(t, other, "GET", s.URL+"/ui/datasets", nil); strings.Contains(a.body, "refunds") {
		t.Error("another organization lists the dataset")
	}
}
