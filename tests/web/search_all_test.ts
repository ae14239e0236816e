/**
 * web_search with provider "all": every configured provider asked at once (local stand-ins
 * here), results merged by URL with a combined rank, and a failing or rate-limited provider
 * costing only its own results. Also Wikipedia on its own.
 */
import assert from "node:assert/strict";
import type { ServerResponse } from "node:http";
import process from "node:process";
import { after, before, test } from "node:test";
import {
  chooseAllProviders,
  mergeResults,
} from "../../tools/web/_lib/search_providers/provider.ts";
import { articleUrl, parseWikipedia } from "../../tools/web/_lib/search_providers/wikipedia.ts";
import webSearch from "../../tools/web/web_search.ts";
import { callInRoots } from "../helpers/file_tools.ts";
import { type LocalServer, serveLocally } from "./local_site.ts";

const VARS = [
  "TOOLHOST_SEARCH_PROVIDER",
  "TOOLHOST_SEARXNG_URL",
  "BRAVE_API_KEY",
  "TOOLHOST_BRAVE_API_KEY",
  "TOOLHOST_DUCKDUCKGO_URL",
  "TOOLHOST_BRAVE_URL",
  "TOOLHOST_WIKIPEDIA_URL",
];

async function withEnv<T>(vars: Record<string, string>, body: () => Promise<T>): Promise<T> {
  const saved = new Map(VARS.map((name) => [name, process.env[name]]));
  for (const name of VARS) delete process.env[name];
  Object.assign(process.env, vars);
  try {
    return await body();
  } finally {
    for (const [name, value] of saved) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  }
}

const ddgResult = (target: string, title: string) =>
  `<div class="result"><h2><a class="result__a" href="//duckduckgo.com/l/?uddg=${
    encodeURIComponent(target)
  }">${title}</a></h2><a class="result__snippet">ddg snippet</a></div>`;

let server: LocalServer;
const hits: string[] = [];
let braveStatus = 200;

function json(res: ServerResponse, status: number, body: unknown) {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(body));
}

before(async () => {
  server = await serveLocally((req, res) => {
    const url = new URL(req.url ?? "/", "http://x");
    hits.push(url.pathname);
    if (url.pathname === "/ddg/") {
      res.setHeader("content-type", "text/html");
      return res.end(
        `<div id="links">${ddgResult("https://deno.com/", "Deno")}${
          ddgResult("https://example.org/shared", "Shared (ddg)")
        }${ddgResult("https://only-ddg.test/", "Only DDG")}</div>`,
      );
    }
    if (url.pathname === "/w/api.php") {
      return json(res, 200, {
        query: {
          search: [{
            title: "Deno (software)",
            snippet: 'a <span class="searchmatch">runtime</span>',
          }],
        },
      });
    }
    if (url.pathname === "/searx/search") {
      return json(res, 200, {
        results: [
          { url: "https://example.org/shared/", title: "Shared (searx)", content: "searx" },
          { url: "https://deno.com/#top", title: "Deno again", content: "" },
        ],
      });
    }
    if (url.pathname === "/brave") {
      return json(res, braveStatus, braveStatus === 200 ? { web: { results: [] } } : {});
    }
    res.writeHead(404);
    res.end();
  });
});

after(() => server.close());

const all = () => ({
  TOOLHOST_SEARCH_PROVIDER: "all",
  TOOLHOST_DUCKDUCKGO_URL: `${server.base}/ddg/`,
  TOOLHOST_WIKIPEDIA_URL: `${server.base}/w/api.php`,
  TOOLHOST_SEARXNG_URL: `${server.base}/searx`,
  BRAVE_API_KEY: "key",
  TOOLHOST_BRAVE_URL: `${server.base}/brave`,
});

test("merging: one result per URL, ranked by the sum over providers", () => {
  const merged = mergeResults([
    [
      { title: "A", url: "https://a.test/", snippet: "" },
      { title: "B", url: "https://b.test/x", snippet: "b" },
    ],
    [
      { title: "B2", url: "https://B.test/x/#frag", snippet: "" },
      { title: "C", url: "https://c.test/", snippet: "c" },
    ],
  ]);
  assert.deepEqual(merged.map((r) => r.title), ["B", "A", "C"]);
});

test("Wikipedia: article URLs on the endpoint's wiki, snippets as text", () => {
  const endpoint = "https://de.wikipedia.org/w/api.php";
  assert.equal(
    articleUrl(endpoint, "Deno (software)"),
    "https://de.wikipedia.org/wiki/Deno_(software)",
  );
  const { results } = parseWikipedia(endpoint, {
    query: { search: [{ title: "A&B", snippet: "x <span>y</span> &amp; z" }] },
  });
  assert.deepEqual(results, [{
    title: "A&B",
    url: "https://de.wikipedia.org/wiki/A%26B",
    snippet: "x y & z",
  }]);
});

test('"all" asks the keyless providers, and SearXNG and Brave only when set up', () => {
  const ids = (env: Record<string, string>) => chooseAllProviders(env).map((c) => c.id);
  assert.deepEqual(ids({}), ["duckduckgo", "wikipedia"]);
  assert.deepEqual(ids({ TOOLHOST_SEARXNG_URL: "https://s.test", BRAVE_API_KEY: "k" }), [
    "duckduckgo",
    "wikipedia",
    "searxng",
    "brave",
  ]);
});

test('"all": every provider at once, merged; one failing costs only its results', async () => {
  braveStatus = 429;
  const { result, text, data } = await withEnv(
    all(),
    () => callInRoots(webSearch, [process.cwd()], { query: "deno" }),
  );
  assert.equal(result.isError, undefined, text);
  const urls = (data.results as { url: string }[]).map((r) => r.url);
  // Found by two providers, these come first; the URL forms of one page are one result.
  assert.deepEqual(urls.slice(0, 2), ["https://deno.com/", "https://example.org/shared"]);
  assert.ok(urls.includes("https://only-ddg.test/"));
  assert.ok(urls.includes(`${server.base}/wiki/Deno_(software)`));
  assert.equal(urls.length, 4);
  assert.equal(data.provider, "all");
  assert.deepEqual(data.answered, ["duckduckgo", "wikipedia", "searxng"]);
  assert.match(text, /^All providers results for "deno":/);
  assert.match(
    text,
    /answered: DuckDuckGo, Wikipedia, SearXNG; did not answer: Brave Search: .*429/,
  );
});

test('"all" fails only when no provider answers; with site, Wikipedia is not asked', async () => {
  const before = hits.filter((h) => h === "/w/api.php").length;
  const { data } = await withEnv(
    all(),
    () => callInRoots(webSearch, [process.cwd()], { query: "deno", site: "example.org" }),
  );
  assert.deepEqual(data.answered, ["duckduckgo", "searxng"]);
  assert.equal(hits.filter((h) => h === "/w/api.php").length, before);
  const down = `http://127.0.0.1:9`;
  const { result, text } = await withEnv(
    {
      TOOLHOST_SEARCH_PROVIDER: "all",
      TOOLHOST_DUCKDUCKGO_URL: `${down}/ddg/`,
      TOOLHOST_WIKIPEDIA_URL: `${down}/w/api.php`,
    },
    () => callInRoots(webSearch, [process.cwd()], { query: "deno" }),
  );
  assert.equal(result.isError, true);
  assert.match(text, /No provider answered\. DuckDuckGo: .*Wikipedia: /);
});

test("Wikipedia alone, by name", async () => {
  const { text, data } = await withEnv(
    { TOOLHOST_SEARCH_PROVIDER: "wikipedia", TOOLHOST_WIKIPEDIA_URL: `${server.base}/w/api.php` },
    () => callInRoots(webSearch, [process.cwd()], { query: "deno" }),
  );
  assert.equal(data.provider, "wikipedia");
  assert.match(text, /^Wikipedia results for "deno":\n\n1\. Deno \(software\)/);
});
