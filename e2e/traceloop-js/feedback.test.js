// End-to-end: end-user feedback sent with the Traceloop Node SDK 0.27.0's
// own client (userFeedback.create, issue 31) about a conversation the app
// tagged with an association property: evalcol checks the tags against the
// annotation task, stores the annotation, serves it back by entity and
// through /v2/metrics, and shows it on the conversation's trace page.
"use strict";

const { test, before, after } = require("node:test");
const assert = require("node:assert/strict");
const path = require("node:path");

const { startEvalcol, apiClient, runNode, eventually } = require("../lib/evalcol.js");
const { startMockOpenAI } = require("../lib/mock-openai.js");

const CONVERSATION = `conv-${Date.now()}`;

let evalcol;
let mock;
let api;
let answers; // what userFeedback.create answered, in order

before(async () => {
  mock = await startMockOpenAI();
  evalcol = await startEvalcol({ monitors: "[]" });
  api = apiClient(evalcol.apiURL, evalcol.apiKey);
  const task = await api.post("/v2/annotation-tasks", {
    slug: "user-feedback",
    name: "End-user feedback",
    tags: [
      { name: "thumbs", type: "boolean", required: true },
      { name: "tones", type: "category", values: ["happy", "angry"] },
      { name: "comment", type: "text" },
    ],
  });
  assert.equal(task.status, 201, `POST /v2/annotation-tasks: ${task.status} ${JSON.stringify(task.body)}`);
  const app = await runNode(path.join(__dirname, "feedback-app.js"), {
    TRACELOOP_BASE_URL: evalcol.otlpHTTPURL,
    TRACELOOP_API_KEY: evalcol.apiKey,
    EVALCOL_API_URL: evalcol.apiURL,
    OPENAI_BASE_URL: mock.baseURL,
    CONVERSATION_ID: CONVERSATION,
  }, { cwd: __dirname });
  assert.equal(app.code, 0, `feedback-app.js failed:\n${app.stderr}`);
  answers = JSON.parse(app.stdout.trim().split("\n").pop());
});

after(async () => {
  if (evalcol) await evalcol.stop();
  if (mock) await mock.close();
});

test("userFeedback.create is stored (201) with the SDK's source, flow and actor", () => {
  const [ok] = answers;
  assert.equal(ok.status, 201, JSON.stringify(ok.body));
  assert.equal(ok.body.entity_instance_id, CONVERSATION);
  assert.equal(ok.body.source, "sdk");
  assert.equal(ok.body.flow, "user_feedback");
  assert.equal(ok.body.actor_type, "service");
  assert.equal(ok.body.actor_id, "shop-app");
  assert.deepEqual(ok.body.tags, { thumbs: false, tones: ["angry"], comment: "it did not answer" });
});

test("an unknown task is a 404 naming it; a bad tag a 400 naming it", () => {
  const [, unknown, bad] = answers;
  assert.equal(unknown.status, 404);
  assert.match(unknown.body.error, /annotation task "no-such-task" not found/);
  assert.equal(bad.status, 400);
  assert.match(bad.body.error, /tags\.thumbs: a boolean tag takes true or false/);
});

test("the annotation is read back by entity, once, and through /v2/metrics", async () => {
  const res = await api.get(`/v2/annotation-tasks/user-feedback/annotations?entity_instance_id=${CONVERSATION}`);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.equal(res.body.annotations.length, 1, "the refused annotation stored nothing");
  const metrics = await api.post("/v2/metrics", { metric_source: "annotation", metric_name: "user-feedback.thumbs" });
  assert.equal(metrics.status, 200, JSON.stringify(metrics.body));
  assert.equal(metrics.body.metrics.total_results, 1);
  assert.equal(metrics.body.metrics.data[0].points[0].bool_value, false);
});

test("the feedback shows on the conversation's trace page in the console", async () => {
  const spans = await eventually(async () => {
    const all = await api.spans({ from_timestamp_sec: String(Math.floor(Date.now() / 1000) - 600), workflow: "support_chat" });
    return all.length > 0 ? all : null;
  });
  assert.ok(spans, "the app's spans were not stored");
  const traceID = spans[0].trace_id;
  // Log in as a browser does: the form's CSRF token, then the key.
  const login = await fetch(`${evalcol.apiURL}/ui/login`);
  const cookies = login.headers.getSetCookie().map((c) => c.split(";")[0]);
  const csrf = (await login.text()).match(/name="csrf" value="([^"]+)"/)[1];
  const session = await fetch(`${evalcol.apiURL}/ui/login`, {
    method: "POST",
    redirect: "manual",
    headers: { "Content-Type": "application/x-www-form-urlencoded", Cookie: cookies.join("; "), Origin: evalcol.apiURL },
    body: new URLSearchParams({ csrf, api_key: evalcol.apiKey }),
  });
  assert.equal(session.status, 303, `login: ${session.status}`);
  const cookie = [...cookies, ...session.headers.getSetCookie().map((c) => c.split(";")[0])].join("; ");
  const page = await fetch(`${evalcol.apiURL}/ui/traces/${traceID}`, { headers: { Cookie: cookie } });
  const html = await page.text();
  assert.equal(page.status, 200);
  const feedback = html.slice(html.indexOf('id="feedback"'));
  assert.ok(html.includes('id="feedback"'), "the trace page has no feedback section");
  assert.ok(feedback.includes(`<code>${CONVERSATION}</code> <span class="hint">conversation_id</span>`), "the feedback is not tied to the conversation");
  assert.ok(feedback.includes("it did not answer"), "the comment is not shown");
});
