package evaluatorprocessor

import (
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/confmap"
	"go.opentelemetry.io/collector/confmap/confmaptest"

	"github.com/evalcol/evalcol/processor/evaluatorprocessor/internal/metadata"
)

func ptr[T any](v T) *T { return &v }

func TestLoadConfig(t *testing.T) {
	cm, err := confmaptest.LoadConf(filepath.Join("testdata", "config.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	evalapi := component.MustNewID("evalapi")
	tests := []struct {
		id      component.ID
		want    *Config // nil when invalid
		wantErr []string
	}{
		{id: component.NewID(metadata.Type), want: &Config{
			Workers: runtime.GOMAXPROCS(0), Timeout: 2 * time.Second, MaxTextBytes: 64 << 10,
			GroundTruthAttribute: "gen_ai.evaluation.ground_truth",
		}},
		{id: component.NewIDWithName(metadata.Type, "full"), want: &Config{
			API: &evalapi, Workers: 4, Timeout: 500 * time.Millisecond, MaxTextBytes: 1024,
			GroundTruthAttribute: "app.expected_answer",
			Monitors: []MonitorConfig{
				{
					Name:       "safety",
					Evaluators: []EvaluatorConfig{{Name: "toxicity-detector"}, {Name: "pii-detector"}},
					Condition:  `attributes["gen_ai.operation.name"] == "chat"`,
				},
				{
					Name:       "rag",
					SampleRate: ptr(0.25),
					Evaluators: []EvaluatorConfig{{Name: "faithfulness"}, {Name: "toxicity-detector", Config: map[string]any{"threshold": 0.8}}},
					Inputs:     map[string]string{"context": `attributes["retrieval.documents"]`},
				},
			},
		}},
		{id: component.NewIDWithName(metadata.Type, "api_with_name"), want: &Config{
			API: ptr(component.MustNewIDWithName("evalapi", "production")), Workers: runtime.GOMAXPROCS(0),
			Timeout: 2 * time.Second, MaxTextBytes: 64 << 10, GroundTruthAttribute: "gen_ai.evaluation.ground_truth",
		}},
		{id: component.NewIDWithName(metadata.Type, "custom"), want: &Config{
			API: &evalapi, Workers: runtime.GOMAXPROCS(0), Timeout: 2 * time.Second, MaxTextBytes: 64 << 10,
			GroundTruthAttribute: "gen_ai.evaluation.ground_truth",
			Monitors: []MonitorConfig{{
				Name:       "refunds",
				Evaluators: []EvaluatorConfig{{Name: "word-count"}, {Custom: "no-refund-promise"}},
				Inputs:     map[string]string{"policy": `"30 days"`},
			}},
		}},
		{id: component.NewIDWithName(metadata.Type, "custom_without_api"), wantErr: []string{`monitors[0].evaluators[0]: custom "no-refund-promise" needs api`}},
		{id: component.NewIDWithName(metadata.Type, "custom_and_name"), wantErr: []string{`monitors[0].evaluators[0]: name "word-count" and custom "no-refund-promise": give one of them`}},
		{id: component.NewIDWithName(metadata.Type, "custom_with_config"), wantErr: []string{`monitors[0].evaluators[0]: custom "no-refund-promise" takes no config`}},
		{id: component.NewIDWithName(metadata.Type, "custom_prebuilt_slug"), wantErr: []string{`custom evaluator "toxicity-detector": the slug is a prebuilt evaluator's`}},
		{id: component.NewIDWithName(metadata.Type, "trace_level"), want: &Config{
			API: &evalapi, Workers: runtime.GOMAXPROCS(0), Timeout: 2 * time.Second, MaxTextBytes: 64 << 10,
			GroundTruthAttribute: "gen_ai.evaluation.ground_truth",
			Monitors: []MonitorConfig{{
				Name: "trip-agent", Level: "trace", QuietPeriod: 10 * time.Second,
				Condition:  `attributes["traceloop.workflow.name"] == "trip_agent"`,
				Evaluators: []EvaluatorConfig{{Name: "agent-efficiency"}, {Name: "agent-tool-trajectory", Config: map[string]any{"threshold": 0.9}}},
				Inputs:     map[string]string{"expected_tool_calls": `"[\"search_flights\", \"book_flight\"]"`},
			}},
		}},
		{id: component.NewIDWithName(metadata.Type, "trace_level_bad"), wantErr: []string{
			"monitors[0].level: trace needs api", "monitors[0].quiet_period: must be between 0 (default 30s) and 1h, got 2h0m0s",
			`monitors[1].level: "session" is not span or trace`, "monitors[2].quiet_period: only a monitor of level trace waits for a quiet period",
		}},
		{id: component.NewIDWithName(metadata.Type, "judged"), want: &Config{
			API: &evalapi, Workers: runtime.GOMAXPROCS(0), Timeout: 2 * time.Second, MaxTextBytes: 64 << 10,
			GroundTruthAttribute: "gen_ai.evaluation.ground_truth",
			Monitors:             []MonitorConfig{{Name: "tone", Evaluators: []EvaluatorConfig{{Name: "tone-detection", Judge: &JudgeConfig{Provider: "ollama", Model: "qwen2.5:7b"}}}}},
		}},
		{id: component.NewIDWithName(metadata.Type, "judged_bad"), wantErr: []string{
			"monitors[0].evaluators[0].judge: needs api", "monitors[0].evaluators[1].judge: needs api",
			`monitors[0].evaluators[2]: custom "mine" has its own judge`,
		}},
		{id: component.NewIDWithName(metadata.Type, "unknown_slug"), wantErr: []string{`monitors[0]: monitor "typo": unknown evaluator "toxicity-detectr" (known: `}},
		{id: component.NewIDWithName(metadata.Type, "sample_rate_above_one"), wantErr: []string{`monitors[0]: monitor "over": sample_rate must be between 0 and 1, got 1.5`}},
		{id: component.NewIDWithName(metadata.Type, "sample_rate_negative"), wantErr: []string{`monitors[0]: monitor "under": sample_rate must be between 0 and 1, got -0.1`}},
		{id: component.NewIDWithName(metadata.Type, "bad_condition"), wantErr: []string{`monitors[0]: monitor "broken": condition: `}},
		{id: component.NewIDWithName(metadata.Type, "unknown_ottl_function"), wantErr: []string{`monitors[0]: monitor "nofunc": condition: `, "NoSuchFunction"}},
		{id: component.NewIDWithName(metadata.Type, "negative_workers"), wantErr: []string{"workers: must not be negative, got -1"}},
		{id: component.NewIDWithName(metadata.Type, "zero_timeout"), wantErr: []string{"timeout: must be positive, got 0s"}},
		{id: component.NewIDWithName(metadata.Type, "zero_max_text_bytes"), wantErr: []string{"max_text_bytes: must be positive, got 0"}},
		{id: component.NewIDWithName(metadata.Type, "missing_name"), wantErr: []string{"monitors[0].name: must not be empty"}},
		{id: component.NewIDWithName(metadata.Type, "duplicate_name"), wantErr: []string{`monitors[1].name: "twice" is already the name of monitors[0]`}},
		{id: component.NewIDWithName(metadata.Type, "no_evaluators"), wantErr: []string{`monitors[0]: monitor "empty": evaluators must not be empty`}},
		{id: component.NewIDWithName(metadata.Type, "bad_evaluator_config"), wantErr: []string{`monitors[0]: monitor "strict": evaluator "toxicity-detector": config.threshold must be between 0 and 1, got 2`}},
		{id: component.NewIDWithName(metadata.Type, "bad_input"), wantErr: []string{`monitors[0]: monitor "inputs": inputs.question: no evaluator of the monitor takes an input called "question"`}},
	}
	for _, tt := range tests {
		t.Run(tt.id.String(), func(t *testing.T) {
			cfg := createDefaultConfig().(*Config)
			sub, err := cm.Sub(tt.id.String())
			if err != nil {
				t.Fatal(err)
			}
			if err := sub.Unmarshal(cfg); err != nil {
				t.Fatalf("Unmarshal: %v", err)
			}
			err = confmap.Validate(cfg)
			if tt.want == nil {
				if err == nil {
					t.Fatalf("Validate() = nil, want an error containing %q", tt.wantErr)
				}
				for _, w := range tt.wantErr {
					if !strings.Contains(err.Error(), w) {
						t.Errorf("Validate() = %v\nwant it to contain %q", err, w)
					}
				}
				return
			}
			if err != nil {
				t.Fatalf("Validate() = %v", err)
			}
			if !reflect.DeepEqual(cfg, tt.want) {
				t.Errorf("config =\n%+v\nwant\n%+v", cfg, tt.want)
			}
		})
	}
}
