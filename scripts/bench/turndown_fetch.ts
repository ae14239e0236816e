/**
 * The web benchmark's helper process on node (bundled like the SDK server, web_bench.ts): it
 * serves the generated pages, so that serving them costs neither toolhost nor the process that
 * times it, and it is the plain alternative fetch_url is measured against: `fetch` plus
 * turndown (a devDependency) in one process, the way a small server without toolhost's work
 * would convert a page.
 *
 * Arguments: the page sizes in bytes. It prints `{"base": "http://127.0.0.1:<port>"}`, which
 * serves /page/<bytes>?n=<i>; then for each URL read from stdin, one line each, it fetches and
 * converts it and prints `{"ms": <milliseconds>}`.
 */
import { Buffer } from "node:buffer";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import process from "node:process";
import { createInterface } from "node:readline";
import TurndownService from "turndown";
import { generatedPage } from "./web_page.ts";

const pages = new Map(
  process.argv.slice(2).map((size) => [Number(size), Buffer.from(generatedPage(Number(size)))]),
);
const server = createServer((req, res) => {
  const page = pages.get(Number(/^\/page\/(\d+)/.exec(req.url ?? "")?.[1]));
  if (!page) {
    res.statusCode = 404;
    return res.end();
  }
  res.setHeader("content-type", "text/html; charset=utf-8");
  res.end(page);
});
server.listen(0, "127.0.0.1", () => {
  const { port } = server.address() as AddressInfo;
  process.stdout.write(JSON.stringify({ base: `http://127.0.0.1:${port}` }) + "\n");
});

async function convert(url: string): Promise<number> {
  const started = performance.now();
  const response = await fetch(url);
  const html = await response.text();
  const markdown = new TurndownService().turndown(html);
  const elapsed = performance.now() - started;
  if (markdown.length < html.length / 10) throw new Error(`${url}: turndown lost the page`);
  return elapsed;
}

// One URL at a time, in order: the timings must not overlap.
let queue = Promise.resolve();
createInterface({ input: process.stdin }).on("line", (url) => {
  queue = queue.then(async () => {
    process.stdout.write(JSON.stringify({ ms: await convert(url) }) + "\n");
  });
}).on("close", () => {
  queue.then(() => server.close());
});
