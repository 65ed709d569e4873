package evaluators

import (
	"context"
	"strings"
	"testing"
)

const htmlComparisonDoc = `<html><body><div class="card" id="c1"><h2>Order summary</h2>
<p>Your order of <b>three</b> books ships tomorrow.</p>
<ul><li>Dune</li><li>Emma</li><li>Ulysses</li></ul></div></body></html>`

func TestHTMLComparison(t *testing.T) {
	tests := []struct {
		name       string
		html1      string
		html2      string
		low, high  float64 // want low <= score <= high
		wantPasses bool
	}{
		{"identical", htmlComparisonDoc, htmlComparisonDoc, 1, 1, true},
		{"both empty", "", "", 1, 1, true},
		{"attribute order and white space", htmlComparisonDoc,
			strings.NewReplacer(`class="card" id="c1"`, `id="c1"   class="card"`, "\n", "\n    ").Replace(htmlComparisonDoc), 1, 1, true},
		{"one word changed", htmlComparisonDoc, strings.Replace(htmlComparisonDoc, "tomorrow", "today", 1), 0.85, 0.999, true},
		{"disjoint", htmlComparisonDoc, `<form action="/x"><input name="q"><button>Search</button></form>`, 0, 0.1, false},
		{"document against empty", htmlComparisonDoc, "", 0, 0, false},
	}
	d, _ := Lookup("html-comparison")
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := evaluateOK(t, "html-comparison", map[string]any{"html1": tt.html1, "html2": tt.html2}, nil)
			got, ok := res["similarity_score"].(float64)
			if !ok || got < tt.low || got > tt.high {
				t.Errorf("similarity_score = %v, want in [%v, %v]", res["similarity_score"], tt.low, tt.high)
			}
			if d.Pass(res) != tt.wantPasses {
				t.Errorf("Pass = %v, want %v", d.Pass(res), tt.wantPasses)
			}
		})
	}
}

func TestHTMLComparisonInvalid(t *testing.T) {
	tests := []struct {
		name        string
		input       map[string]any
		field, want string
	}{
		{"html1 missing", map[string]any{"html2": "<p>"}, "input.html1", "input.html1 is required"},
		{"html2 missing", map[string]any{"html1": "<p>"}, "input.html2", "input.html2 is required"},
		{"html2 not a string", map[string]any{"html1": "<p>", "html2": map[string]any{}}, "input.html2", "input.html2 must be a string, got object"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := Evaluate(context.Background(), "html-comparison", tt.input, nil)
			if err == nil {
				t.Fatalf("Evaluate = %v, want an error", res)
			}
			checkInvalidInput(t, err, tt.field, tt.want)
		})
	}
}

func BenchmarkHTMLComparison(b *testing.B) {
	doc := strings.Repeat(`<div class="row"><p>The quick brown fox jumps over the <b>lazy</b> dog.</p></div>`, 13)[:1024]
	input := map[string]any{"html1": doc, "html2": strings.Replace(doc, "lazy", "sleepy", 3)}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Evaluate(context.Background(), "html-comparison", input, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// TestHTMLComparisonTooDeep: a document nested deeper than the parser
// accepts is bad input (400 naming the field), not an internal error.
func TestHTMLComparisonTooDeep(t *testing.T) {
	deep := strings.Repeat("<div>", 600) + "x" + strings.Repeat("</div>", 600)
	for _, tc := range []struct{ html1, html2, field string }{
		{deep, "<p>x</p>", "input.html1"},
		{"<p>x</p>", deep, "input.html2"},
	} {
		res, err := Evaluate(context.Background(), "html-comparison", map[string]any{"html1": tc.html1, "html2": tc.html2}, nil)
		if err == nil {
			t.Fatalf("Evaluate = %v, want an error", res)
		}
		checkInvalidInput(t, err, tc.field, tc.field+": elements are nested deeper than 512 levels, the most the HTML parser accepts")
	}
	// 500 levels are fine.
	ok := strings.Repeat("<div>", 500) + "x" + strings.Repeat("</div>", 500)
	if _, err := Evaluate(context.Background(), "html-comparison", map[string]any{"html1": ok, "html2": ok}, nil); err != nil {
		t.Errorf("500 levels: %v", err)
	}
}
