// Runs the Traceloop SDK's own pre-built guards for Traceloop's other
// evaluators (issue 30) against evalcol, each on an input that should
// pass and one that should fail: jsonValidatorGuard, sqlValidatorGuard,
// toneDetectionGuard, instructionAdherenceGuard and promptPerplexityGuard
// post to <baseUrl>/v2/guardrails/<slug>/execute and read their
// condition field from the result (is_valid_json, is_valid_sql, score,
// instruction_adherence_score, is_valid). Prints one JSON line: the
// outcome of every case, or the error it raised.
"use strict";

const traceloop = require("@traceloop/node-server-sdk");

traceloop.initialize({
  appName: "catalogue-guard-app",
  apiKey: process.env.TRACELOOP_API_KEY,
  baseUrl: process.env.EVALCOL_API_URL,
  tracingEnabled: false,
  traceloopSyncEnabled: false,
  silenceInitializationMessage: true,
});

/** The cases: which guard, the output it checks, and whether it should pass. */
const CASES = [
  { guard: "jsonValidatorGuard", output: '{"name": "John", "age": 30}', want: true },
  { guard: "jsonValidatorGuard", output: '{"name": "John", "age": 30,}', want: false },
  {
    guard: "jsonValidatorGuard",
    options: { config: { enable_schema_validation: true, schema_string: '{"type": "object", "required": ["name", "age"]}' } },
    output: '{"name": "John"}',
    want: false,
  },
  { guard: "sqlValidatorGuard", output: "SELECT * FROM users WHERE id = 1;", want: true },
  { guard: "sqlValidatorGuard", output: "SELEC * FROM users WHERE", want: false },
  { guard: "toneDetectionGuard", output: "I am so happy with the result, thank you!", want: true },
  { guard: "toneDetectionGuard", output: "Mixed day: a happy start, a sad middle, an angry end, and a surprising report about quarterly figures.", want: false },
  {
    guard: "instructionAdherenceGuard",
    output: { instructions: "Respond in exactly 3 bullet points and use formal language.", response: "- First point\n- Second point\n- Final point" },
    want: true,
  },
  {
    guard: "instructionAdherenceGuard",
    output: { instructions: "Respond in exactly 3 bullet points and use formal language.", response: "Yeah it's cool, dude!" },
    want: false,
  },
  { guard: "promptPerplexityGuard", output: "What is the capital of France?", want: true },
  { guard: "promptPerplexityGuard", output: "xq zzkw vbnq pflrg qqxz jjkw", want: false },
];

async function main() {
  const out = [];
  for (const c of CASES) {
    try {
      const res = await traceloop.validateContent(c.output, [traceloop[c.guard](c.options)]);
      out.push({ guard: c.guard, output: c.output, want: c.want, passed: res.passed, results: res.results });
    } catch (err) {
      out.push({ guard: c.guard, output: c.output, want: c.want, error: String(err && err.originalException ? err.originalException.message : err) });
    }
  }
  process.stdout.write(JSON.stringify(out) + "\n");
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
