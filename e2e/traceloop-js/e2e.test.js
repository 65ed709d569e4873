// End-to-end: the Traceloop Node SDK 0.27.0 (with openai 6) against the
// evalcol binary. See ../README.md for what each test proves.
"use strict";

const { test, before, after } = require("node:test");
const assert = require("node:assert/strict");
const path = require("node:path");

const { startEvalcol, apiClient, runNode, eventually } = require("../lib/evalcol.js");
const { startMockOpenAI, RESPONSE_MODEL } = require("../lib/mock-openai.js");
const { bindingSlugs, promptMap, monitorEvaluations, waitForSetupLoaded } = require("../lib/assertions.js");

const WORKFLOW = "pirate_joke_generator";
const OTHER_WORKFLOW = "support_reply";
const EXTERNAL_ID = "e2e-traceloop-js-pirates";

let evalcol;
let mock;
let api;
let fromSec;
let setupCreated; // { status, body } of POST /v2/auto-monitor-setups
let setupLoaded; // { status, body } of GET /v2/auto-monitor-setups/<id> before the app ran
let app; // { code, stdout, stderr } of app.js

before(async () => {
  fromSec = Math.floor(Date.now() / 1000) - 60;
  mock = await startMockOpenAI();
  evalcol = await startEvalcol({ monitors: "[]" });
  api = apiClient(evalcol.apiURL, evalcol.apiKey);
  // The setup exists before the app sends anything.
  setupCreated = await api.post("/v2/auto-monitor-setups", {
    entity_type: "workflow",
    entity_value: WORKFLOW,
    evaluators: ["toxicity-detector", "char-count"],
    external_id: EXTERNAL_ID,
  });
  if (setupCreated.status === 201) setupLoaded = await waitForSetupLoaded(api, setupCreated.body.id);
  app = await runNode(path.join(__dirname, "app.js"), {
    TRACELOOP_BASE_URL: evalcol.otlpHTTPURL,
    TRACELOOP_API_KEY: evalcol.apiKey,
    OPENAI_BASE_URL: mock.baseURL,
  }, { cwd: __dirname });
});

after(async () => {
  if (evalcol) await evalcol.stop();
  if (mock) await mock.close();
});

/** Every span of a workflow, once at least min of them are stored. */
async function workflowSpans(workflow, min) {
  return eventually(async () => {
    const spans = await api.spans({ from_timestamp_sec: String(fromSec), workflow });
    return spans.length >= min ? spans : null;
  });
}

let guardRun; // the one run of guard.js, shared by the guardrail tests
function guardCases() {
  guardRun ??= runNode(path.join(__dirname, "guard.js"), { EVALCOL_API_URL: evalcol.apiURL, TRACELOOP_API_KEY: evalcol.apiKey }, { cwd: __dirname });
  return guardRun.then((res) => {
    assert.equal(res.code, 0, `guard.js failed:\n${res.stderr}`);
    return JSON.parse(res.stdout);
  });
}

function setupId() {
  assert.equal(setupCreated.status, 201, `POST /v2/auto-monitor-setups: ${setupCreated.status} ${JSON.stringify(setupCreated.body)}`);
  return setupCreated.body.id;
}

test("the app runs both workflows through the mock and exports without error", () => {
  assert.equal(app.code, 0, `app.js failed:\n${app.stderr}`);
  assert.equal(mock.calls.length, 3, "three chat completions reach the mock");
});

test("workflow, task and chat spans of pirate_joke_generator are stored with their parent links", async () => {
  const spans = await workflowSpans(WORKFLOW, 5);
  assert.ok(spans, "spans of pirate_joke_generator arrive within 15 s");
  const names = spans.map((s) => s.span_name).sort();
  assert.deepEqual(names, ["pirate_joke_generator.workflow", "joke_creation.task", "insult_creation.task", "chat gpt-4o-mini", "chat gpt-4o-mini"].sort());
  const byName = (n) => spans.filter((s) => s.span_name === n);
  const [workflow] = byName("pirate_joke_generator.workflow");
  assert.equal(workflow.parent_span_id, "");
  assert.equal(workflow.span_attributes["traceloop.span.kind"], "workflow");
  for (const task of ["joke_creation.task", "insult_creation.task"]) {
    const [t] = byName(task);
    assert.equal(t.parent_span_id, workflow.span_id, `${task} is a child of the workflow span`);
    assert.equal(t.span_attributes["traceloop.span.kind"], "task");
    const chats = spans.filter((s) => s.parent_span_id === t.span_id);
    assert.equal(chats.length, 1, `${task} has one chat span`);
    assert.equal(chats[0].span_kind, "SPAN_KIND_CLIENT");
  }
  for (const s of spans) {
    assert.equal(s.trace_id, workflow.trace_id, "one trace");
    assert.equal(s.service_name, "pirate-app");
    assert.equal(s.environment, "production", "the API key's environment");
    assert.equal(s.span_attributes["traceloop.workflow.name"], WORKFLOW);
  }
  assert.equal(workflow.output, JSON.stringify(JSON.parse(app.stdout).pirate), "workflow output is traceloop.entity.output");
});

test("chat spans carry prompts, completions, usage, model, input and output", async () => {
  const spans = await workflowSpans(WORKFLOW, 5);
  assert.ok(spans);
  const pirateCalls = mock.calls.slice(0, 2);
  for (const { request, response } of pirateCalls) {
    const span = spans.find((s) => s.span_attributes["gen_ai.response.id"] === response.id);
    assert.ok(span, `a span for ${response.id}`);
    assert.deepEqual(span.prompts, promptMap(request.messages));
    assert.deepEqual(span.completions, {
      "llm.completions.0.role": "assistant",
      "llm.completions.0.content": response.choices[0].message.content,
      "llm.completions.0.finish_reason": "stop",
    });
    assert.equal(span.input, request.messages.at(-1).content, "input is the user prompt");
    assert.equal(span.output, response.choices[0].message.content, "output is the completion");
    assert.equal(span.span_attributes["gen_ai.request.model"], "gpt-4o-mini");
    assert.equal(span.span_attributes["gen_ai.response.model"], RESPONSE_MODEL);
    assert.equal(span.span_attributes["gen_ai.usage.input_tokens"], String(response.usage.prompt_tokens));
    assert.equal(span.span_attributes["gen_ai.usage.output_tokens"], String(response.usage.completion_tokens));
  }
  // evalcol derives total tokens and the response model itself: sorting and
  // filtering on them orders and selects the chat spans as the mock counted.
  const sorted = await api.spans({ from_timestamp_sec: String(fromSec), span_name: "chat gpt-4o-mini", sort_by: "llm_usage_total_tokens", sort_order: "DESC" });
  assert.deepEqual(sorted.map((s) => s.span_attributes["gen_ai.response.id"]), [...mock.calls].sort((a, b) => b.response.usage.total_tokens - a.response.usage.total_tokens).map((c) => c.response.id));
});

test("the other workflow is stored under its own name", async () => {
  const spans = await workflowSpans(OTHER_WORKFLOW, 2);
  assert.ok(spans, "spans of support_reply arrive");
  assert.deepEqual(spans.map((s) => s.span_name).sort(), ["chat gpt-4o-mini", "support_reply.workflow"]);
  const chat = spans.find((s) => s.span_name === "chat gpt-4o-mini");
  assert.equal(chat.output, mock.calls[2].response.choices[0].message.content);
});

test("POST /v2/auto-monitor-setups creates the workflow setup", () => {
  const id = setupId();
  const s = setupCreated.body;
  assert.equal(typeof id, "string");
  assert.ok(id.length > 0);
  assert.equal(s.external_id, EXTERNAL_ID);
  assert.equal(s.entity_type, "workflow");
  assert.equal(s.entity_value, WORKFLOW);
  assert.deepEqual(bindingSlugs(s), ["char-count", "toxicity-detector"]);
});

test("the setup evaluates the completions of pirate_joke_generator, and only that workflow", async () => {
  const id = setupId();
  const spans = await eventually(async () => {
    const all = await api.spans({ from_timestamp_sec: String(fromSec), workflow: WORKFLOW, span_name: "chat gpt-4o-mini" });
    return all.length === 2 && all.every((s) => monitorEvaluations(s, id).length >= 2) ? all : null;
  });
  assert.ok(spans, "both pirate chat spans carry the setup's evaluations within 15 s");
  for (const span of spans) {
    const evals = monitorEvaluations(span, id);
    const tox = evals.find((e) => e.name === "toxicity-detector");
    const chars = evals.find((e) => e.name === "char-count");
    assert.ok(tox && chars, `toxicity-detector and char-count on ${span.span_id}: ${JSON.stringify(span.evaluations)}`);
    assert.equal(tox.error ?? "", "");
    assert.equal(chars.output.char_count, [...span.output].length, "char-count counts the completion's characters");
    const toxic = /worthless/.test(span.output);
    assert.equal(tox.output.is_safe, toxic ? "unsafe" : "safe", `toxicity of ${JSON.stringify(span.output)}`);
  }
  const other = await api.spans({ from_timestamp_sec: String(fromSec), workflow: OTHER_WORKFLOW });
  assert.ok(other.length >= 2);
  for (const s of other) assert.deepEqual(s.evaluations, [], `${s.span_name} of support_reply is not evaluated`);
});

test("POST /v2/metrics filtered by labels.monitor_id returns the setup's points", async () => {
  const id = setupId();
  const query = {
    from_timestamp_sec: fromSec,
    filters: [{ field: "labels.monitor_id", operator: "equals", value: id }],
    limit: 1000,
  };
  const res = await eventually(async () => {
    const r = await api.post("/v2/metrics", query);
    return r.status === 200 && r.body.metrics.total_points >= 4 ? r : null;
  });
  assert.ok(res, "at least 4 points (2 spans x 2 evaluators) within 15 s");
  const groups = Object.fromEntries(res.body.metrics.data.map((g) => [g.metric_name, g.points]));
  assert.deepEqual(Object.keys(groups).sort(), ["char-count.char_count", "toxicity-detector.is_safe"]);
  assert.deepEqual(groups["toxicity-detector.is_safe"].map((p) => p.enum_value).sort(), ["safe", "unsafe"]);
  assert.deepEqual(groups["char-count.char_count"].map((p) => p.numeric_value).sort((a, b) => a - b),
    mock.calls.slice(0, 2).map((c) => [...c.response.choices[0].message.content].length).sort((a, b) => a - b));
  for (const points of Object.values(groups)) {
    for (const p of points) {
      assert.equal(p.labels.monitor_id, id);
      assert.equal(p.labels.workflow, WORKFLOW);
    }
  }
});

test("the setup goes from waiting_for_spans to in_progress, its bindings active", async () => {
  const id = setupId();
  assert.equal(setupLoaded.status, 200, JSON.stringify(setupLoaded.body));
  assert.equal(setupLoaded.body.status, "waiting_for_spans", "loaded before the app ran, nothing matched yet");
  const got = await eventually(async () => {
    const r = await api.get(`/v2/auto-monitor-setups/${encodeURIComponent(id)}`);
    return r.status === 200 && r.body.status === "in_progress" ? r : null;
  });
  const last = got ?? (await api.get(`/v2/auto-monitor-setups/${encodeURIComponent(id)}`));
  assert.equal(last.status, 200, JSON.stringify(last.body));
  assert.equal(last.body.status, "in_progress");
  assert.deepEqual(last.body.evaluators.map((b) => b.status), ["active", "active"]);
});

test("the SDK's guardrails client gets evalcol's verdicts (toxicity, PII, prompt injection)", async (t) => {
  const cases = Object.fromEntries((await guardCases()).map((c) => [c.name, c]));
  // Whether the text was flagged, read from the raw result the SDK got
  // (evalcol answers "safe"/"unsafe" strings, Traceloop booleans).
  const flagged = {
    "toxicity-detector": (o) => o.is_safe === false || o.is_safe === "unsafe",
    "pii-detector": (o) => o.has_pii === true,
    "prompt-injection": (o) => o.has_injection === true || o.has_injection === "unsafe",
  };
  const expectFlagged = { toxic: true, polite: false, email: true, "no-pii": false, injection: true, question: false };
  for (const [name, want] of Object.entries(expectFlagged)) {
    await t.test(`${name}: ${want ? "flagged" : "not flagged"}`, () => {
      const c = cases[name];
      assert.equal(c.error, undefined, `the guard raised: ${c.error}`);
      const [r] = c.results;
      assert.equal(flagged[r.name](r.output), want, `${r.name} answered ${JSON.stringify(r.output)}`);
    });
  }
});

test("the SDK's default guard conditions pass benign texts and stop the bad ones", async (t) => {
  const expectPass = { toxic: false, polite: true, email: false, "no-pii": true, injection: false, question: true };
  for (const c of await guardCases()) {
    await t.test(`${c.guard} on ${c.name}: ${expectPass[c.name] ? "pass" : "fail"}`, () => {
      assert.equal(c.error, undefined, `the guard raised: ${c.error}`);
      assert.equal(c.passed, expectPass[c.name], `${c.guard}() judged ${JSON.stringify(c.results[0].output)} as passed=${c.passed}`);
    });
  }
});
