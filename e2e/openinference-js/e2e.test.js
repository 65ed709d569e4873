// End-to-end: OpenInference's OpenAI instrumentation 4.2.7 on the
// OpenTelemetry JS SDK, exporting OTLP/HTTP JSON to the evalcol binary.
// See ../README.md for what each test proves.
"use strict";

const { test, before, after } = require("node:test");
const assert = require("node:assert/strict");
const path = require("node:path");

const { startEvalcol, apiClient, runNode, eventually } = require("../lib/evalcol.js");
const { startMockOpenAI, RESPONSE_MODEL } = require("../lib/mock-openai.js");
const { bindingSlugs, promptMap, monitorEvaluations, waitForSetupLoaded } = require("../lib/assertions.js");

const SERVICE = "pirate-oi-app";
const CHAT_SPAN = "OpenAI Chat Completions";

let evalcol;
let mock;
let api;
let fromSec;
let setupCreated;
let app;

before(async () => {
  fromSec = Math.floor(Date.now() / 1000) - 60;
  mock = await startMockOpenAI();
  evalcol = await startEvalcol({ monitors: "[]" });
  api = apiClient(evalcol.apiURL, evalcol.apiKey);
  setupCreated = await api.post("/v2/auto-monitor-setups", {
    entity_type: "service",
    entity_value: SERVICE,
    evaluators: ["toxicity-detector", "char-count"],
    external_id: "e2e-openinference-js",
  });
  if (setupCreated.status === 201) await waitForSetupLoaded(api, setupCreated.body.id);
  app = await runNode(path.join(__dirname, "app.js"), {
    OTLP_ENDPOINT: `${evalcol.otlpHTTPURL}/v1/traces`,
    EVALCOL_API_KEY: evalcol.apiKey,
    OPENAI_BASE_URL: mock.baseURL,
  }, { cwd: __dirname });
});

after(async () => {
  if (evalcol) await evalcol.stop();
  if (mock) await mock.close();
});

/** All stored spans (only this app sends here), once all 5 (2 chains, 3 chats) are there. */
async function appSpans() {
  return eventually(async () => {
    const spans = await api.spans({ from_timestamp_sec: String(fromSec) }); // this evalcol holds only this app
    return spans.length >= 5 ? spans : null;
  });
}

function setupId() {
  assert.equal(setupCreated.status, 201, `POST /v2/auto-monitor-setups: ${setupCreated.status} ${JSON.stringify(setupCreated.body)}`);
  return setupCreated.body.id;
}

test("the app runs through the mock and exports without error", () => {
  assert.equal(app.code, 0, `app.js failed:\n${app.stderr}`);
  assert.equal(mock.calls.length, 3);
});

test("CHAIN and LLM spans are stored with their parent links", async () => {
  const spans = await appSpans();
  assert.ok(spans, "5 spans of pirate-oi-app arrive within 15 s");
  assert.deepEqual(spans.map((s) => s.span_name).sort(), [CHAT_SPAN, CHAT_SPAN, CHAT_SPAN, "pirate_joke_generator", "support_reply"]);
  const chain = (n) => spans.find((s) => s.span_name === n);
  const pirate = chain("pirate_joke_generator");
  const support = chain("support_reply");
  assert.equal(spans.filter((s) => s.parent_span_id === pirate.span_id).length, 2);
  assert.equal(spans.filter((s) => s.parent_span_id === support.span_id).length, 1);
  for (const s of spans) {
    assert.equal(s.service_name, SERVICE);
    assert.equal(s.environment, "production");
  }
});

test("OpenInference messages, token counts and input.value/output.value are normalised", async () => {
  const spans = await appSpans();
  assert.ok(spans);
  for (const { request, response } of mock.calls) {
    const reply = response.choices[0].message.content;
    const span = spans.find((s) => s.span_name === CHAT_SPAN && s.span_attributes["llm.output_messages.0.message.content"] === reply);
    assert.ok(span, `an LLM span for ${response.id}`);
    // llm.input_messages.N.message.* -> prompts, llm.output_messages.N.message.* -> completions
    assert.deepEqual(span.prompts, promptMap(request.messages));
    const { "llm.completions.0.finish_reason": finish, ...completion } = span.completions;
    assert.deepEqual(completion, { "llm.completions.0.role": "assistant", "llm.completions.0.content": reply });
    // OpenInference reports the finish reason per span (llm.finish_reason), not per message.
    if (finish !== undefined) assert.equal(finish, "stop");
    assert.equal(span.input, request.messages.at(-1).content, "input of an LLM span is the user prompt");
    assert.equal(span.output, reply, "output of an LLM span is the completion");
    assert.equal(span.span_attributes["llm.token_count.prompt"], String(response.usage.prompt_tokens));
    assert.equal(span.span_attributes["llm.token_count.completion"], String(response.usage.completion_tokens));
    assert.equal(span.span_attributes["llm.token_count.total"], String(response.usage.total_tokens));
    assert.equal(span.span_attributes["llm.model_name"], RESPONSE_MODEL);
  }
  // input.value / output.value of a CHAIN span -> input / output
  const outJSON = JSON.parse(app.stdout);
  const pirate = spans.find((s) => s.span_name === "pirate_joke_generator");
  assert.equal(pirate.input, "jokes and insults about pirates");
  assert.equal(pirate.output, outJSON.pirate);
  assert.deepEqual(pirate.prompts, {});
  assert.deepEqual(pirate.completions, {});
  const support = spans.find((s) => s.span_name === "support_reply");
  assert.equal(support.input, "How do I contact support?");
  assert.equal(support.output, outJSON.support);
  // llm.token_count.total -> evalcol's total tokens: sorting on it orders the LLM spans as the mock counted.
  const sorted = await api.spans({ from_timestamp_sec: String(fromSec), span_name: CHAT_SPAN, sort_by: "llm_usage_total_tokens", sort_order: "DESC" });
  assert.deepEqual(sorted.map((s) => s.output), [...mock.calls].sort((a, b) => b.response.usage.total_tokens - a.response.usage.total_tokens).map((c) => c.response.choices[0].message.content));
});

test("a service auto monitor setup evaluates the OpenInference LLM spans", async () => {
  const id = setupId();
  assert.deepEqual(bindingSlugs(setupCreated.body), ["char-count", "toxicity-detector"]);
  const spans = await eventually(async () => {
    const all = await api.spans({ from_timestamp_sec: String(fromSec), span_name: CHAT_SPAN });
    return all.length === 3 && all.every((s) => monitorEvaluations(s, id).length >= 2) ? all : null;
  });
  assert.ok(spans, "the three LLM spans carry the setup's evaluations within 15 s");
  for (const span of spans) {
    const evals = monitorEvaluations(span, id);
    const tox = evals.find((e) => e.name === "toxicity-detector");
    const chars = evals.find((e) => e.name === "char-count");
    assert.ok(tox && chars, JSON.stringify(span.evaluations));
    assert.equal(chars.output.char_count, [...span.output].length);
    assert.equal(tox.output.is_safe, /worthless/.test(span.output) ? "unsafe" : "safe", span.output);
  }
  const res = await api.post("/v2/metrics", {
    from_timestamp_sec: fromSec,
    metric_name: "char-count.char_count",
    filters: [{ field: "labels.monitor_id", operator: "equals", value: id }],
  });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  const points = res.body.metrics.data.flatMap((g) => g.points);
  assert.equal(points.length, 3);
  for (const p of points) {
    assert.equal(p.labels.model, RESPONSE_MODEL, "llm.model_name becomes the model label");
    assert.equal(p.labels.vendor, "openai", "llm.system becomes the vendor label");
    assert.equal(p.labels.service_name, SERVICE);
  }
});
