/**
 * The plain alternative the web benchmark measures fetch_url against: `fetch` plus turndown
 * (a devDependency) on node, in one process, the way a small server without toolhost's work
 * would convert a page. Bundled for node like the SDK server (web_bench.ts). Arguments: the
 * URLs to fetch, one run each in order; prints a JSON array of milliseconds per URL.
 */
import process from "node:process";
import TurndownService from "turndown";

const times: number[] = [];
for (const url of process.argv.slice(2)) {
  const started = performance.now();
  const response = await fetch(url);
  const html = await response.text();
  const markdown = new TurndownService().turndown(html);
  times.push(performance.now() - started);
  if (markdown.length < html.length / 10) throw new Error(`${url}: turndown lost the page`);
}
process.stdout.write(JSON.stringify(times) + "\n");
