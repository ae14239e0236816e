/**
 * read_file on documents, in-process (extraction in the worker): PDF pages, Word markdown,
 * workbook sheets, notebook cells; and hostile files — a zip bomb (honest and lying), a DTD in
 * an office part, a 100,000-page PDF, an encrypted PDF, truncated files — each a clear error
 * stopped by its guard, with the server's thread free.
 */
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, test } from "node:test";
import readFile from "../../tools/files/read_file.ts";
import { stopExtractors } from "../../tools/_lib/documents/pool.ts";
import { callInRoots, scratchDir } from "../helpers/file_tools.ts";
import {
  docx,
  notebook,
  pdf,
  pdfBomb,
  PNG_BASE64,
  xlsx,
  zipBomb,
  zipOf,
} from "../helpers/documents.ts";

after(() => stopExtractors());

const root = scratchDir("toolhost-docs-");
function file(name: string, content: string | Uint8Array): string {
  writeFileSync(join(root, name), content);
  return name;
}
const read = (args: Record<string, unknown>) => callInRoots(readFile, [root], args);

/** The read fails with `pattern`: the guard that stops it is what is checked, never its speed. */
async function refused(args: Record<string, unknown>, pattern: RegExp) {
  const { result, text } = await read(args);
  assert.equal(result.isError, true, text);
  assert.match(text, pattern);
}

test("a PDF reads page by page with markers; offset and limit count pages", async () => {
  const path = file(
    "report.pdf",
    pdf([["Intro page"], ["Second page", "more text"], [], ["Last"]]),
  );
  const { text, data } = await read({ path, offset: 2, limit: 2 });
  assert.match(
    text,
    /^--- page 2 of 4 ---\nSecond page\nmore text\n--- page 3 of 4 ---\n\[no text/,
  );
  assert.match(text, /\[PDF: pages 2–3 of 4\]/);
  assert.match(text, /\[more: call read_file with offset 4 to continue\]/);
  assert.match(text, /page 3 has no text: probably scanned/);
  assert.deepEqual(data.document, { format: "pdf", unit: "page", first: 2, last: 3, total: 4 });
  assert.equal(data.nextOffset, 4);
  assert.equal(data.kind, "document");
});

test("an offset past a PDF's last page is refused with the page count", async () => {
  const path = file("short.pdf", pdf([["one"]]));
  await refused({ path, offset: 5 }, /offset 5 is past the end of short\.pdf, which has 1 page/);
});

test("a .docx comes back as markdown: headings, emphasis, lists, tables, links", async () => {
  const path = file("report.docx", docx());
  const { text, data } = await read({ path });
  for (
    const part of [
      "# Quarterly report",
      "Revenue grew, **strongly** this quarter.",
      "## Costs",
      "- first bullet\n- second bullet",
      "1. step one\n2. step two",
      "| Region | Sales |\n| --- | --- |\n| North | 120 |",
      "[the website](https://example.com/report)",
    ]
  ) assert.ok(text.includes(part), `${part} in\n${text}`);
  assert.doesNotMatch(text, /word\/document\.xml|PK/);
  assert.equal((data.document as { unit: string }).unit, "line");
});

test("an .xlsx shows each sheet's used range as a table; sheet and offset read a row window", async () => {
  const rows = [["Region", "Total"], ...Array.from({ length: 120 }, (_, i) => [`R${i + 2}`, i])];
  const path = file(
    "sales.xlsx",
    xlsx([{ name: "Sales", rows }, { name: "Notes", rows: [["a|b"]] }]),
  );
  const overview = await read({ path });
  assert.match(overview.text, /## Sales \(A1:B121, 121 rows × 2 columns\)/);
  assert.match(
    overview.text,
    /\| row \| A \| B \|\n\| ---: \| --- \| --- \|\n\| 1 \| Region \| Total \|/,
  );
  assert.match(overview.text, /\[rows 1–50 of 121; read on with sheet: "Sales", offset: 51\]/);
  assert.match(overview.text, /## Notes[^\n]*\n\n[^]*\| 1 \| a\\\|b \|/);
  assert.deepEqual((overview.data.document as { sheets: string[] }).sheets, ["Sales", "Notes"]);

  const window = await read({ path, sheet: "Sales", offset: 100, limit: 5 });
  assert.match(window.text, /\| 100 \| R100 \| 98 \|/);
  assert.match(window.text, /\[Excel workbook: rows 100–104 of 121 of sheet "Sales"\]/);
  assert.match(window.text, /offset 105/);
  await refused(
    { path, sheet: "Missing" },
    /no sheet named "Missing"; its sheets: "Sales", "Notes"/,
  );
});

test("a notebook shows its cells in order with kind, number and outputs; images as images", async () => {
  const path = file("analysis.ipynb", notebook());
  const { result, text, data } = await read({ path });
  assert.match(text, /--- cell 1 of 3: markdown, id intro ---\n# Analysis/);
  assert.match(text, /--- cell 2 of 3: code \[1\], id load ---\n```python\nimport pandas as pd/);
  assert.match(text, /output \(stdout\):\nhello/);
  assert.match(text, /output \[1\]:\n42/);
  assert.match(text, /error: ZeroDivisionError: division by zero/);
  assert.doesNotMatch(text, /\\u001b|"cell_type"/);
  assert.deepEqual(result.content[1], { type: "image", data: PNG_BASE64, mimeType: "image/png" });
  assert.equal((data.document as { total: number }).total, 3);
  const second = await read({ path, offset: 3 });
  assert.match(second.text, /^--- cell 3 of 3/);
});

test("a zip bomb is refused before it is inflated, whether its sizes are honest or lie", async () => {
  const honest = file("bomb.docx", zipBomb(200 * 1024 * 1024));
  await refused({ path: honest }, /inflates to more than 24 MB \(a zip bomb/);
  const lying = file("liar.xlsx", zipBomb(200 * 1024 * 1024, 1000));
  await refused({ path: lying }, /inflates to more than 24 MB/);
});

test("an office part with a DTD (entity expansion) is refused", async () => {
  const laughs = `<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 ` +
    `"&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">]><w:document>&lol2;</w:document>`;
  const path = file(
    "laughs.docx",
    zipOf([{ name: "[Content_Types].xml", data: "<Types/>" }, {
      name: "word/document.xml",
      data: laughs,
    }]),
  );
  await refused({ path }, /XML part with a DTD \(word\/document\.xml\)/);
});

test("a 5,000-page PDF reads the window asked for, and says where the next one starts", async () => {
  const path = file("huge.pdf", pdf([["the same page"]], { count: 5_000 }));
  const { text, data } = await read({ path, offset: 2_500, limit: 2 });
  assert.match(text, /--- page 2500 of 5000 ---\nthe same page/);
  assert.equal(data.nextOffset, 2_502);
});

test("an encrypted PDF, truncated files and a password-protected or legacy office file are clear errors", async () => {
  await refused(
    { path: file("secret.pdf", pdf([["x"]], { encrypt: true })) },
    /encrypted PDF that needs a password/,
  );
  const whole = pdf([["Some text"], ["More"]]);
  const cut = file("cut.pdf", whole.subarray(0, Math.floor(whole.length / 3)));
  const { text } = await read({ path: cut });
  // pdf.js recovers what it can from a cut file; either way the answer is bounded and clear.
  assert.ok(/not a readable PDF|could not be read|page/.test(text), text);
  const doc = docx();
  await refused(
    { path: file("cut.docx", doc.subarray(0, doc.length - 40)) },
    /damaged: its zip directory/,
  );
  const ole = new Uint8Array([
    0xd0,
    0xcf,
    0x11,
    0xe0,
    0xa1,
    0xb1,
    0x1a,
    0xe1,
    ...new Array(600).fill(0),
  ]);
  await refused(
    { path: file("old.xls", ole) },
    /Office 97–2003 workbook \(\.xls\).*convert-to xlsx/,
  );
  await refused({ path: file("locked.docx", ole) }, /password-protected Office file/);
  await refused({ path: file("broken.ipynb", "{not json") }, /not a valid notebook/);
});

test("sheet on anything but a workbook is refused", async () => {
  await refused(
    { path: file("plain.txt", "hello\n"), sheet: "x" },
    /sheet is for \.xlsx workbooks/,
  );
});

test("the memory guard trips once resident memory passes its ceiling, and only if a collection does not bring it back", async () => {
  const { guardMemory } = await import("../../tools/_lib/documents/memory_guard.ts");
  let resident = 1000;
  let collections = 0;
  const guard = guardMemory(1100, () => resident, () => {
    collections++;
    if (resident === 1200) resident = 1050; // garbage, collected
  });
  resident = 1100; // at the ceiling: still allowed
  await new Promise((resolve) => setTimeout(resolve, 100));
  assert.equal(guard.signal.aborted, false);
  resident = 1200;
  await new Promise((resolve) => setTimeout(resolve, 100));
  assert.equal(guard.signal.aborted, false, "what a collection gave back does not count");
  assert.ok(collections >= 1);
  resident = 1101;
  await new Promise((resolve) => guard.signal.addEventListener("abort", resolve));
  assert.equal(guard.resident, 1101);
  assert.equal(guard.start, 1000);
  guard.stop();
});

test("a PDF stream that inflates past the cap is refused before pdf.js reads it", async () => {
  const { checkStreams } = await import("../../tools/_lib/documents/pdf_streams.ts");
  const bomb = await pdfBomb("boom", 64 * 1024 * 1024);
  assert.throws(
    () => checkStreams(bomb, "bomb.pdf"),
    /bomb\.pdf holds a compressed stream that inflates past 16 MiB/,
  );
  checkStreams(bomb, "bomb.pdf", 65 * 1024 * 1024); // under a larger cap: let through
  await refused({ path: file("bomb.pdf", bomb) }, /inflates past 16 MiB \(a decompression bomb/);
  checkStreams(pdf([["fine"], ["pages"]]), "fine.pdf");
});

test("an extraction past its deadline is given up and its worker ended; the next one works", async () => {
  const { extractInWorker, extractorCount } = await import("../../tools/_lib/documents/pool.ts");
  const { DocumentError } = await import("../../tools/_lib/documents/types.ts");
  const huge = pdf([["page"]], { count: 100_000 });
  const request = {
    format: "pdf" as const,
    name: "slow.pdf",
    offset: 1,
    limit: 10,
    maxChars: 1000,
  };
  await assert.rejects(
    extractInWorker({ ...request, bytes: huge }, undefined, 50, Infinity),
    (error: Error) =>
      error instanceof DocumentError && /took more than 0\.05 s of work/.test(error.message),
  );
  assert.equal(extractorCount(), 0);
  // No memory ceiling here either: the ended worker's heap may still be going back to the system
  // (under Deno the ceiling is relative to the start), and the guard has tests of its own.
  const ok = await extractInWorker(
    { ...request, bytes: pdf([["fine"]]) },
    undefined,
    undefined,
    Infinity,
  );
  assert.match(ok.text, /fine/);
});
