// End-to-end: custom LLM-as-a-judge evaluators (issue 28) through the
// Traceloop Node SDK 0.27.0's client.evaluator (create, list, get, update,
// run) against evalcol, whose configured judge provider "local" is a tiny
// OpenAI-compatible server started here (it never leaves the machine).
"use strict";

const { test, before, after } = require("node:test");
const assert = require("node:assert/strict");
const http = require("node:http");
const path = require("node:path");

const { TraceloopClient } = require("@traceloop/node-server-sdk");
const { startEvalcol, apiClient, runNode, eventually } = require("../lib/evalcol.js");
const { startMockOpenAI } = require("../lib/mock-openai.js");

const PROVIDER_KEY = "sk-local-judge-key-e2e";

/**
 * A judge speaking OpenAI's Chat Completions API: it answers a JSON object
 * for the json_schema response format asked for, passing an answer that
 * mentions a policy. It records every request.
 */
function startJudge() {
  const requests = [];
  const server = http.createServer((req, res) => {
    let raw = "";
    req.setEncoding("utf8");
    req.on("data", (d) => (raw += d));
    req.on("end", () => {
      let body = {};
      try {
        body = JSON.parse(raw);
      } catch {
        // recorded as {}
      }
      requests.push({ path: req.url, authorization: req.headers.authorization, body });
      if (req.method !== "POST" || req.url !== "/v1/chat/completions") {
        res.writeHead(404, { "Content-Type": "application/json" });
        res.end(JSON.stringify({ error: { message: "not found" } }));
        return;
      }
      const user = [...(body.messages || [])].reverse().find((m) => m.role === "user");
      const text = user ? String(user.content) : "";
      const passed = /policy/i.test(text.split("Answer:")[1] || "");
      const verdict = { passed, score: passed ? 0.9 : 0.2, reason: passed ? "cites the policy" : "no policy cited" };
      res.writeHead(200, { "Content-Type": "application/json" });
      res.end(
        JSON.stringify({
          id: `chatcmpl-${requests.length}`,
          object: "chat.completion",
          model: body.model,
          choices: [{ index: 0, finish_reason: "stop", message: { role: "assistant", content: JSON.stringify(verdict) } }],
          usage: { prompt_tokens: 50, completion_tokens: 12, total_tokens: 62 },
        }),
      );
    });
  });
  return new Promise((resolve) => {
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      resolve({ baseURL: `http://127.0.0.1:${port}/v1`, requests, close: () => new Promise((r) => server.close(r)) });
    });
  });
}

let judge;
let evalcol;
let client;
let api;

before(async () => {
  judge = await startJudge();
  evalcol = await startEvalcol({
    evalapiExtra: [
      "    judge:",
      "      providers:",
      "        local:",
      "          type: openai",
      `          base_url: ${judge.baseURL}`,
      `          api_key: ${PROVIDER_KEY}`,
      "          timeout: 10s",
      "          max_concurrency: 2",
    ].join("\n"),
  });
  client = new TraceloopClient({ apiKey: evalcol.apiKey, baseUrl: evalcol.apiURL, appName: "e2e-custom-evaluators" });
  api = apiClient(evalcol.apiURL, evalcol.apiKey);
});

after(async () => {
  if (evalcol) await evalcol.stop();
  if (judge) await judge.close();
});

const definition = {
  name: "Refund Policy Judge",
  description: "Does the answer cite the refund policy?",
  provider: "local",
  model: "qwen2.5:7b",
  messages: [
    { role: "system", content: "You check support answers against the refund policy." },
    { role: "user", content: "Question: {{question}}\nAnswer: {{answer}}" },
  ],
  inputSchema: [
    { name: "question", type: "string" },
    { name: "answer", type: "string", description: "the support reply" },
  ],
  outputSchema: [
    { name: "passed", type: "boolean" },
    { name: "score", type: "number" },
    { name: "reason", type: "string" },
  ],
  maxTokens: 256,
};

test("create, list, get, update and run a custom evaluator with the SDK", async () => {
  const created = await client.evaluator.create(definition);
  assert.match(created.id, /^ce_[0-9a-f]{32}$/);
  assert.equal(created.slug, "refund-policy-judge");

  // list("custom") holds only it; the default list holds the prebuilt
  // catalogue too.
  const custom = await client.evaluator.list("custom");
  assert.equal(custom.length, 1);
  assert.equal(custom[0].id, created.id);
  assert.equal(custom[0].source, "custom");
  assert.deepEqual(
    custom[0].outputSchema.map((f) => [f.name, f.type]),
    [["passed", "boolean"], ["score", "number"], ["reason", "string"]],
  );
  const all = await client.evaluator.list();
  assert.ok(all.filter((e) => e.source === "prebuilt").length >= 35, "the prebuilt catalogue is listed too");
  assert.ok(all.some((e) => e.id === created.id));
  assert.ok((await client.evaluator.list("prebuilt")).every((e) => e.source === "prebuilt"));

  // get by id and by slug: the SDK reads provider and model from config.
  for (const ref of [created.id, created.slug]) {
    const got = await client.evaluator.get(ref);
    assert.equal(got.id, created.id);
    assert.equal(got.name, "Refund Policy Judge");
    assert.equal(got.slug, "refund-policy-judge");
    assert.equal(got.description, "Does the answer cite the refund policy?");
    assert.equal(got.provider, "local");
    assert.equal(got.model, "qwen2.5:7b");
    assert.equal(got.maxTokens, 256);
    assert.equal(got.version, "1");
    assert.equal(got.source, "custom");
    assert.deepEqual(got.messages, definition.messages);
    assert.deepEqual(got.inputSchema.map((f) => f.name), ["question", "answer"]);
    assert.equal(got.inputSchema[1].description, "the support reply");
  }

  // run: the judge's output object.
  const run = await client.evaluator.run(created.slug, {
    input: { question: "Can I get a refund?", answer: "Yes, within 30 days, as our refund policy 4.2 says." },
  });
  assert.deepEqual(run.result, { passed: true, score: 0.9, reason: "cites the policy" });
  const failing = await client.evaluator.run(created.id, { input: { question: "Can I get a refund?", answer: "Sure, whenever." } });
  assert.deepEqual(failing.result, { passed: false, score: 0.2, reason: "no policy cited" });

  // What the judge received: the configured key, the model, temperature
  // 0, the rendered prompt, a strict JSON schema of the output.
  const first = judge.requests[0];
  assert.equal(first.authorization, `Bearer ${PROVIDER_KEY}`);
  assert.equal(first.body.model, "qwen2.5:7b");
  assert.equal(first.body.temperature, 0);
  assert.equal(first.body.max_tokens, 256);
  assert.equal(first.body.messages[1].content, "Question: Can I get a refund?\nAnswer: Yes, within 30 days, as our refund policy 4.2 says.");
  assert.equal(first.body.response_format.type, "json_schema");
  assert.deepEqual(first.body.response_format.json_schema.schema.required, ["passed", "score", "reason"]);

  // update: the SDK sends config / llm_config; a new version.
  const updated = await client.evaluator.update(created.slug, { name: "Refund Policy Judge v2", model: "llama3.1:8b", temperature: 0.1 });
  assert.equal(updated.id, created.id);
  const after = await client.evaluator.get(created.id);
  assert.equal(after.name, "Refund Policy Judge v2");
  assert.equal(after.model, "llama3.1:8b");
  assert.equal(after.temperature, 0.1);
  assert.equal(after.provider, "local", "fields not named keep their values");
  assert.equal(after.maxTokens, 256);
  assert.equal(after.version, "2");
  await client.evaluator.run(created.slug, { input: { question: "q", answer: "per policy" } });
  const last = judge.requests[judge.requests.length - 1];
  assert.equal(last.body.model, "llama3.1:8b");
  assert.equal(last.body.temperature, 0.1);

  // The provider's key is never shown.
  const raw = await api.get(`/v2/evaluators/${created.id}`);
  assert.equal(raw.status, 200);
  assert.ok(!JSON.stringify(raw.body).includes(PROVIDER_KEY));
  assert.ok(!evalcol.log().includes(PROVIDER_KEY), "the collector's log shows the provider key");
});

test("the SDK surfaces evalcol's errors", async () => {
  await assert.rejects(
    client.evaluator.create({ ...definition, name: "Elsewhere", provider: "openai" }),
    /provider: "openai" is not a judge provider of this collector \(configured: local\)/,
  );
  await assert.rejects(client.evaluator.create({ ...definition, name: "Refund Policy Judge" }), /slug: "refund-policy-judge" is taken/);
  await assert.rejects(client.evaluator.create({ ...definition, slug: "faithfulness" }), /prebuilt evaluator's slug/);
  await assert.rejects(
    client.evaluator.run("refund-policy-judge", { input: { question: "q" } }),
    /input field "answer" is missing \(the prompt uses \{\{answer\}\}\)/,
  );
  await assert.rejects(client.evaluator.get("no-such-evaluator"), /evaluator not found/);
});

test("an experiment judged by the custom evaluator", async () => {
  const ds = await client.datasets.create({ name: "Refund questions" });
  await ds.addColumn([{ name: "question", type: "string", required: true }]);
  const fresh = await client.datasets.get("refund-questions");
  await fresh.addRows([{ question: "Can I return shoes?" }, { question: "Can I return a gift card?" }]);
  await fresh.publish();
  const before = judge.requests.length;
  // The app cites the policy for shoes only.
  const app = async (row) => ({
    question: row.question,
    answer: row.question.includes("shoes") ? "Yes, within 30 days as our policy says." : "No.",
  });
  const res = await client.experiment.run(app, {
    datasetSlug: "refund-questions",
    datasetVersion: "v1",
    evaluators: ["refund-policy-judge"],
    experimentSlug: "refund-bot",
  });
  assert.deepEqual(res.errors, []);
  assert.equal(res.evaluations.length, 2);
  assert.deepEqual(res.evaluations.map((e) => e.verdict).sort(), ["fail", "pass"], JSON.stringify(res.evaluations));
  assert.equal(judge.requests.length - before, 2, "one judge call per row");
  const summary = await api.get("/v2/experiments/refund-bot");
  const ev = summary.body.runs[0].evaluators["refund-policy-judge"];
  assert.equal(ev.pass, 1);
  assert.equal(ev.fail, 1);
});

test("online: an auto monitor setup judges the app's spans with the custom evaluator", async () => {
  const setup = await api.post("/v2/auto-monitor-setups", {
    entity_type: "workflow",
    entity_value: "refund_desk",
    evaluators: ["refund-policy-judge"],
  });
  assert.equal(setup.status, 201, JSON.stringify(setup.body));
  const binding = setup.body.evaluators[0];
  assert.match(binding.evaluator_id, /^ce_/, JSON.stringify(binding));
  assert.equal(binding.evaluator_type, "refund-policy-judge");
  assert.notEqual(binding.status, "failed", JSON.stringify(binding));

  const mock = await startMockOpenAI();
  try {
    const before = judge.requests.length;
    const app = await runNode(path.join(__dirname, "judged-app.js"), {
      TRACELOOP_BASE_URL: evalcol.otlpHTTPURL,
      TRACELOOP_API_KEY: evalcol.apiKey,
      OPENAI_BASE_URL: mock.baseURL,
    }, { cwd: __dirname });
    assert.equal(app.code, 0, `judged-app.js failed:\n${app.stderr}`);
    const reply = mock.calls[0].response.choices[0].message.content;
    // The span is acknowledged at once; its judgement arrives later.
    const judged = await eventually(async () => {
      const spans = await api.spans({ from_timestamp_sec: String(Math.floor(Date.now() / 1000) - 600), explain: "true" });
      return spans.find((s) => s.evaluations.some((e) => e.name === "refund-policy-judge"));
    }, { timeoutMs: 30000 });
    assert.ok(judged, "no span got the custom evaluator's judgement within 30 s");
    const ev = judged.evaluations.find((e) => e.name === "refund-policy-judge");
    const expected = /policy/i.test(reply) ? "pass" : "fail";
    assert.equal(ev.verdict, expected, JSON.stringify(ev));
    assert.equal(ev.output.passed, expected === "pass");
    assert.match(ev.explanation.summary, /judged by llama3\.1:8b \(provider local\), evaluator ce_\w+ version 2/);
    // The judge read the span's question and answer.
    const call = judge.requests[before];
    const prompt = call.body.messages.map((m) => m.content).join("\n");
    assert.ok(prompt.includes("Can I return shoes I wore once?"), prompt);
    assert.ok(prompt.includes(reply), prompt);
    assert.equal(judge.requests.length - before, 1, "judged once");
  } finally {
    await mock.close();
  }
});
