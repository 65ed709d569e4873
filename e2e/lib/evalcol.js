// Starts the evalcol binary for an end-to-end test and talks to its /v2 API.
// Node built-ins only, so every e2e package can use it without installing
// anything.
"use strict";

const { spawn } = require("node:child_process");
const fs = require("node:fs");
const net = require("node:net");
const os = require("node:os");
const path = require("node:path");

/** The repository root (e2e/..). */
const REPO_ROOT = path.resolve(__dirname, "..", "..");

/** The API key the tests configure and send. */
const API_KEY = "e2e-test-key-0123456789";

/** Resolves to a TCP port that was free on 127.0.0.1 a moment ago. */
function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

/**
 * Returns examples/config.yaml with the given ports, SQLite path and static
 * monitors. monitors is YAML for the evaluator processor's monitors field
 * ("[]" = only auto monitor setups apply; null keeps the example's). Every
 * replacement must match, so a changed example fails loudly here.
 */
function configFromExample({ apiPort, grpcPort, httpPort, telemetryPort, dbPath, monitors = "[]", evalapiExtra = "" }) {
  const example = path.join(REPO_ROOT, "examples", "config.yaml");
  let text = fs.readFileSync(example, "utf8");
  const replace = (what, re, to) => {
    if (!re.test(text)) throw new Error(`e2e: ${example} changed, cannot find ${what} (${re})`);
    text = text.replace(re, to);
  };
  // evalapiExtra: YAML of more evalapi settings (e.g. judge providers),
  // indented for the extension's block (4 spaces).
  replace("the API endpoint", /endpoint: 127\.0\.0\.1:8080/, `endpoint: 127.0.0.1:${apiPort}${evalapiExtra ? "\n" + evalapiExtra.replace(/\n$/, "") : ""}`);
  replace("the OTLP/gRPC endpoint", /endpoint: 127\.0\.0\.1:4317/, `endpoint: 127.0.0.1:${grpcPort}`);
  replace("the OTLP/HTTP endpoint", /endpoint: 127\.0\.0\.1:4318/, `endpoint: 127.0.0.1:${httpPort}`);
  replace("the warehouse path", /path: \.\/data\/evalcol\.db/, `path: ${JSON.stringify(dbPath)}`);
  // The collector's own metrics default to localhost:8888, which a second
  // collector on the machine would also want: serve them on a free port.
  if (/^\s+telemetry:/m.test(text)) throw new Error(`e2e: ${example} now has service.telemetry; update configFromExample`);
  replace("the service section", /^service:\n/m, `service:\n  telemetry:\n    metrics:\n      readers:\n        - pull:\n            exporter:\n              prometheus: {host: 127.0.0.1, port: ${telemetryPort}}\n`);
  if (monitors !== null) {
    // The monitors block: "monitors:" and the lines indented deeper than it.
    replace("the evaluator monitors", /^( +)monitors:[^\n]*\n(?:\1 +[^\n]*\n)*/m, (_m, indent) => `${indent}monitors: ${monitors}\n`);
  }
  return text;
}

/**
 * Starts evalcol (the binary at EVALCOL_BIN) with a config derived from the
 * example on free ports and a temporary SQLite file, and waits for /healthz.
 * evalapiExtra is YAML added to the evalapi extension's block (4 spaces
 * indented), such as judge providers.
 * Resolves to { apiURL, otlpHTTPURL, otlpGRPCAddr, apiKey, dir, log(), stop() }.
 */
async function startEvalcol({ monitors = "[]", evalapiExtra = "", timeoutMs = 20000 } = {}) {
  const bin = process.env.EVALCOL_BIN;
  if (!bin) throw new Error("e2e: set EVALCOL_BIN to an evalcol binary (go build -o /tmp/evalcol ./cmd/evalcol)");
  if (!fs.existsSync(bin)) throw new Error(`e2e: EVALCOL_BIN=${bin} does not exist`);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "evalcol-e2e-"));
  const [apiPort, grpcPort, httpPort, telemetryPort] = [await freePort(), await freePort(), await freePort(), await freePort()];
  const configPath = path.join(dir, "config.yaml");
  fs.writeFileSync(configPath, configFromExample({ apiPort, grpcPort, httpPort, telemetryPort, dbPath: path.join(dir, "evalcol.db"), monitors, evalapiExtra }));

  let output = "";
  const child = spawn(bin, ["--config", configPath], {
    cwd: dir,
    env: { ...process.env, EVALCOL_API_KEY: API_KEY },
    stdio: ["ignore", "pipe", "pipe"],
  });
  child.stdout.on("data", (d) => (output += d));
  child.stderr.on("data", (d) => (output += d));
  let exited = null;
  const exitPromise = new Promise((resolve) => child.once("exit", (code, signal) => resolve((exited = { code, signal }))));

  const apiURL = `http://127.0.0.1:${apiPort}`;
  const tail = () => output.split("\n").slice(-30).join("\n");
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (exited) {
      fs.rmSync(dir, { recursive: true, force: true });
      throw new Error(`e2e: evalcol exited (${JSON.stringify(exited)}) before /healthz answered:\n${tail()}`);
    }
    try {
      const res = await fetch(`${apiURL}/healthz`);
      if (res.ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      child.kill("SIGKILL");
      await exitPromise;
      fs.rmSync(dir, { recursive: true, force: true });
      throw new Error(`e2e: evalcol /healthz not ready after ${timeoutMs} ms:\n${tail()}`);
    }
    await sleep(100);
  }

  return {
    apiURL,
    otlpHTTPURL: `http://127.0.0.1:${httpPort}`,
    otlpGRPCAddr: `127.0.0.1:${grpcPort}`,
    apiKey: API_KEY,
    dir,
    log: () => output,
    async stop() {
      if (!exited) {
        child.kill("SIGTERM");
        const killer = setTimeout(() => child.kill("SIGKILL"), 5000);
        await exitPromise;
        clearTimeout(killer);
      }
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

function sleep(ms) {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** A small /v2 client: request() resolves to { status, body } (body parsed as JSON when possible). */
function apiClient(baseURL, apiKey) {
  async function request(method, pathAndQuery, body) {
    const res = await fetch(baseURL + pathAndQuery, {
      method,
      headers: { Authorization: `Bearer ${apiKey}`, ...(body === undefined ? {} : { "Content-Type": "application/json" }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    let parsed = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      // keep the text
    }
    return { status: res.status, body: parsed };
  }
  return {
    request,
    get: (p) => request("GET", p),
    post: (p, body) => request("POST", p, body),
    /** GET /v2/warehouse/spans with the given query parameters, every page. */
    async spans(params) {
      const all = [];
      let cursor = "";
      for (let page = 0; page < 50; page++) {
        const q = new URLSearchParams({ ...params, ...(cursor ? { cursor } : {}) });
        const res = await request("GET", `/v2/warehouse/spans?${q}`);
        if (res.status !== 200) throw new Error(`GET /v2/warehouse/spans?${q}: ${res.status} ${JSON.stringify(res.body)}`);
        all.push(...res.body.spans.data);
        cursor = res.body.spans.next_cursor;
        if (!cursor) return all;
      }
      throw new Error("GET /v2/warehouse/spans: more than 50 pages");
    },
  };
}

/**
 * Calls fn until it returns a truthy value or timeoutMs passes; resolves to
 * that value, or to the last value when the time is up.
 */
async function eventually(fn, { timeoutMs = 15000, intervalMs = 200 } = {}) {
  const deadline = Date.now() + timeoutMs;
  let last;
  for (;;) {
    last = await fn();
    if (last || Date.now() > deadline) return last;
    await sleep(intervalMs);
  }
}

/**
 * Runs `node script` with extra environment; resolves to { code, stdout,
 * stderr }. TRACELOOP_*, OTEL_* and OPENAI_* variables of the caller are
 * dropped so that only env configures the SDKs. Rejects when it runs longer
 * than timeoutMs.
 */
function runNode(script, env, { cwd, timeoutMs = 60000 } = {}) {
  const base = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(TRACELOOP_|OTEL_|OPENAI_)/.test(k)));
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [script], { cwd, env: { ...base, ...env }, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`e2e: ${script} ran longer than ${timeoutMs} ms\nstdout:\n${stdout}\nstderr:\n${stderr}`));
    }, timeoutMs);
    child.once("error", (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

module.exports = { API_KEY, REPO_ROOT, apiClient, configFromExample, eventually, freePort, runNode, sleep, startEvalcol };
