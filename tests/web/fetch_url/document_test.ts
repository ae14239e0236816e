/**
 * What a downloaded body becomes: text, an image or a described binary, whatever type the
 * server declared; and how much HTML is converted.
 */
import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { test } from "node:test";
import type { HttpResponse } from "../../../tools/web/_lib/http/http_get.ts";
import { toDocument } from "../../../tools/web/_lib/web_document.ts";

const response = (body: string | Uint8Array, type?: string): HttpResponse => ({
  url: "https://example.com/x",
  status: 200,
  headers: type ? { "content-type": type } : {},
  body: typeof body === "string" ? new TextEncoder().encode(body) : body,
  truncated: false,
  redirects: [],
});
const options = { format: "markdown" as const, raw: false };

test("a body that says image/png but is text is not sent as an image", async () => {
  const document = await toDocument(response("not an image at all", "image/png"), options);
  assert.equal(document.kind, "text");
});

test("a real PNG under a wrong type is an image", async () => {
  const png = Buffer.from(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGP4z8DwHwAFAAH/iZk9HQAAAABJRU5ErkJggg==",
    "base64",
  );
  const document = await toDocument(response(png, "application/octet-stream"), options);
  assert.equal(document.kind, "image");
});

test("UTF-8 text under a type we do not list comes back as text; real binary is described", async () => {
  const ndjson = await toDocument(response('{"a":1}\n{"a":2}\n', "application/x-ndjson"), options);
  assert.equal(ndjson.kind, "text");
  const zip = await toDocument(
    response(new Uint8Array([0x50, 0x4b, 3, 4, 0, 0, 0xff]), "application/zip"),
    options,
  );
  assert.equal(zip.kind, "binary");
});

test("many leading comments cannot make the HTML sniffing backtrack", async () => {
  const body = "<!---->".repeat(5000) + "x";
  // A backtracking pattern would take minutes on this; the scan is linear.
  const document = await toDocument(response(body), options);
  assert.equal(document.kind, "text");
  const page = await toDocument(
    response("<!-- hi --> <!doctype html><title>T</title><p>Body</p>"),
    options,
  );
  assert.equal(page.kind === "text" && page.title, "T");
});

test("a big JSON body comes back pretty-printed, a big image whole with its size", async () => {
  const rows = Array.from({ length: 5000 }, (_, i) => ({ id: i }));
  const json = await toDocument(response(JSON.stringify(rows), "application/json"), options);
  assert.equal(json.kind === "text" && json.text, JSON.stringify(rows, null, 2));
  const png = Buffer.alloc(200_000, 7);
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]).copy(png);
  const expected = png.toString("base64");
  // The body may move to the worker: the test keeps no view of it.
  const image = await toDocument(response(new Uint8Array(png), "image/png"), options);
  assert.equal(image.kind, "image");
  if (image.kind !== "image") return;
  assert.equal(image.size, 200_000);
  assert.equal(image.data, expected);
});

test("HTML beyond 2 MB is converted only in part, and the result says so", async () => {
  const big = `<html><body>${"<p>word word word</p>".repeat(120_000)}</body></html>`;
  const document = await toDocument(response(big, "text/html"), { format: "text", raw: true });
  assert.equal(document.kind, "text");
  assert.match(
    document.kind === "text" ? document.text : "",
    /Only the first 2\.0 MB of this page's/,
  );
});

test("a fetched PDF or .docx comes back as text through read_file's extractors", async () => {
  const { pdf, docx } = await import("../../helpers/documents.ts");
  const { stopExtractors } = await import("../../../tools/_lib/documents/pool.ts");
  try {
    const fromPdf = await toDocument(response(pdf([["Fetched page"]]), "application/pdf"), options);
    assert.equal(fromPdf.kind, "text");
    assert.match((fromPdf as { text: string }).text, /--- page 1 of 1 ---\nFetched page/);
    const fromDocx = await toDocument(
      response(
        docx(),
        "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
      ),
      options,
    );
    assert.match((fromDocx as { text: string }).text, /# Quarterly report/);
  } finally {
    stopExtractors();
  }
});
