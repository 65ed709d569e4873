// A local stand-in for the OpenAI chat completions endpoint, so that the
// end-to-end tests never leave the machine. It listens on 127.0.0.1 on a
// random port and answers POST /v1/chat/completions with a deterministic
// completion chosen by the last user message, and deterministic usage.
"use strict";

const http = require("node:http");

/** The model the mock reports; requests may name any model. */
const RESPONSE_MODEL = "gpt-4o-mini-2024-07-18";

/**
 * Replies by topic of the last user message, first match wins. One is
 * toxic-sounding and one contains an email address, so that evaluators have
 * something to find.
 */
const REPLIES = [
  { match: /joke/i, reply: "Why did the pirate go to school? To improve his arrrticulation!" },
  { match: /insult/i, reply: "You worthless, stupid bilge rat. Shut up, you pathetic idiot, nobody wants you aboard." },
  { match: /contact|support/i, reply: "You can reach our support team at jane.doe@example.com any time." },
];
const DEFAULT_REPLY = "Arr, I have nothing to say to that.";

function words(s) {
  return String(s).split(/\s+/).filter(Boolean).length;
}

function contentText(content) {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) return content.map((p) => (typeof p === "string" ? p : p.text || "")).join(" ");
  return "";
}

/** The completion the mock gives for a chat request body. */
function completionFor(body) {
  const messages = Array.isArray(body.messages) ? body.messages : [];
  const lastUser = [...messages].reverse().find((m) => m.role === "user");
  const text = lastUser ? contentText(lastUser.content) : "";
  const hit = REPLIES.find((r) => r.match.test(text));
  const reply = hit ? hit.reply : DEFAULT_REPLY;
  // Usage: whitespace words of every message plus 3 per message of framing.
  const promptTokens = messages.reduce((n, m) => n + words(contentText(m.content)) + 3, 0);
  const completionTokens = words(reply);
  return {
    reply,
    usage: { prompt_tokens: promptTokens, completion_tokens: completionTokens, total_tokens: promptTokens + completionTokens },
  };
}

/**
 * Starts the mock. Resolves to { url, baseURL, calls, close }: url is the
 * server origin, baseURL the value for the OpenAI client's baseURL, calls
 * the list of { request, response } bodies answered so far.
 */
async function startMockOpenAI() {
  const calls = [];
  let seq = 0;
  const server = http.createServer((req, res) => {
    let raw = "";
    req.setEncoding("utf8");
    req.on("data", (c) => (raw += c));
    req.on("end", () => {
      const send = (status, obj) => {
        res.writeHead(status, { "content-type": "application/json" });
        res.end(JSON.stringify(obj));
      };
      if (req.method !== "POST" || req.url.split("?")[0] !== "/v1/chat/completions") {
        send(404, { error: { message: `mock: no route ${req.method} ${req.url}`, type: "invalid_request_error" } });
        return;
      }
      let body;
      try {
        body = JSON.parse(raw);
      } catch (err) {
        send(400, { error: { message: `mock: bad JSON: ${err.message}`, type: "invalid_request_error" } });
        return;
      }
      if (body.stream) {
        send(400, { error: { message: "mock: streaming is not supported", type: "invalid_request_error" } });
        return;
      }
      const { reply, usage } = completionFor(body);
      seq += 1;
      const response = {
        id: `chatcmpl-mock${String(seq).padStart(4, "0")}`,
        object: "chat.completion",
        created: 1767225600 + seq,
        model: RESPONSE_MODEL,
        system_fingerprint: "fp_mock",
        choices: [{ index: 0, message: { role: "assistant", content: reply, refusal: null }, logprobs: null, finish_reason: "stop" }],
        usage,
      };
      calls.push({ request: body, response });
      send(200, response);
    });
  });
  await new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", resolve);
  });
  const { port } = server.address();
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    baseURL: `${url}/v1`,
    calls,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

module.exports = { startMockOpenAI, RESPONSE_MODEL };
