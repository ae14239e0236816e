/**
 * HTML conversion in workers (convert/pool.ts): the same page as converting in place, several
 * conversions at once on at most two workers, and a cancelled conversion that stops at once
 * without breaking the next one.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { after, test } from "node:test";
import { Buffer } from "node:buffer";
import { bodyText } from "../../../tools/web/_lib/convert/body_text.ts";
import {
  bodyTextInWorker,
  ConversionCancelled,
  converterCount,
  convertInWorker,
  stopConverters,
} from "../../../tools/web/_lib/convert/pool.ts";
import {
  convertHtml,
  type ConvertPageOptions,
} from "../../../tools/web/_lib/convert/main_content.ts";

const ARTICLE = readFileSync(new URL("../../fixtures/web/article.html", import.meta.url), "utf8");
const URL_OF_PAGE = "https://example.com/blog/post";

/** A page that keeps a worker busy for a while: many deeply nested sections. */
const SLOW_PAGE = `<html><body><article>${
  Array.from({ length: 6000 }, (_, i) => `<section><h2>S${i}</h2><p>Text ${i}</p></section>`)
    .join("")
}</article></body></html>`;

after(() => stopConverters());

test("a page converted in a worker is the page converted in place, in every format", async () => {
  for (const format of ["markdown", "text", "html"] as const) {
    for (const extract of [true, false]) {
      const options: ConvertPageOptions = { url: URL_OF_PAGE, format, extract };
      assert.deepEqual(
        await convertInWorker(ARTICLE, options),
        convertHtml(ARTICLE, options),
        `${format}, extract ${extract}`,
      );
    }
  }
});

test("several conversions at once all come back right, on at most two workers", async () => {
  const options: ConvertPageOptions = { url: URL_OF_PAGE, format: "markdown", extract: true };
  const expected = convertHtml(ARTICLE, options);
  const pages = Array.from({ length: 5 }, () => convertInWorker(ARTICLE, options));
  assert.ok(converterCount() <= 2, `${converterCount()} workers`);
  for (const page of await Promise.all(pages)) assert.deepEqual(page, expected);
});

test("a cancelled conversion stops at once, and the next one still works", async () => {
  const options: ConvertPageOptions = { url: URL_OF_PAGE, format: "markdown", extract: false };
  const controller = new AbortController();
  const slow = convertInWorker(SLOW_PAGE, options, controller.signal);
  const waiting = convertInWorker(SLOW_PAGE, options, controller.signal);
  const other = convertInWorker("<p>Still <b>here</b></p>", options);
  setTimeout(() => controller.abort(), 20);
  await assert.rejects(slow, ConversionCancelled);
  await assert.rejects(waiting, ConversionCancelled);
  assert.equal((await other).text, "Still **here**");
  const after = await convertInWorker("<p>After</p>", options);
  assert.equal(after.text, "After");
  await assert.rejects(
    convertInWorker("<p>x</p>", options, AbortSignal.abort()),
    ConversionCancelled,
  );
});

test("a page given as bytes is decoded in the worker, in the charset its header names", async () => {
  const options: ConvertPageOptions = { url: URL_OF_PAGE, format: "markdown", extract: false };
  const latin1 = Uint8Array.from(
    [..."<p>Caf\u00e9 cr\u00e8me</p>"].map((character) => character.charCodeAt(0)),
  );
  const page = await convertInWorker(
    { body: latin1, contentType: "text/html; charset=iso-8859-1" },
    options,
  );
  assert.equal(page.text, "Caf\u00e9 cr\u00e8me");
});

test("bytes that share their buffer are copied to the worker, leaving the buffer whole", async () => {
  const options: ConvertPageOptions = { url: URL_OF_PAGE, format: "markdown", extract: false };
  const shared = new TextEncoder().encode("xxxx<p>Middle</p>yyyy");
  const page = await convertInWorker({ body: shared.subarray(4, 17) }, options);
  assert.equal(page.text, "Middle");
  assert.equal(new TextDecoder().decode(shared), "xxxx<p>Middle</p>yyyy");
});

test("a big body's text is made in the worker (the body moves there), a small one in place", async () => {
  const rows = Array.from({ length: 8000 }, (_, i) => ({ id: i, name: `caf\u00e9 ${i}` }));
  const json = new TextEncoder().encode(JSON.stringify(rows));
  assert.ok(json.length > 64 * 1024);
  const expected = bodyText({ kind: "json", body: json.slice() });
  assert.equal(expected, JSON.stringify(rows, null, 2));
  assert.equal(await bodyTextInWorker({ kind: "json", body: json }), expected);
  assert.equal(json.length, 0, "the big body was transferred to the worker");

  const small = new TextEncoder().encode('{"a":[1,2]}');
  assert.equal(
    await bodyTextInWorker({ kind: "json", body: small }),
    '{\n  "a": [\n    1,\n    2\n  ]\n}',
  );
  assert.equal(small.length, 11, "a small body stays where it was");
});

test("text in the charset its header names, JSON that does not parse as it came, base64", async () => {
  const latin1 = Uint8Array.from("caf\u00e9 ".repeat(20_000), (c) => c.charCodeAt(0));
  assert.equal(
    await bodyTextInWorker({
      kind: "text",
      body: latin1,
      contentType: "text/plain; charset=latin1",
    }),
    "caf\u00e9 ".repeat(20_000),
  );
  const broken = "[1, 2, ".repeat(20_000);
  assert.equal(
    await bodyTextInWorker({ kind: "json", body: new TextEncoder().encode(broken) }),
    broken,
  );
  const image = Uint8Array.from({ length: 100_000 }, (_, i) => (i * 7) & 255);
  const base64 = Buffer.from(image).toString("base64");
  assert.equal(await bodyTextInWorker({ kind: "base64", body: image }), base64);
  await assert.rejects(
    bodyTextInWorker({ kind: "text", body: new Uint8Array(10) }, AbortSignal.abort()),
    ConversionCancelled,
  );
  await assert.rejects(
    bodyTextInWorker({ kind: "text", body: new Uint8Array(100_000) }, AbortSignal.abort()),
    ConversionCancelled,
  );
});
