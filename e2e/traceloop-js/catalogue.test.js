// End-to-end: evalcol serves the whole prebuilt catalogue of the Traceloop
// Node SDK 0.27.0 (issue 30). The slugs and schemas come from the SDK's
// own exports, getAvailableEvaluatorSlugs() and getEvaluatorSchemaInfo(),
// so a slug or field the SDK adds and evalcol lacks fails here; the SDK's
// own guards run against evalcol's /v2/guardrails path.
"use strict";

const { test, before, after } = require("node:test");
const assert = require("node:assert/strict");
const path = require("node:path");

const { getAvailableEvaluatorSlugs, getEvaluatorSchemaInfo } = require("@traceloop/node-server-sdk");
const { startEvalcol, apiClient, runNode } = require("../lib/evalcol.js");

let evalcol;
let api;
let catalogue; // slug -> GET /v2/evaluators entry

before(async () => {
  evalcol = await startEvalcol({ monitors: "[]" });
  api = apiClient(evalcol.apiURL, evalcol.apiKey);
  const res = await api.get("/v2/evaluators");
  assert.equal(res.status, 200, `GET /v2/evaluators: ${res.status} ${JSON.stringify(res.body)}`);
  catalogue = new Map(res.body.evaluators.map((e) => [e.slug, e]));
});

after(async () => {
  if (evalcol) await evalcol.stop();
});

test("the SDK exports its slug list and schemas", () => {
  assert.equal(typeof getAvailableEvaluatorSlugs, "function");
  assert.equal(typeof getEvaluatorSchemaInfo, "function");
  assert.ok(getAvailableEvaluatorSlugs().length >= 35, "the SDK lists its 35 prebuilt slugs");
});

test("GET /v2/evaluators serves every slug of the SDK", () => {
  const missing = getAvailableEvaluatorSlugs().filter((slug) => !catalogue.has(slug));
  assert.deepEqual(missing, [], `slugs the SDK lists and evalcol lacks: ${missing.join(", ")}`);
});

test("every input field the SDK requires and every config field it offers is in the catalogue", () => {
  const lacks = [];
  for (const slug of getAvailableEvaluatorSlugs()) {
    const schema = getEvaluatorSchemaInfo(slug);
    const entry = catalogue.get(slug);
    if (!schema || !entry) continue; // reported by the test above
    const inputs = new Set(entry.input_schema.map((f) => f.name));
    const config = new Set((entry.config_schema || []).map((f) => f.name));
    for (const f of schema.requiredInputFields) if (!inputs.has(f)) lacks.push(`${slug}: input.${f}`);
    for (const f of schema.optionalConfigFields) if (!config.has(f)) lacks.push(`${slug}: config.${f}`);
  }
  assert.deepEqual(lacks, [], `fields the SDK names and evalcol lacks:\n${lacks.join("\n")}`);
});

test("each slug of the SDK answers its execute path with the SDK's required inputs", async () => {
  const special = {
    trajectory_prompts: '["Find user info"]',
    trajectory_completions: '["User found"]',
    prompts: '["Hello"]',
    completions: '["Hi, how can I help?"]',
    executed_tool_calls: '[{"name": "search", "arguments": {"q": "x"}}]',
    expected_tool_calls: '["search"]',
    logprobs: "[-0.5, -1.25]",
    placeholder_value: "\\d+",
    tool_input: '{"q": "x"}',
    tool_output: '{"status": "ok"}',
  };
  const failures = [];
  for (const slug of getAvailableEvaluatorSlugs()) {
    const input = {};
    for (const f of getEvaluatorSchemaInfo(slug).requiredInputFields) input[f] = special[f] ?? "Paris is the capital of France.";
    const body = { input };
    if (slug === "regex-validator") body.config = { regex: "\\d+" };
    const res = await api.post(`/v2/evaluators/${slug}/execute`, body);
    if (res.status !== 200) failures.push(`${slug}: ${res.status} ${JSON.stringify(res.body)}`);
  }
  assert.deepEqual(failures, []);
});

test("the SDK's guards for the new evaluators pass and fail as their results say", async () => {
  const res = await runNode(path.join(__dirname, "catalogue-guards.js"), { EVALCOL_API_URL: evalcol.apiURL, TRACELOOP_API_KEY: evalcol.apiKey }, { cwd: __dirname });
  assert.equal(res.code, 0, `catalogue-guards.js failed:\n${res.stderr}`);
  const cases = JSON.parse(res.stdout);
  assert.equal(cases.length, 11);
  for (const c of cases) {
    const label = `${c.guard}(${JSON.stringify(c.output)})`;
    assert.equal(c.error, undefined, `${label} raised: ${c.error}`);
    assert.equal(c.passed, c.want, `${label}: passed ${c.passed}, want ${c.want}; results ${JSON.stringify(c.results)}`);
  }
});
