// An app that answers one support question inside a workflow tagged with
// the association property conversation_id (OpenLLMetry's
// withAssociationProperties), then sends the end user's thumbs-down for
// that conversation with the SDK's own client (userFeedback.create), as
// Traceloop's docs show. Prints the feedback answers' statuses and bodies.
"use strict";

const traceloop = require("@traceloop/node-server-sdk");
const { OpenAI } = require("openai");

traceloop.initialize({
  appName: "shop-app",
  disableBatch: true,
  traceloopSyncEnabled: false,
  silenceInitializationMessage: true,
  instrumentModules: { openAI: OpenAI },
});

const openai = new OpenAI({ apiKey: "sk-e2e-not-a-real-key", baseURL: process.env.OPENAI_BASE_URL, maxRetries: 0 });
const client = new traceloop.TraceloopClient({
  apiKey: process.env.TRACELOOP_API_KEY,
  appName: "shop-app",
  baseUrl: process.env.EVALCOL_API_URL,
});

async function main() {
  const conversation = process.env.CONVERSATION_ID;
  await traceloop.withAssociationProperties({ conversation_id: conversation }, () =>
    traceloop.withWorkflow({ name: "support_chat" }, () =>
      openai.chat.completions.create({
        model: "gpt-4o-mini",
        messages: [{ role: "user", content: "Where is my parcel?" }],
      }),
    ),
  );
  await traceloop.forceFlush();
  const answers = [];
  for (const [task, tags] of [
    ["user-feedback", { thumbs: false, tones: ["angry"], comment: "it did not answer" }],
    ["no-such-task", { thumbs: true }],
    ["user-feedback", { thumbs: "down" }],
  ]) {
    const res = await client.userFeedback.create({ annotationTask: task, entity: { id: conversation }, tags });
    answers.push({ status: res.status, body: await res.json() });
  }
  process.stdout.write(JSON.stringify(answers) + "\n");
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
