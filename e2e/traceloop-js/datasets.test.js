// End-to-end: datasets with the Traceloop Node SDK 0.27.0's own client
// (client.datasets, issue 27) against evalcol: create, columns, rows
// (addRows, fromCSV), pages, a row update, publish, versions read back as
// CSV and JSONL (as experiments read them), list and delete.
"use strict";

const { test, before, after } = require("node:test");
const assert = require("node:assert/strict");

const { TraceloopClient, attachment } = require("@traceloop/node-server-sdk");
const { startEvalcol } = require("../lib/evalcol.js");

let evalcol;
let client;

before(async () => {
  evalcol = await startEvalcol({ monitors: "[]" });
  client = new TraceloopClient({ apiKey: evalcol.apiKey, appName: "datasets-e2e", baseUrl: evalcol.apiURL });
});

after(async () => {
  if (evalcol) await evalcol.stop();
});

test("a dataset's life through the SDK", async () => {
  const created = await client.datasets.create({ name: "Support questions", description: "golden set" });
  assert.equal(created.slug, "support-questions");
  assert.equal(created.name, "Support questions");
  assert.equal(created.published, false);

  const cols = await created.addColumn([
    { name: "question", type: "string", required: true },
    { name: "answer", type: "string" },
    { name: "difficulty", type: "number" },
  ]);
  assert.deepEqual(cols.map((c) => c.slug), ["question", "answer", "difficulty"]);

  // The SDK maps row keys to column slugs from the dataset it holds:
  // read it again after adding columns, as its docs do.
  const ds = await client.datasets.get("support-questions");
  assert.deepEqual((await ds.getColumns()).map((c) => c.name), ["question", "answer", "difficulty"]);
  const rows = await ds.addRows([
    { question: "Where is my parcel?", answer: "Track it on the orders page", difficulty: 1 },
    { question: "Can I pay in cash?", answer: null, difficulty: 2 },
  ]);
  assert.equal(rows.length, 2);
  assert.equal(rows[0].getValue("question"), "Where is my parcel?");
  const imported = await ds.fromCSV("question,answer,difficulty\nHow do I return it?,Use the returns form,3\nIs there a warranty?,Two years,2\n");
  assert.equal(imported.length, 2);

  const page = await ds.getRows(3, 1);
  assert.equal(page.length, 3);
  assert.equal(page[0].data.question, "Can I pay in cash?");

  await rows[1].update({ data: { answer: "Yes, on delivery" } });
  const [again] = await ds.getRows(1, 1);
  assert.equal(again.data.answer, "Yes, on delivery");

  await assert.rejects(ds.addRows([{ answer: "no question" }]), /question: the column is required/);

  await ds.publish();
  assert.equal(ds.version, "v1");
  assert.equal(ds.published, true);
  const versions = await ds.getVersions();
  assert.equal(versions.versions.length, 1);
  assert.equal(versions.versions[0].version, "v1");
  assert.equal(versions.versions[0].rowCount, 4);

  const csv = await client.datasets.getVersionCSV("support-questions", "v1");
  assert.equal(csv.split("\n")[0], "question,answer,difficulty");
  assert.ok(csv.includes("Can I pay in cash?,\"Yes, on delivery\",2"), csv);

  const jsonl = await client.datasets.getVersionAsJsonl("support-questions", "v1");
  const lines = jsonl.trim().split("\n");
  assert.equal(lines.length, 5, "a columns line, then four rows");
  assert.deepEqual(JSON.parse(lines[1]), { question: "Where is my parcel?", answer: "Track it on the orders page", difficulty: 1 });

  const list = await client.datasets.list();
  assert.deepEqual(list.datasets.map((d) => d.slug), ["support-questions"]);
  await client.datasets.delete("support-questions");
  assert.equal((await client.datasets.list()).datasets.length, 0);
  await assert.rejects(client.datasets.get("support-questions"), /dataset "support-questions" not found/);
});

test("file columns: an upload to evalcol's own upload URL, and an external URL", async () => {
  const created = await client.datasets.create({ name: "Receipts" });
  await created.addColumn([{ name: "label", type: "string" }, { name: "scan", type: "file" }]);
  const ds = await client.datasets.get("receipts");
  const bytes = Buffer.from("%PDF-1.4 pretend receipt");
  const [uploaded, linked] = await ds.addRows([
    { label: "uploaded", scan: attachment.buffer(bytes, "receipt.pdf", { contentType: "application/pdf", fileType: "file" }) },
    { label: "linked", scan: attachment.url("https://files.example.com/r/42.pdf", { fileType: "file" }) },
  ]);
  assert.ok(uploaded.id && linked.id);
  const rows = await ds.getRows(10, 0);
  const byLabel = Object.fromEntries(rows.map((r) => [r.data.label, r.data.scan]));
  assert.equal(byLabel.uploaded.storageType, "internal");
  assert.equal(byLabel.uploaded.size, bytes.length);
  assert.equal(byLabel.uploaded.fileName, "receipt.pdf");
  assert.match(byLabel.uploaded.storageKey, /^files\/[0-9a-f]{32}$/);
  assert.equal(byLabel.linked.storageType, "external");
  assert.equal(byLabel.linked.url, "https://files.example.com/r/42.pdf");
});
