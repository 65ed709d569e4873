// A small LLM app instrumented with the Traceloop Node SDK. It runs the
// "pirate_joke_generator" workflow (two tasks, each with one chat completion)
// and a "support_reply" workflow (one chat completion), exports the spans to
// TRACELOOP_BASE_URL (evalcol's OTLP/HTTP receiver) with TRACELOOP_API_KEY,
// flushes and exits. OPENAI_BASE_URL points the OpenAI client at the mock.
"use strict";

const traceloop = require("@traceloop/node-server-sdk");
const { OpenAI } = require("openai");

traceloop.initialize({
  appName: "pirate-app",
  disableBatch: true,
  traceloopSyncEnabled: false,
  silenceInitializationMessage: true,
  instrumentModules: { openAI: OpenAI },
});

const openai = new OpenAI({ apiKey: "sk-e2e-not-a-real-key", baseURL: process.env.OPENAI_BASE_URL, maxRetries: 0 });

async function chat(system, user) {
  const res = await openai.chat.completions.create({
    model: "gpt-4o-mini",
    messages: [
      { role: "system", content: system },
      { role: "user", content: user },
    ],
  });
  return res.choices[0].message.content;
}

async function main() {
  const pirate = await traceloop.withWorkflow({ name: "pirate_joke_generator" }, async () => {
    const joke = await traceloop.withTask({ name: "joke_creation" }, () =>
      chat("You are a pirate comedian.", "Tell me a joke about pirates"),
    );
    const insult = await traceloop.withTask({ name: "insult_creation" }, () =>
      chat("You are a grumpy pirate.", "Now shout an insult at a rival pirate"),
    );
    return { joke, insult };
  });
  const support = await traceloop.withWorkflow({ name: "support_reply" }, () =>
    chat("You are a helpful support agent.", "How do I contact support?"),
  );
  await traceloop.forceFlush();
  process.stdout.write(JSON.stringify({ pirate, support }) + "\n");
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
