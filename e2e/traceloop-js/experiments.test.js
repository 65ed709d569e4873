// End-to-end: an experiment run with the Traceloop Node SDK 0.27.0's own
// client (client.experiment.run, issue 27) over a dataset version kept in
// evalcol: the SDK reads the version's rows, runs the app (a task) on
// each, and has evalcol's evaluators judge every output; two runs of two
// app versions compare in evalcol's run summaries; the run exports as
// CSV and JSON.
"use strict";

const { test, before, after } = require("node:test");
const assert = require("node:assert/strict");

const { TraceloopClient, EvaluatorMadeByTraceloop } = require("@traceloop/node-server-sdk");
const { startEvalcol, apiClient } = require("../lib/evalcol.js");

let evalcol;
let client;
let api;

before(async () => {
  evalcol = await startEvalcol({ monitors: "[]" });
  client = new TraceloopClient({ apiKey: evalcol.apiKey, appName: "experiments-e2e", baseUrl: evalcol.apiURL });
  api = apiClient(evalcol.apiURL, evalcol.apiKey);
  const ds = await client.datasets.create({ name: "Greetings" });
  await ds.addColumn([{ name: "prompt", type: "string", required: true }]);
  const fresh = await client.datasets.get("greetings");
  await fresh.addRows([{ prompt: "Say hello to Ann" }, { prompt: "Say hello to Bob" }, { prompt: "Say hello to Cy" }]);
  await fresh.publish();
});

after(async () => {
  if (evalcol) await evalcol.stop();
});

test("two runs of an app over a dataset version, judged and compared", async () => {
  const polite = async (row) => ({ text: `Hello, ${row.prompt.split(" ").pop()}! Nice to meet you.` });
  const rude = async (row) => ({ text: `${row.prompt.split(" ").pop()}, you are a stupid idiot.` });
  const runs = [];
  for (const task of [polite, rude]) {
    const res = await client.experiment.run(task, {
      datasetSlug: "greetings",
      datasetVersion: "v1",
      evaluators: ["toxicity-detector", "char-count"],
      experimentSlug: "greeting-bot",
    });
    assert.deepEqual(res.errors, []);
    assert.equal(res.taskResults.length, 3);
    assert.equal(res.evaluations.length, 6, "two evaluators on three rows");
    runs.push(res);
  }
  // The SDK got each evaluator's result from its stream URL.
  // Each evaluation is the result at its stream URL, the evaluator's
  // output under evaluator_result (as Traceloop's backend answers).
  const tox = runs[1].evaluations.filter((e) => e && e.evaluator_result && "is_safe" in e.evaluator_result);
  assert.equal(tox.length, 3);
  assert.ok(tox.every((e) => e.verdict === "fail"), JSON.stringify(tox));

  const summary = await api.get("/v2/experiments/greeting-bot");
  assert.equal(summary.status, 200, JSON.stringify(summary.body));
  assert.equal(summary.body.runs.length, 2);
  const byID = Object.fromEntries(summary.body.runs.map((r) => [r.id, r]));
  const politeRun = byID[runs[0].runId];
  const rudeRun = byID[runs[1].runId];
  assert.equal(politeRun.tasks, 3);
  assert.equal(politeRun.evaluators["toxicity-detector"].pass, 3);
  assert.equal(rudeRun.evaluators["toxicity-detector"].fail, 3);
  assert.equal(politeRun.dataset_version, "v1");

  const csv = await client.experiment.toCsvString("greeting-bot", runs[1].runId);
  assert.ok(csv.startsWith("task_id,input,output,char-count.verdict,char-count.result,toxicity-detector.verdict,toxicity-detector.result"), csv);
  assert.equal(csv.trim().split("\n").length, 4);
  const json = JSON.parse(await client.experiment.toJsonString("greeting-bot", runs[1].runId));
  assert.equal(json.length, 3);
  assert.equal(json[0].evaluations["toxicity-detector"].verdict, "fail");
});

test("an unknown dataset version is an error the SDK reports", async () => {
  await assert.rejects(
    client.experiment.run(async () => ({ text: "x" }), { datasetSlug: "greetings", datasetVersion: "v9", evaluators: ["char-count"] }),
    /version "v9" of dataset "greetings"/,
  );
});

test("an agent experiment with EvaluatorMadeByTraceloop.agentToolTrajectory", async () => {
  const ds = await client.datasets.create({ name: "Trip tasks" });
  await ds.addColumn([{ name: "request", type: "string", required: true }, { name: "expected", type: "string", required: true }]);
  const fresh = await client.datasets.get("trip-tasks");
  await fresh.addRows([
    { request: "Book a flight to Oslo", expected: JSON.stringify([{ name: "search_flights" }, { name: "book_flight" }]) },
    { request: "Find a hotel in Rome", expected: JSON.stringify([{ name: "search_hotels" }, { name: "book_hotel" }]) },
  ]);
  await fresh.publish();
  // The agent calls the right tools for flights and forgets to book hotels.
  const agent = async (row) => {
    const calls = row.request.includes("flight") ? ["search_flights", "book_flight"] : ["search_hotels"];
    return { executed_tool_calls: JSON.stringify(calls.map((name) => ({ name }))), expected_tool_calls: row.expected };
  };
  const res = await client.experiment.run(agent, {
    datasetSlug: "trip-tasks",
    datasetVersion: "v1",
    evaluators: [EvaluatorMadeByTraceloop.agentToolTrajectory({ order_sensitive: true, threshold: 0.9 })],
    experimentSlug: "trip-agent",
  });
  assert.deepEqual(res.errors, []);
  assert.equal(res.evaluations.length, 2);
  const verdicts = res.evaluations.map((e) => e.verdict).sort();
  assert.deepEqual(verdicts, ["fail", "pass"], JSON.stringify(res.evaluations));
  const summary = await api.get("/v2/experiments/trip-agent");
  const ev = summary.body.runs[0].evaluators["agent-tool-trajectory"];
  assert.equal(ev.pass, 1);
  assert.equal(ev.fail, 1);
});

test("a run in GitHub Actions: the SDK runs the app, evalcol evaluates the results", async () => {
  const env = { GITHUB_ACTIONS: "true", GITHUB_REPOSITORY: "acme/bot", GITHUB_REF: "refs/pull/42/merge", GITHUB_SHA: "0123abc", GITHUB_ACTOR: "dev" };
  const saved = Object.fromEntries(Object.keys(env).map((k) => [k, process.env[k]]));
  Object.assign(process.env, env);
  try {
    const res = await client.experiment.run(async (row) => ({ text: `Hello, ${row.prompt.split(" ").pop()}!` }), {
      datasetSlug: "greetings",
      datasetVersion: "v1",
      evaluators: ["char-count"],
      experimentSlug: "greeting-bot-pr",
    });
    assert.equal(res.experimentSlug, "greeting-bot-pr");
    assert.equal(res.tasks, 3);
    assert.equal(res.evaluations, 3);
    const summary = await api.get("/v2/experiments/greeting-bot-pr");
    assert.equal(summary.body.runs[0].metadata.github_context.pr_url, "https://github.com/acme/bot/pull/42");
    assert.equal(summary.body.runs[0].evaluators["char-count"].count, 3);
  } finally {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  }
});
