// An app that answers one refund question inside the workflow refund_desk
// with OpenLLMetry's instrumentation, so that an auto monitor setup of
// that workflow judges its LLM span with a custom evaluator (issue 28).
"use strict";

const traceloop = require("@traceloop/node-server-sdk");
const { OpenAI } = require("openai");

traceloop.initialize({
  appName: "refund-desk",
  disableBatch: true,
  traceloopSyncEnabled: false,
  silenceInitializationMessage: true,
  instrumentModules: { openAI: OpenAI },
});

const openai = new OpenAI({ apiKey: "sk-e2e-not-a-real-key", baseURL: process.env.OPENAI_BASE_URL, maxRetries: 0 });

async function main() {
  await traceloop.withWorkflow({ name: "refund_desk" }, () =>
    openai.chat.completions.create({
      model: "gpt-4o-mini",
      messages: [{ role: "user", content: "Can I return shoes I wore once?" }],
    }),
  );
  await traceloop.forceFlush();
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
