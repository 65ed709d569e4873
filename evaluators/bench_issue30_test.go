package evaluators

import (
	"encoding/json"
	"strings"
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
