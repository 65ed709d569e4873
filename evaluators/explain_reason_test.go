package evaluators

import (
	"context"
	"testing"
)

func TestReasonOutputsExplain(t *testing.T) {
	def, _ := Lookup("agent-tool-trajectory")
	if !def.Explains() {
		t.Fatal("agent-tool-trajectory does not explain itself")
	}
	req, err := def.NewRequest(map[string]any{"executed_tool_calls": `["search"]`, "expected_tool_calls": `["search", "book"]`}, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := def.Run(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	e := def.Explain(context.Background(), req, res)
	if e == nil || e.Summary == "" || e.Summary != res["reason"] {
		t.Errorf("explanation = %+v, want the result's reason %q", e, res["reason"])
	}
	if wc, _ := Lookup("word-count"); wc.Explains() || wc.Explain(context.Background(), req, Result{"word_count": 3.0}) != nil {
		t.Error("word-count, without a reason output, explains")
	}
}
