/**
 * Documents through the compiled binary, as raw JSON lines: a PDF, a .docx, an .xlsx and a
 * notebook read as text; a zip bomb, an encrypted PDF and a 100,000-page PDF answered while a
 * ping still gets through first; a PDF that inflates past the memory a document may take
 * given up, and that memory given back; stdout holds nothing but protocol lines.
 */
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import process from "node:process";
import { test } from "node:test";
import { e2eFixture } from "../helpers/e2e.ts";
import { modern } from "../helpers/raw_client.ts";
import { docx, notebook, pdf, pdfBomb, xlsx, zipBomb } from "../helpers/documents.ts";
import { callTool, type ToolResult } from "../helpers/tool_calls.ts";

const e2e = e2eFixture();
const root = e2e.file.scratch("docs-e2e");
writeFileSync(join(root, "report.pdf"), pdf([["First page text"], ["Second page"], []]));
writeFileSync(join(root, "report.docx"), docx());
writeFileSync(
  join(root, "sales.xlsx"),
  xlsx([{ name: "Sales", rows: [["Region", "Total"], ["North", 3]] }]),
);
writeFileSync(join(root, "analysis.ipynb"), notebook());
writeFileSync(join(root, "bomb.docx"), zipBomb());
writeFileSync(join(root, "secret.pdf"), pdf([["x"]], { encrypt: true }));
writeFileSync(join(root, "huge.pdf"), pdf([["same"]], { count: 100_000 }));

const client = e2e.file.server({ args: ["--root", root] });

test("documents come back as text through the binary", async () => {
  const fromPdf = (await callTool(client, "read_file", { path: "report.pdf" })).result;
  assert.match(fromPdf.content[0].text!, /--- page 1 of 3 ---\nFirst page text/);
  assert.match(fromPdf.content[0].text!, /page 3 has no text/);
  assert.deepEqual(fromPdf.structuredContent?.document, {
    format: "pdf",
    unit: "page",
    first: 1,
    last: 3,
    total: 3,
  });
  const fromDocx = (await callTool(client, "read_file", { path: "report.docx" })).result;
  assert.match(fromDocx.content[0].text!, /# Quarterly report[^]*\| Region \| Sales \|/);
  const fromXlsx =
    (await callTool(client, "read_file", { path: "sales.xlsx", sheet: "Sales" })).result;
  assert.match(fromXlsx.content[0].text!, /\| 2 \| North \| 3 \|/);
  const fromNotebook = (await callTool(client, "read_file", { path: "analysis.ipynb" })).result;
  assert.match(fromNotebook.content[0].text!, /--- cell 2 of 3: code \[1\], id load ---/);
  assert.equal(fromNotebook.content[1].type, "image");
});

test("hostile documents get clear errors, and the server answers while they are extracted", async () => {
  const bomb = client.request(
    "tools/call",
    modern({ name: "read_file", arguments: { path: "bomb.docx" } }),
    30_000,
  );
  const hugeId = client.start(
    "tools/call",
    modern({ name: "read_file", arguments: { path: "huge.pdf", offset: 99_999 } }),
  );
  const huge = client.responseTo(hugeId, 30_000);
  const ping = await client.request("ping", undefined, 30_000);
  assert.deepEqual(ping.result, {}, JSON.stringify(ping));
  // Extraction runs in a worker: the ping is answered before the huge PDF is, whatever the speed.
  assert.ok(!client.messages.some((m) => m.id === hugeId), "the ping waited for the extraction");
  const bombResult = (await bomb).result as unknown as ToolResult;
  assert.equal(bombResult.isError, true);
  assert.match(bombResult.content[0].text!, /zip bomb/);
  const hugeResult = (await huge).result as unknown as ToolResult;
  assert.match(hugeResult.content[0].text!, /--- page 99999 of 100000 ---/);
  const secret = (await callTool(client, "read_file", { path: "secret.pdf" })).result;
  assert.equal(secret.isError, true);
  assert.match(secret.content[0].text!, /encrypted PDF/);
});

/** The server's resident memory in MiB (Linux). */
const residentMiB = () =>
  Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${client.child.pid}/status`, "utf8"))![1]) /
  1024;

test(
  "a PDF inflating past the memory a document may take is given up; the memory comes back",
  { skip: process.platform !== "linux" && "reads the server's memory from /proc" },
  async () => {
    // 1.25 GiB of content stream in about 1.3 MB of file: past the 1 GiB a document may take.
    writeFileSync(join(root, "inflates.pdf"), await pdfBomb("boom", 1280 * 1024 * 1024));
    const result = (await callTool(client, "read_file", { path: "inflates.pdf" })).result;
    assert.equal(result.isError, true);
    assert.match(
      result.content[0].text!,
      /inflates\.pdf was given up: reading it grew toolhost's memory by \d+ MiB, past the 1024 MiB/,
    );
    // The worker's heap went with it (polled: how soon the allocator returns it varies).
    let resident = residentMiB();
    for (let i = 0; i < 100 && resident > 512; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      resident = residentMiB();
    }
    assert.ok(resident <= 512, `still ${resident} MiB resident`);
    const fine = (await callTool(client, "read_file", { path: "report.pdf" })).result;
    assert.match(fine.content[0].text!, /First page text/);
  },
);
