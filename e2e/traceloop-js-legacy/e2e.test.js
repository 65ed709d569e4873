// End-to-end: the older Traceloop Node SDK 0.22.8 (with openai 5), which
// writes gen_ai.prompt.N.* / gen_ai.completion.N.* attributes, against the
// evalcol binary. See ../README.md for what each test proves.
"use strict";

const { test, before, after } = require("node:test");
const assert = require("node:assert/strict");
const path = require("node:path");

const { startEvalcol, apiClient, runNode, eventually } = require("../lib/evalcol.js");
const { startMockOpenAI, RESPONSE_MODEL } = require("../lib/mock-openai.js");
const { promptMap, monitorEvaluations } = require("../lib/assertions.js");

const WORKFLOW = "pirate_joke_generator";
const CHAT_SPAN = "openai.chat";
const MONITOR = "legacy-chat";
// A static monitor on the legacy SDK's chat marker (it sets no
// gen_ai.operation.name), so evaluation is tested without the setups API.
const MONITORS = `
      - name: ${MONITOR}
        evaluators: [toxicity-detector, char-count]
        condition: 'attributes["llm.request.type"] == "chat"'`;

let evalcol;
let mock;
let api;
let fromSec;
let app;

before(async () => {
  fromSec = Math.floor(Date.now() / 1000) - 60;
  mock = await startMockOpenAI();
  evalcol = await startEvalcol({ monitors: MONITORS });
  api = apiClient(evalcol.apiURL, evalcol.apiKey);
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

async function chatSpans() {
  return eventually(async () => {
    const spans = await api.spans({ from_timestamp_sec: String(fromSec), span_name: CHAT_SPAN });
    return spans.length >= 3 ? spans : null;
  });
}

test("the app runs both workflows through the mock and exports without error", () => {
  assert.equal(app.code, 0, `app.js failed:\n${app.stderr}`);
  assert.equal(mock.calls.length, 3);
});

test("the workflow filter finds the legacy SDK's workflow, task and chat spans", async () => {
  const spans = await eventually(async () => {
    const s = await api.spans({ from_timestamp_sec: String(fromSec), workflow: WORKFLOW });
    return s.length >= 5 ? s : null;
  });
  assert.ok(spans, "5 spans of pirate_joke_generator within 15 s");
  assert.deepEqual(spans.map((s) => s.span_name).sort(), ["insult_creation.task", "joke_creation.task", CHAT_SPAN, CHAT_SPAN, "pirate_joke_generator.workflow"].sort());
  const sdkSpans = spans.filter((s) => s.scope_name === "@traceloop/node-server-sdk");
  assert.equal(sdkSpans.length, 3, "workflow and task spans come from the SDK itself");
  for (const s of sdkSpans) assert.equal(s.scope_version, "0.22.8");
});

test("gen_ai.prompt.N.* and gen_ai.completion.N.* are normalised into prompts and completions", async () => {
  const spans = await chatSpans();
  assert.ok(spans, "3 chat spans within 15 s");
  for (const { request, response } of mock.calls) {
    const reply = response.choices[0].message.content;
    const span = spans.find((s) => s.span_attributes["gen_ai.completion.0.content"] === reply);
    assert.ok(span, `a chat span whose gen_ai.completion.0.content is ${JSON.stringify(reply)}`);
    // The legacy keys are really there, and the /v2 maps hold them in the llm.* form.
    assert.equal(span.span_attributes["gen_ai.prompt.1.content"], request.messages[1].content);
    assert.equal(span.span_attributes["llm.prompts.0.content"], undefined, "the SDK did not write llm.prompts.* itself");
    assert.deepEqual(span.prompts, promptMap(request.messages));
    assert.deepEqual(span.completions, {
      "llm.completions.0.role": "assistant",
      "llm.completions.0.content": reply,
      "llm.completions.0.finish_reason": "stop",
    });
    assert.equal(span.input, request.messages.at(-1).content);
    assert.equal(span.output, reply);
    assert.equal(span.span_attributes["gen_ai.usage.prompt_tokens"], String(response.usage.prompt_tokens));
    assert.equal(span.span_attributes["gen_ai.usage.completion_tokens"], String(response.usage.completion_tokens));
    assert.equal(span.span_attributes["gen_ai.response.model"], RESPONSE_MODEL);
  }
  const sorted = await api.spans({ from_timestamp_sec: String(fromSec), span_name: CHAT_SPAN, sort_by: "llm_usage_total_tokens", sort_order: "DESC" });
  assert.deepEqual(sorted.map((s) => s.output), [...mock.calls].sort((a, b) => b.response.usage.total_tokens - a.response.usage.total_tokens).map((c) => c.response.choices[0].message.content));
});

test("evaluators read the legacy completions", async () => {
  const spans = await eventually(async () => {
    const all = await chatSpans();
    return all && all.every((s) => monitorEvaluations(s, MONITOR).length >= 2) ? all : null;
  });
  assert.ok(spans, "every chat span carries the static monitor's evaluations");
  for (const span of spans) {
    const evals = monitorEvaluations(span, MONITOR);
    const tox = evals.find((e) => e.name === "toxicity-detector");
    const chars = evals.find((e) => e.name === "char-count");
    assert.ok(tox && chars, JSON.stringify(span.evaluations));
    assert.equal(chars.output.char_count, [...span.span_attributes["gen_ai.completion.0.content"]].length);
    assert.equal(tox.output.is_safe, /worthless/.test(span.span_attributes["gen_ai.completion.0.content"]) ? "unsafe" : "safe");
  }
});
