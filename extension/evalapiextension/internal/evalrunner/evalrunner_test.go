package evalrunner

import (
	"context"
	"strings"
	"testing"

	"github.com/evalcol/evalcol/internal/judge"
	"github.com/evalcol/evalcol/internal/judge/judgetest"
	"github.com/evalcol/evalcol/internal/tenant"
)

func TestExperimentRunsAPrebuiltEvaluatorThroughAJudge(t *testing.T) {
	srv := judgetest.New(t, func(judgetest.Request) judgetest.Reply {
		return judgetest.OpenAIText(`{"tone": "anger", "score": 0.9}`)
	})
	jc, err := judge.New([]judge.ProviderConfig{{Name: "local", Type: judge.TypeOpenAI, BaseURL: srv.OpenAIBaseURL()}})
	if err != nil {
		t.Fatal(err)
	}
	run := New(nil, jc)
	ctx := context.Background()
	tn := tenant.Tenant{Environment: "prod", OrganizationID: "o", ProjectID: "p"}
	input := map[string]any{"text": "This is outrageous, I want my money back!"}
	res, err := run(ctx, tn, "tone-detection", input, map[string]any{"judge": map[string]any{"provider": "local", "model": "qwen2.5:7b"}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Verdict != "pass" || res.Output["tone"] != "anger" || res.Score == nil || *res.Score != 0.9 {
		t.Errorf("result = %+v, want the judge's answer decided by tone-detection (score 0.9 passes)", res)
	}
	if got := len(srv.Requests()); got != 1 {
		t.Errorf("judge calls = %d, want 1", got)
	}
	// Offline without judge: no call.
	if _, err := run(ctx, tn, "tone-detection", input, nil); err != nil || len(srv.Requests()) != 1 {
		t.Errorf("offline run: %v, %d calls", err, len(srv.Requests()))
	}
	for _, tc := range []struct {
		judge map[string]any
		want  string
	}{
		{map[string]any{"provider": "local"}, "config.judge: give exactly a provider (one of local) and a model"},
		{map[string]any{"provider": "openai", "model": "gpt-4o"}, `config.judge.provider: "openai" is not a judge provider of this collector (configured: local)`},
	} {
		_, err := run(ctx, tn, "tone-detection", input, map[string]any{"judge": tc.judge})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("judge %v: %v, want %q", tc.judge, err, tc.want)
		}
	}
}
