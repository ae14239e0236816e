/**
 * fetch_url's save_to: the body written byte for byte inside the roots (through the sandbox),
 * never past the size cap, never while read-only, never out of the roots.
 */
import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { gzipSync } from "node:zlib";
import { CallWrites, type ToolContext } from "../../../mcp/tool/mod.ts";
import { defaultSettings, type Settings } from "../../../config/settings.ts";
import { fetchToFile } from "../../../tools/web/_lib/save_body.ts";
import fetchUrl from "../../../tools/web/fetch_url.ts";
import { scratchDir } from "../../helpers/file_tools.ts";
import { type LocalServer, serveLocally } from "../local_site.ts";

const BYTES = Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 7) % 256));
const ARCHIVE = gzipSync("an archive's content");
let server: LocalServer;
const encodings: string[] = [];

before(async () => {
  server = await serveLocally((req, res) => {
    encodings.push(String(req.headers["accept-encoding"]));
    if (req.url === "/data.bin") {
      res.setHeader("content-type", "application/octet-stream");
      return res.end(BYTES);
    }
    if (req.url === "/archive.tar.gz") {
      res.setHeader("content-type", "application/gzip");
      return res.end(ARCHIVE);
    }
    if (req.url === "/big") {
      res.setHeader("content-type", "text/plain");
      return res.end("x".repeat(5000));
    }
    res.statusCode = 404;
    res.end("no");
  });
});

after(() => server.close());

/** A call of fetch_url saving to `path`: its writes declared as fetch_url declares them. */
function context(root: string, path: string, settings: Partial<Settings> = {}): ToolContext {
  const config = { ...defaultSettings(), allowPrivateNetwork: true, ...settings };
  return {
    config,
    signal: new AbortController().signal,
    roots: () => Promise.resolve([root]),
    writes: new CallWrites(fetchUrl.writes, { url: "http://127.0.0.1/", save_to: path }),
  } as unknown as ToolContext;
}

const save = (root: string, url: string, path: string, settings?: Partial<Settings>) =>
  fetchToFile(
    `${server.base}${url}`,
    path,
    { timeoutMs: 5000, render: false },
    context(root, path, settings),
  );

test("the body is written byte for byte, with its type and size in the result", async () => {
  const root = scratchDir("toolhost-save-");
  const result = await save(root, "/data.bin", "downloads/data.bin");
  assert.deepEqual(readFileSync(join(root, "downloads/data.bin")), BYTES);
  assert.equal(result.structured.saved_to, join("downloads", "data.bin"));
  assert.equal(result.structured.bytes, 4096);
  assert.equal(result.structured.content_type, "application/octet-stream");
  assert.match(
    result.content,
    /^Saved downloads\/data\.bin: 4\.0 KB \(4,096 bytes\) of application\/octet-stream/,
  );
  assert.match(result.content, /created the directory downloads/);
  // An archive stays as the server stores it: nothing asks for (or decodes) a transfer encoding.
  await save(root, "/archive.tar.gz", "a.tar.gz");
  assert.deepEqual(readFileSync(join(root, "a.tar.gz")), ARCHIVE);
  assert.equal(encodings.at(-1), "identity");
  const again = await save(root, "/archive.tar.gz", "a.tar.gz");
  assert.match(again.content, /^Replaced a\.tar\.gz/);
});

test("over the size cap, an HTTP error: refused and nothing written", async () => {
  const root = scratchDir("toolhost-save-");
  await assert.rejects(
    save(root, "/big", "big.txt", { limits: { ...defaultSettings().limits, fetchMaxBytes: 4096 } }),
    /larger than the 4\.0 KB download cap.*nothing was saved/,
  );
  await assert.rejects(save(root, "/missing", "m.txt"), /HTTP 404.*nothing was saved/);
  for (const name of ["big.txt", "m.txt"]) assert.ok(!existsSync(join(root, name)));
});

test("save_to stays inside the roots: outside paths and links out are refused", async () => {
  const root = scratchDir("toolhost-save-");
  const outside = scratchDir("toolhost-outside-");
  symlinkSync(outside, join(root, "escape"));
  mkdirSync(join(root, "dir"));
  writeFileSync(join(outside, "keep.txt"), "kept");
  for (const path of [join(outside, "x.bin"), "../x.bin", "escape/keep.txt", "escape/new.bin"]) {
    await assert.rejects(save(root, "/data.bin", path), /outside the allowed roots/, path);
  }
  await assert.rejects(save(root, "/data.bin", "dir"), /is a directory/);
  assert.equal(readFileSync(join(outside, "keep.txt"), "utf8"), "kept");
  assert.ok(!existsSync(join(outside, "x.bin")) && !existsSync(join(outside, "new.bin")));
});
