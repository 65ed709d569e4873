package annotation

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestPointsRoundTrip(t *testing.T) {
	at := time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		entity, traceID, spanID string
	}{
		{"0AF7651916CD43DD8448EB211C80319C", "0af7651916cd43dd8448eb211c80319c", ""},
		{"b7ad6b7169203331", "", "b7ad6b7169203331"},
		{"conversation-42", "", ""},
	} {
		a := Annotation{ID: "a1", Task: "fb", EntityInstanceID: tc.entity, Source: "sdk", Flow: "user_feedback", ActorType: "service", ActorID: "app",
			CreatedAt: at, Tags: map[string]any{"ok": true, "score": 0.5, "tones": []string{"angry", "happy"}, "note": "fine"}}
		pts := Points("prod", "acme", a)
		if len(pts) != 5 {
			t.Fatalf("%s: %d points, want 5 (one per tag value)", tc.entity, len(pts))
		}
		for _, p := range pts {
			if p.TraceID != tc.traceID || p.SpanID != tc.spanID || p.Source != "annotation" || p.Environment != "prod" || !strings.HasPrefix(p.MetricName, "fb.") {
				t.Errorf("%s: point %+v", tc.entity, p)
			}
		}
		back := FromPoints(pts)
		if len(back) != 1 || !reflect.DeepEqual(back[0], a) {
			got, _ := json.Marshal(back)
			t.Errorf("%s: read back %s", tc.entity, got)
		}
	}
}

func TestCheckTagsAcceptsJSONNumbers(t *testing.T) {
	lo, hi := 1.0, 5.0
	task := Task{Slug: "t", Tags: []Tag{{Name: "stars", Type: TypeNumber, Min: &lo, Max: &hi}}}
	got, err := task.CheckTags(map[string]any{"stars": json.Number("4")})
	if err != nil || got["stars"] != 4.0 {
		t.Errorf("CheckTags = %v, %v", got, err)
	}
	if _, err := task.CheckTags(map[string]any{"stars": json.Number("NaN")}); err == nil || !strings.Contains(err.Error(), "tags.stars: a number tag takes a finite number") {
		t.Errorf("NaN: %v", err)
	}
}
