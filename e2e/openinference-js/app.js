// A small LLM app instrumented with OpenInference's OpenAI instrumentation
// on the OpenTelemetry JS SDK. It runs a "pirate_joke_generator" CHAIN span
// around two chat completions and a "support_reply" CHAIN span around one,
// exports OTLP/HTTP (JSON) to OTLP_ENDPOINT (evalcol's /v1/traces) with
// Authorization: Bearer EVALCOL_API_KEY, flushes and exits. OPENAI_BASE_URL
// points the OpenAI client at the mock.
"use strict";

const { trace, SpanStatusCode } = require("@opentelemetry/api");
const { NodeTracerProvider } = require("@opentelemetry/sdk-trace-node");
const { SimpleSpanProcessor } = require("@opentelemetry/sdk-trace-base");
const { resourceFromAttributes } = require("@opentelemetry/resources");
const { OTLPTraceExporter } = require("@opentelemetry/exporter-trace-otlp-http");
const { registerInstrumentations } = require("@opentelemetry/instrumentation");
const { OpenAIInstrumentation } = require("@arizeai/openinference-instrumentation-openai");
const { SemanticConventions, OpenInferenceSpanKind } = require("@arizeai/openinference-semantic-conventions");

const provider = new NodeTracerProvider({
  resource: resourceFromAttributes({ "service.name": "pirate-oi-app" }),
  spanProcessors: [
    new SimpleSpanProcessor(
      new OTLPTraceExporter({
        url: process.env.OTLP_ENDPOINT,
        headers: { Authorization: `Bearer ${process.env.EVALCOL_API_KEY}` },
      }),
    ),
  ],
});
provider.register();
registerInstrumentations({ instrumentations: [new OpenAIInstrumentation()] });

// Required after the instrumentation is registered, so that it is patched.
const { OpenAI } = require("openai");

const openai = new OpenAI({ apiKey: "sk-e2e-not-a-real-key", baseURL: process.env.OPENAI_BASE_URL, maxRetries: 0 });
const tracer = trace.getTracer("pirate-oi-app");

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

/** Runs fn inside an OpenInference CHAIN span with input.value/output.value. */
function chain(name, input, fn) {
  return tracer.startActiveSpan(name, async (span) => {
    span.setAttribute(SemanticConventions.OPENINFERENCE_SPAN_KIND, OpenInferenceSpanKind.CHAIN);
    span.setAttribute(SemanticConventions.INPUT_VALUE, input);
    span.setAttribute(SemanticConventions.INPUT_MIME_TYPE, "text/plain");
    try {
      const out = await fn();
      span.setAttribute(SemanticConventions.OUTPUT_VALUE, out);
      span.setAttribute(SemanticConventions.OUTPUT_MIME_TYPE, "text/plain");
      span.setStatus({ code: SpanStatusCode.OK });
      return out;
    } finally {
      span.end();
    }
  });
}

async function main() {
  const pirate = await chain("pirate_joke_generator", "jokes and insults about pirates", async () => {
    const joke = await chat("You are a pirate comedian.", "Tell me a joke about pirates");
    const insult = await chat("You are a grumpy pirate.", "Now shout an insult at a rival pirate");
    return `${joke}\n${insult}`;
  });
  const support = await chain("support_reply", "How do I contact support?", () =>
    chat("You are a helpful support agent.", "How do I contact support?"),
  );
  await provider.forceFlush();
  await provider.shutdown();
  process.stdout.write(JSON.stringify({ pirate, support }) + "\n");
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
