// Helpers shared by the e2e tests: expected shapes built from what the app
// sent (never from what evalcol answered), and waits on the /v2 API.
"use strict";

const { eventually } = require("./evalcol.js");

/**
 * The /v2 prompts map for OpenAI chat messages:
 * llm.prompts.<i>.role and llm.prompts.<i>.content.
 */
function promptMap(messages) {
  const m = {};
  messages.forEach((msg, i) => {
    m[`llm.prompts.${i}.role`] = msg.role;
    m[`llm.prompts.${i}.content`] = msg.content;
  });
  return m;
}

/** The evaluations on a /v2 span recorded by the monitor (setup) id. */
function monitorEvaluations(span, monitorId) {
  return (span.evaluations || []).filter((e) => e.monitor_id === monitorId);
}

/**
 * Waits (up to 10 s) until the setup has left "pending", i.e. evalcol's
 * evaluator processor has loaded it (DESIGN: pending -> waiting_for_spans).
 * Resolves to the last GET answer.
 */
async function waitForSetupLoaded(api, id) {
  let last;
  await eventually(async () => {
    last = await api.get(`/v2/auto-monitor-setups/${encodeURIComponent(id)}`);
    return last.status === 200 && last.body.status !== "pending";
  }, { timeoutMs: 10000, intervalMs: 100 });
  return last;
}

/** Whether the binding list of a setup names exactly these evaluator slugs. */
function bindingSlugs(setup) {
  return (setup.evaluators || []).map((b) => [b.evaluator_type, b.evaluator_id].find((v) => typeof v === "string" && v !== "")).sort();
}

module.exports = { bindingSlugs, monitorEvaluations, promptMap, waitForSetupLoaded };
