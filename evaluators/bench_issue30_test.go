package evaluators

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
)

// benchTurns is a JSON array of n turns cut from prose1KB, about 1 KB in
// all.
func benchTurns(n, offset int) string {
	size := len(prose1KB) / n
	turns := make([]string, n)
	for i := range turns {
		start := (offset + i*size) % (len(prose1KB) - size)
		turns[i] = prose1KB[start : start+size]
	}
	b, _ := json.Marshal(turns)
	return string(b)
}

// benchToolCalls is a JSON array of about 1 KB of OpenAI-shaped tool calls.
func benchToolCalls(shift int) string {
	var calls []string
	for i := range 12 {
		calls = append(calls, `{"type":"function","function":{"name":"tool_`+string(rune('a'+(i+shift)%6))+`","arguments":"{\"query\":\"railway timetable `+string(rune('a'+i))+`\",\"limit\":10}"}}`)
	}
	return "[" + strings.Join(calls, ",") + "]"
}

// benchInputs are the inputs of Traceloop's other slugs for
// BenchmarkEvaluate, about 1 KB per text input; the inputs not listed
// here are the prose of BenchmarkEvaluate.
var benchInputs = map[string]map[string]any{
	"agent-efficiency":        {"trajectory_prompts": benchTurns(4, 0), "trajectory_completions": benchTurns(4, 100)},
	"agent-flow-quality":      {"trajectory_prompts": benchTurns(4, 0), "trajectory_completions": benchTurns(4, 100)},
	"agent-goal-completeness": {"trajectory_prompts": benchTurns(4, 0), "trajectory_completions": benchTurns(4, 100)},
	"intent-change":           {"prompts": benchTurns(4, 0), "completions": benchTurns(4, 100)},
	"agent-tool-error-detector": {
		"tool_input":  `{"query": "railway timetable", "limit": 10}`,
		"tool_output": `{"status": "ok", "results": ` + benchTurns(6, 0) + `}`,
	},
	"agent-tool-trajectory": {"executed_tool_calls": benchToolCalls(0), "expected_tool_calls": benchToolCalls(1)},
	"json-validator":        {"text": `{"report": ` + benchTurns(6, 0) + `, "year": 2024, "ok": true}`},
	"sql-validator": {"text": "SELECT s.name, COUNT(*) AS trains, AVG(d.delay_minutes) AS avg_delay FROM stations s JOIN departures d ON d.station_id = s.id " +
		strings.Repeat("WHERE d.day BETWEEN '2024-01-01' AND '2024-12-31' AND d.line IN ('north', 'east', 'viaduct') AND s.region = 'northern' ", 1) +
		"GROUP BY s.name HAVING COUNT(*) > 100 ORDER BY avg_delay DESC LIMIT 50; " +
		"WITH late AS (SELECT station_id, delay_minutes FROM departures WHERE delay_minutes > 4) SELECT station_id, MAX(delay_minutes) FROM late GROUP BY station_id; " +
		"INSERT INTO reports (title, body, year) VALUES ('Annual report', 'The network carried 48 million passengers', 2024); " +
		"UPDATE stations SET region = 'north' WHERE id IN (SELECT station_id FROM late_stations WHERE delays > 12)"},
	"instruction-adherence": {"instructions": "Respond in exactly 3 bullet points, use formal language, do not use the word \"cheap\" and include the word \"railway\". " + prose1KB[:800]},
	"topic-adherence":       {"reference_topics": "railway operations, passenger numbers, infrastructure investment, timetables, maintenance"},
}

// benchConfigs are the configs of BenchmarkEvaluate for those slugs.
var benchConfigs = map[string]map[string]any{
	"agent-flow-quality": {"conditions": []any{"passengers carried before investment", "no strike", "timetable cut delays"}, "threshold": 0.5},
	"json-validator": {"enable_schema_validation": true, "schema_string": `{"type": "object", "required": ["report", "year"], ` +
		`"properties": {"report": {"type": "array", "items": {"type": "string"}}, "year": {"type": "integer"}, "ok": {"type": "boolean"}}}`},
}

// BenchmarkCatalogue30 runs each of Traceloop's other slugs through
// Evaluate on the inputs of BenchmarkEvaluate (about 1 KB per text
// input) and reports, besides ns/op, the process CPU time per call and
// per KB of input (cpu-ns/op, cpu-ns/KB): on the shared machine, wall
// time counts the other processes' load too.
//
//	go test -run '^$' -bench BenchmarkCatalogue30 -benchmem ./evaluators/
func BenchmarkCatalogue30(b *testing.B) {
	for _, d := range Catalogue()[18:] {
		input := map[string]any{}
		for i, f := range d.Inputs {
			input[f.Name] = prose1KB[i*40:] + prose1KB[:i*40]
		}
		for k, v := range benchInputs[d.Slug] {
			input[k] = v
		}
		config := benchConfigs[d.Slug]
		bytes := 0
		for _, v := range input {
			bytes += len(v.(string))
		}
		ctx := context.Background()
		if _, err := Evaluate(ctx, d.Slug, input, config); err != nil { // load models first
			b.Fatal(err)
		}
		b.Run(d.Slug, func(b *testing.B) {
			b.ReportAllocs()
			cpu0 := processCPU(b)
			n := 0
			for b.Loop() {
				if _, err := Evaluate(ctx, d.Slug, input, config); err != nil {
					b.Fatal(err)
				}
				n++
			}
			cpu := float64((processCPU(b) - cpu0).Nanoseconds()) / float64(n)
			b.ReportMetric(cpu, "cpu-ns/op")
			b.ReportMetric(cpu/(float64(bytes)/1024), "cpu-ns/KB")
		})
	}
}
