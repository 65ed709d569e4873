package httpapi

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/evalcol/evalcol/extension/evalapiextension/internal/annotationapi"
	"github.com/evalcol/evalcol/internal/warehouse"
	"github.com/evalcol/evalcol/internal/warehouse/clickhouse"
)

// mountAnnotations mounts the annotation routes.
func mountAnnotations(o *Options) { o.Mounts = append(o.Mounts, annotationapi.New(o.Store)) }

// onBothBackends runs test against the API with the annotation routes
// on SQLite and, when EVALCOL_CLICKHOUSE_ADDR is set, on ClickHouse.
func onBothBackends(t *testing.T, test func(t *testing.T, s *testServer)) {
	onBothBackendsWith(t, mountAnnotations, test)
}

// onBothBackendsWith is onBothBackends with the API's options changed by
// mount.
func onBothBackendsWith(t *testing.T, mount func(*Options), test func(t *testing.T, s *testServer)) {
	t.Run("sqlite", func(t *testing.T) { test(t, newTestServer(t, mount)) })
	t.Run("clickhouse", func(t *testing.T) {
		addr := os.Getenv("EVALCOL_CLICKHOUSE_ADDR")
		if addr == "" {
			t.Skip("EVALCOL_CLICKHOUSE_ADDR is not set (scripts/clickhouse.sh start prints it)")
		}
		opts := clickhouse.Options{Addr: addr, Database: fmt.Sprintf("evalcol_annotations_%x", time.Now().UnixNano())}
		t.Cleanup(func() { _ = clickhouse.DropDatabase(context.Background(), opts) })
		st, err := clickhouse.Open(context.Background(), opts)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = st.Close() })
		test(t, newTestServerOn(t, st, mount))
	})
}

const feedbackTask = `{"slug":"user-feedback","name":"User feedback","tags":[
	{"name":"thumbs","type":"boolean","required":true},
	{"name":"score","type":"number","min":0,"max":1},
	{"name":"tones","type":"category","values":["happy","surprised","angry"]},
	{"name":"comment","type":"text"}]}`

// annotationPoints counts the annotation metric points key's environment
// holds.
func annotationPoints(t *testing.T, s *testServer, key string) int {
	t.Helper()
	status, body := s.do(t, http.MethodPost, "/v2/metrics", "Bearer "+key, []byte(`{"metric_source":"annotation","limit":1000}`))
	if status != http.StatusOK {
		t.Fatalf("metrics: %d %v", status, body)
	}
	return int(body["metrics"].(map[string]any)["total_results"].(float64))
}

func TestAnnotationTasks(t *testing.T) { onBothBackends(t, testAnnotationTasks) }

func testAnnotationTasks(t *testing.T, s *testServer) {
	a, b := "Bearer "+keyA, "Bearer "+keyB

	status, task := s.do(t, http.MethodPost, "/v2/annotation-tasks", a, []byte(feedbackTask))
	if status != http.StatusCreated || task["slug"] != "user-feedback" || task["id"] == "" || len(task["tags"].([]any)) != 4 || task["version"] != 1.0 {
		t.Fatalf("create: %d %v", status, task)
	}
	id := task["id"].(string)
	if status, body := s.do(t, http.MethodPost, "/v2/annotation-tasks", a, []byte(feedbackTask)); status != http.StatusConflict ||
		!strings.Contains(body["error"].(string), `slug "user-feedback" exists`) {
		t.Errorf("a taken slug: %d %v", status, body)
	}
	// Another organization may use the slug: tasks are per organization and project.
	if status, body := s.do(t, http.MethodPost, "/v2/annotation-tasks", b, []byte(feedbackTask)); status != http.StatusCreated {
		t.Errorf("the same slug in another organization: %d %v", status, body)
	}

	for _, tc := range []struct{ name, body, want string }{
		{"bad tag type", `{"slug":"x","name":"X","tags":[{"name":"a","type":"stars"}]}`, `tags[0].type: "stars" is not one of boolean, number, category, text`},
		{"category without values", `{"slug":"x","name":"X","tags":[{"name":"a","type":"category"}]}`, "tags[0].values: a category tag needs 1 to 64 values"},
		{"min above max", `{"slug":"x","name":"X","tags":[{"name":"a","type":"number","min":2,"max":1}]}`, "tags[0]: min 2 is above max 1"},
		{"no tags", `{"slug":"x","name":"X","tags":[]}`, "tags: a task needs 1 to 32 tags, got 0"},
		{"bad slug", `{"slug":"Not A Slug","name":"X","tags":[{"name":"a","type":"text"}]}`, `slug: "Not A Slug" is not a slug`},
		{"duplicate tag", `{"slug":"x","name":"X","tags":[{"name":"a","type":"text"},{"name":"a","type":"boolean"}]}`, `tags[1].name: "a" is defined twice`},
		{"unknown field", `{"slug":"x","name":"X","tagz":[]}`, `unknown field "tagz"`},
		{"empty body", ``, "request body is empty"},
	} {
		status, body := s.do(t, http.MethodPost, "/v2/annotation-tasks", a, []byte(tc.body))
		if status != http.StatusBadRequest || !strings.Contains(fmt.Sprint(body["error"]), tc.want) {
			t.Errorf("%s: %d %v, want 400 with %q", tc.name, status, body, tc.want)
		}
	}

	// By id and by slug; another organization sees only its own.
	for _, key := range []string{id, "user-feedback"} {
		if status, got := s.do(t, http.MethodGet, "/v2/annotation-tasks/"+key, a, nil); status != http.StatusOK || got["id"] != id {
			t.Errorf("GET %s: %d %v", key, status, got)
		}
	}
	if status, got := s.do(t, http.MethodGet, "/v2/annotation-tasks/"+id, b, nil); status != http.StatusNotFound ||
		!strings.Contains(got["error"].(string), "annotation task \""+id+"\" not found") {
		t.Errorf("another organization reads the task by id: %d %v", status, got)
	}
	status, list := s.do(t, http.MethodGet, "/v2/annotation-tasks", a, nil)
	if tasks := list["annotation_tasks"].([]any); status != http.StatusOK || len(tasks) != 1 || tasks[0].(map[string]any)["id"] != id {
		t.Errorf("list: %d %v", status, list)
	}

	// Paging: three more tasks, pages of two.
	for i := range 3 {
		body := fmt.Sprintf(`{"slug":"t%d","name":"T%d","tags":[{"name":"ok","type":"boolean"}]}`, i, i)
		if status, got := s.do(t, http.MethodPost, "/v2/annotation-tasks", a, []byte(body)); status != http.StatusCreated {
			t.Fatalf("create t%d: %d %v", i, status, got)
		}
	}
	var slugs []string
	for cursor, pages := "", 0; pages < 5; pages++ {
		status, page := s.do(t, http.MethodGet, "/v2/annotation-tasks?limit=2&cursor="+cursor, a, nil)
		if status != http.StatusOK {
			t.Fatalf("page: %d %v", status, page)
		}
		for _, task := range page["annotation_tasks"].([]any) {
			slugs = append(slugs, task.(map[string]any)["slug"].(string))
		}
		if cursor = page["next_cursor"].(string); cursor == "" {
			break
		}
	}
	if strings.Join(slugs, ",") != "user-feedback,t0,t1,t2" {
		t.Errorf("paged tasks: %v", slugs)
	}
	if status, got := s.do(t, http.MethodGet, "/v2/annotation-tasks?limit=0", a, nil); status != http.StatusBadRequest || !strings.Contains(got["error"].(string), "limit") {
		t.Errorf("limit=0: %d %v", status, got)
	}

	// Update, then delete.
	status, updated := s.do(t, http.MethodPut, "/v2/annotation-tasks/t0", a, []byte(`{"name":"Renamed","tags":[{"name":"ok","type":"boolean"},{"name":"why","type":"text"}]}`))
	if status != http.StatusOK || updated["name"] != "Renamed" || updated["slug"] != "t0" || updated["version"] != 2.0 || len(updated["tags"].([]any)) != 2 {
		t.Errorf("update: %d %v", status, updated)
	}
	if status, got := s.do(t, http.MethodPut, "/v2/annotation-tasks/t1", a, []byte(`{"slug":"t2","name":"T","tags":[{"name":"ok","type":"boolean"}]}`)); status != http.StatusConflict {
		t.Errorf("update to a taken slug: %d %v", status, got)
	}
	if status, got := s.do(t, http.MethodDelete, "/v2/annotation-tasks/t0", b, nil); status != http.StatusNotFound {
		t.Errorf("another organization deletes the task: %d %v", status, got)
	}
	if status, _, _ := s.send(t, http.MethodDelete, "/v2/annotation-tasks/t0", a, nil); status != http.StatusNoContent {
		t.Errorf("delete: %d", status)
	}
	if status, got := s.do(t, http.MethodGet, "/v2/annotation-tasks/t0", a, nil); status != http.StatusNotFound {
		t.Errorf("a deleted task: %d %v", status, got)
	}
}

func TestAnnotations(t *testing.T) { onBothBackends(t, testAnnotations) }

func testAnnotations(t *testing.T, s *testServer) {
	a, b := "Bearer "+keyA, "Bearer "+keyB
	if status, got := s.do(t, http.MethodPost, "/v2/annotation-tasks", a, []byte(feedbackTask)); status != http.StatusCreated {
		t.Fatalf("create task: %d %v", status, got)
	}
	const trace = "0af7651916cd43dd8448eb211c80319c"
	// As Traceloop's Node SDK sends it (userFeedback.create).
	sdkBody := `{"entity_instance_id":"conv-42","tags":{"thumbs":true,"score":0.8,"tones":["surprised","happy"],"comment":"helpful"},
		"source":"sdk","flow":"user_feedback","actor":{"type":"service","id":"my-app"}}`
	status, ann := s.do(t, http.MethodPost, "/v2/annotation-tasks/user-feedback/annotations", a, []byte(sdkBody))
	if status != http.StatusCreated || ann["entity_instance_id"] != "conv-42" || ann["actor_id"] != "my-app" || ann["flow"] != "user_feedback" {
		t.Fatalf("SDK annotation: %d %v", status, ann)
	}
	if got, _ := json.Marshal(ann["tags"]); string(got) != `{"comment":"helpful","score":0.8,"thumbs":true,"tones":["happy","surprised"]}` {
		t.Errorf("stored tags %s", got)
	}
	if status, got := s.do(t, http.MethodPost, "/v2/annotation-tasks/user-feedback/annotations", a, []byte(`{"entity_instance_id":"`+trace+`","tags":{"thumbs":false}}`)); status != http.StatusCreated {
		t.Fatalf("trace annotation: %d %v", status, got)
	}
	// One point per tag value: 5 for the first, 1 for the second.
	if n := annotationPoints(t, s, keyA); n != 6 {
		t.Errorf("%d annotation points, want 6", n)
	}

	// Bad tags are 400s naming the tag, and store nothing.
	for _, tc := range []struct{ name, body, want string }{
		{"unknown tag", `{"entity_instance_id":"e","tags":{"thumbs":true,"stars":5}}`, `tags.stars: the task "user-feedback" has no such tag (it defines thumbs, score, tones, comment)`},
		{"wrong type", `{"entity_instance_id":"e","tags":{"thumbs":"yes"}}`, "tags.thumbs: a boolean tag takes true or false, got a string"},
		{"out of range", `{"entity_instance_id":"e","tags":{"thumbs":true,"score":1.5}}`, "tags.score: 1.5 is outside [0, 1]"},
		{"unknown category", `{"entity_instance_id":"e","tags":{"thumbs":true,"tones":["happy","bored"]}}`, `tags.tones: "bored" is not one of happy, surprised, angry`},
		{"required missing", `{"entity_instance_id":"e","tags":{"score":0.5}}`, `tags.thumbs: is required by the task "user-feedback"`},
		{"no entity", `{"tags":{"thumbs":true}}`, "entity_instance_id: is required"},
		{"no tags", `{"entity_instance_id":"e"}`, "tags: no tag is set"},
		{"not JSON", `{"entity_instance_id":`, "request body is not valid JSON"},
	} {
		status, body := s.do(t, http.MethodPost, "/v2/annotation-tasks/user-feedback/annotations", a, []byte(tc.body))
		if status != http.StatusBadRequest || !strings.Contains(fmt.Sprint(body["error"]), tc.want) {
			t.Errorf("%s: %d %v, want 400 with %q", tc.name, status, body, tc.want)
		}
	}
	status, got := s.do(t, http.MethodPost, "/v2/annotation-tasks/no-such-task/annotations", a, []byte(`{"entity_instance_id":"e","tags":{"x":1}}`))
	if status != http.StatusNotFound || !strings.Contains(got["error"].(string), `annotation task "no-such-task" not found`) {
		t.Errorf("unknown task: %d %v", status, got)
	}
	if n := annotationPoints(t, s, keyA); n != 6 {
		t.Errorf("after the refused annotations: %d points, want 6", n)
	}

	// Read back: all, by entity; the trace id is the points' trace id.
	status, list := s.do(t, http.MethodGet, "/v2/annotation-tasks/user-feedback/annotations", a, nil)
	if anns := list["annotations"].([]any); status != http.StatusOK || len(anns) != 2 {
		t.Fatalf("list: %d %v", status, list)
	}
	status, list = s.do(t, http.MethodGet, "/v2/annotation-tasks/user-feedback/annotations?entity_instance_id=conv-42", a, nil)
	anns := list["annotations"].([]any)
	if status != http.StatusOK || len(anns) != 1 || anns[0].(map[string]any)["id"] != ann["id"] {
		t.Fatalf("by entity: %d %v", status, list)
	}
	if got, _ := json.Marshal(anns[0].(map[string]any)["tags"]); string(got) != `{"comment":"helpful","score":0.8,"thumbs":true,"tones":["happy","surprised"]}` {
		t.Errorf("read-back tags %s", got)
	}
	status, body := s.do(t, http.MethodPost, "/v2/metrics", a, []byte(`{"metric_source":"annotation","metric_name":"user-feedback.thumbs",
		"filters":[{"field":"trace_id","operator":"equals","value":"`+trace+`"}]}`))
	if status != http.StatusOK || body["metrics"].(map[string]any)["total_results"] != 1.0 {
		t.Errorf("the trace's annotation through /v2/metrics: %d %v", status, body)
	}

	// Spans filtered by annotation: the annotated trace (by its id, or
	// by one of its span ids), not the other.
	const otherTrace = "1bf7651916cd43dd8448eb211c80319c"
	now := time.Now().UnixMilli()
	if err := s.store.WriteSpans(context.Background(), []warehouse.Span{
		{Environment: "env-a", TraceID: trace, SpanID: "00f067aa0ba902b7", Timestamp: now, SpanName: "chat"},
		{Environment: "env-a", TraceID: otherTrace, SpanID: "00f067aa0ba902b8", Timestamp: now, SpanName: "chat"},
	}); err != nil {
		t.Fatal(err)
	}
	spansAnnotated := func(spec string) []string {
		t.Helper()
		status, body := s.do(t, http.MethodGet, fmt.Sprintf("/v2/warehouse/spans?from_timestamp_sec=%d&annotation=%s", now/1000-60, spec), a, nil)
		if status != http.StatusOK {
			t.Fatalf("spans annotated %s: %d %v", spec, status, body)
		}
		var ids []string
		for _, sp := range body["spans"].(map[string]any)["data"].([]any) {
			ids = append(ids, sp.(map[string]any)["trace_id"].(string))
		}
		return ids
	}
	if got := spansAnnotated("user-feedback.thumbs:false"); len(got) != 1 || got[0] != trace {
		t.Errorf("spans of thumbs:false = %v, want the annotated trace", got)
	}
	if got := spansAnnotated("user-feedback.thumbs:true"); len(got) != 0 {
		t.Errorf("spans of thumbs:true = %v, want none (that annotation is about conv-42, not a trace)", got)
	}
	if status, _ := s.do(t, http.MethodPost, "/v2/annotation-tasks/user-feedback/annotations", a, []byte(`{"entity_instance_id":"00f067aa0ba902b8","tags":{"thumbs":true}}`)); status != http.StatusCreated {
		t.Fatal("annotate a span")
	}
	if got := spansAnnotated("user-feedback.thumbs:true"); len(got) != 1 || got[0] != otherTrace {
		t.Errorf("spans of thumbs:true after annotating a span of the other trace = %v", got)
	}
	if got := spansAnnotated("user-feedback.thumbs:"); len(got) != 2 {
		t.Errorf("spans with any thumbs = %v, want both traces", got)
	}
	if status, body := s.do(t, http.MethodGet, fmt.Sprintf("/v2/warehouse/spans?from_timestamp_sec=%d&annotation=thumbs", now/1000-60), a, nil); status != http.StatusBadRequest ||
		!strings.Contains(body["error"].(string), `annotation: "thumbs" is not <task>.<tag>:<value>`) {
		t.Errorf("a bad annotation filter: %d %v", status, body)
	}

	// Another environment sees none of it, and cannot annotate with a
	// task of another organization.
	if n := annotationPoints(t, s, keyB); n != 0 {
		t.Errorf("another environment sees %d annotation points", n)
	}
	if status, got := s.do(t, http.MethodPost, "/v2/annotation-tasks/user-feedback/annotations", b, []byte(`{"entity_instance_id":"e","tags":{"thumbs":true}}`)); status != http.StatusNotFound {
		t.Errorf("another organization annotates with the task: %d %v", status, got)
	}
}
