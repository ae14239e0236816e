/** web_search in-process against fake providers on 127.0.0.1, and its parsers on their own. */
import assert from "node:assert/strict";
import type { IncomingMessage, ServerResponse } from "node:http";
import process from "node:process";
import { test } from "node:test";
import { ToolError } from "../../mcp/tool/mod.ts";
import { parseBrave, plainText, waitSeconds } from "../../tools/web/_lib/search_providers/brave.ts";
import {
  parseDuckDuckGoPage,
  resultTarget,
} from "../../tools/web/_lib/search_providers/duckduckgo.ts";
import {
  BRAVE_ENDPOINT,
  chooseProvider,
  collectResults,
  DUCKDUCKGO_ENDPOINT,
  parseSite,
} from "../../tools/web/_lib/search_providers/provider.ts";
import { parseSearxng, searxngSearchUrl } from "../../tools/web/_lib/search_providers/searxng.ts";
import webSearch from "../../tools/web/web_search.ts";
import { callInRoots } from "../helpers/file_tools.ts";
import { harness, tick } from "../helpers/in_process.ts";
import { modern } from "../helpers/raw_client.ts";
import { serveLocally } from "./local_site.ts";

const redirect = (target: string, rut: string) =>
  `//duckduckgo.com/l/?uddg=${encodeURIComponent(target)}&amp;rut=${rut}`;

/** A result block as DuckDuckGo's HTML endpoint writes one. */
function resultBlock(href: string, title: string, snippet: string, extra = "web-result") {
  return `
<div class="result results_links results_links_deep ${extra}">
  <div class="links_main links_deep result__body">
    <h2 class="result__title">
      <a rel="nofollow" class="result__a" href="${href}">${title}</a>
    </h2>
    <div class="result__extras">
      <div class="result__extras__url">
        <span class="result__icon">
          <a rel="nofollow" href="${href}"><img class="result__icon__img" width="16" height="16" alt=""
            src="//external-content.duckduckgo.com/ip3/example.ico" name="i15" /></a>
        </span>
        <a class="result__url" href="${href}">shown-url.example</a>
      </div>
    </div>
    <a class="result__snippet" href="${href}">${snippet}</a>
    <div class="clear"></div>
  </div>
</div>`;
}

const DDG_PAGE = `<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0 Transitional//EN"
  "http://www.w3.org/TR/xhtml1/DTD/xhtml1-transitional.dtd">
<html xmlns="http://www.w3.org/1999/xhtml">
<head>
  <meta http-equiv="content-type" content="text/html; charset=UTF-8" />
  <meta name="referrer" content="origin" />
  <title>deno testing at DuckDuckGo</title>
  <link rel="stylesheet" href="/dist/h.c1a3b1d2.css" type="text/css" />
</head>
<body class="body--html">
  <div class="header__form">
    <form name="x" class="header__form" action="/html/" method="post">
      <input type="text" name="q" class="search__input" value="deno testing" />
      <input type="hidden" name="b" value="" /><input type="hidden" name="kl" value="" />
    </form>
  </div>
  <div>
    <div class="serp__results">
      <div id="links" class="results">
${
  resultBlock(
    "https://duckduckgo.com/y.js?ad_domain=shop.example&amp;ad_provider=bingv7aa&amp;u3=x",
    "Buy Deno Stickers - Official Shop",
    "Ad: <b>Deno</b> stickers, shipped worldwide.",
    "result--ad result--ad--small",
  )
}
${
  resultBlock(
    redirect("https://deno.com/", "aaa111"),
    "Deno, the next-generation JavaScript runtime",
    "<b>Deno</b> features improved security, performance, and developer experience.",
  )
}
${
  resultBlock(
    redirect("https://docs.deno.com/runtime/fundamentals/testing/?x=a b&y=ü#top", "bbb222"),
    "Testing &amp; Benchmarks | Deno Docs",
    "Deno provides a built-in   test runner\n      for both JavaScript &lt;and&gt; TypeScript.",
  )
}
${
  resultBlock(
    redirect("https://deno.com/", "ccc333"),
    "Deno — duplicate of the first",
    "The same page again, found through another route.",
  )
}
${
  resultBlock(
    "https://github.com/denoland/deno",
    "GitHub - denoland/deno: A modern runtime for JavaScript and TypeScript.",
    "",
  )
}
${resultBlock(redirect("https://blog.example.org/deno-tests", "ddd444"), "Blog post", "On tests.")}
${resultBlock(redirect("https://example.org/about", "eee555"), "About example.org", "About us.")}
${resultBlock(redirect("https://notexample.org/deno", "fff666"), "Not example", "Elsewhere.")}
        <div class="nav-link">
          <form action="/html/" method="post">
            <input type="submit" class="btn btn--alt" value="Next" />
            <input type="hidden" name="q" value="deno testing" />
            <input type="hidden" name="s" value="10" />
            <input type="hidden" name="dc" value="11" />
          </form>
        </div>
      </div>
    </div>
  </div>
</body>
</html>`;

const ANOMALY_PAGE = `<!DOCTYPE html>
<html lang="en-US"><head><meta charset="utf-8"><title>DuckDuckGo</title></head>
<body>
<div class="anomaly-modal__mask">
  <div class="anomaly-modal__modal" data-testid="anomaly-modal">
    <div class="anomaly-modal__title">Unfortunately, bots use DuckDuckGo too.</div>
    <div class="anomaly-modal__description">Please complete the following challenge to confirm
      this search was made by a human.</div>
    <form id="challenge-form" action="//duckduckgo.com/anomaly.js?sv=html&amp;cc=botnet&amp;ti=1"
      method="POST">
      <div class="anomaly-modal__puzzle"></div>
      <button class="btn btn--primary anomaly-modal__submit" type="submit">Submit</button>
    </form>
  </div>
</div>
</body></html>`;

const NO_RESULTS_PAGE = `<html><body><div id="links" class="results">
<div class="result results_links results_links_deep result--no-result">
  <div class="no-results">No  results.</div>
</div></div></body></html>`;

const SEARCH_VARS = [
  "TOOLHOST_SEARCH_PROVIDER",
  "TOOLHOST_SEARXNG_URL",
  "BRAVE_API_KEY",
  "TOOLHOST_DUCKDUCKGO_URL",
  "TOOLHOST_BRAVE_URL",
];

/** Runs `body` with exactly `vars` among the search settings, restoring them afterwards. */
async function withEnv<T>(vars: Record<string, string>, body: () => Promise<T>): Promise<T> {
  const saved = new Map(SEARCH_VARS.map((name) => [name, process.env[name]]));
  for (const name of SEARCH_VARS) delete process.env[name];
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

interface Seen {
  url: URL;
  headers: IncomingMessage["headers"];
}

/** A server on 127.0.0.1 that records each request and answers with `handler`. */
async function fakeProvider(handler: (seen: Seen, res: ServerResponse) => void) {
  const requests: Seen[] = [];
  const { base, close } = await serveLocally((req, res) => {
    const seen = { url: new URL(req.url ?? "/", "http://127.0.0.1"), headers: req.headers };
    requests.push(seen);
    handler(seen, res);
  });
  return { origin: base, requests, close };
}

const send = (res: ServerResponse, status: number, type: string, body: string, extra = {}) => {
  res.writeHead(status, { "content-type": type, ...extra });
  res.end(body);
};

const search = (args: Record<string, unknown>) => callInRoots(webSearch, [process.cwd()], args);

/** The tool called with `args` against a DuckDuckGo stand-in answering `status` and `page`. */
async function duckduckgo(args: Record<string, unknown>, page = DDG_PAGE, status = 200) {
  const fake = await fakeProvider((_, res) => send(res, status, "text/html; charset=utf-8", page));
  try {
    const call = await withEnv(
      { TOOLHOST_DUCKDUCKGO_URL: `${fake.origin}/html/` },
      () => search(args),
    );
    return { ...call, requests: fake.requests };
  } finally {
    await fake.close();
  }
}

// --- parsers and settings, on their own ---

test("DuckDuckGo redirect links are decoded to their targets; its own links are not results", () => {
  assert.equal(
    resultTarget("//duckduckgo.com/l/?uddg=https%3A%2F%2Fa.example%2Fp%3Fq%3D1%26r%3D2&rut=abc"),
    "https://a.example/p?q=1&r=2",
  );
  assert.equal(resultTarget("https://b.example/direct"), "https://b.example/direct");
  assert.equal(resultTarget("https://duckduckgo.com/y.js?ad_domain=x.example&u3=y"), undefined);
  assert.equal(resultTarget("/html/?q=next"), undefined);
  assert.equal(resultTarget("//duckduckgo.com/l/?rut=only"), undefined);
});

test("a DuckDuckGo page parses to its organic results in order, text flattened", async () => {
  const page = await parseDuckDuckGoPage(DDG_PAGE);
  assert.equal(page.botCheck, false);
  assert.equal(page.resultPage, true);
  assert.equal(page.results.length, 7, "the ad is skipped; duplicates are removed later");
  assert.deepEqual(page.results[0], {
    title: "Deno, the next-generation JavaScript runtime",
    url: "https://deno.com/",
    snippet: "Deno features improved security, performance, and developer experience.",
  });
  assert.deepEqual(page.results[1], {
    title: "Testing & Benchmarks | Deno Docs",
    url: "https://docs.deno.com/runtime/fundamentals/testing/?x=a b&y=ü#top",
    snippet: "Deno provides a built-in test runner for both JavaScript <and> TypeScript.",
  });
  assert.ok(!page.results.some((r) => /Stickers/.test(r.title)));
  assert.ok((await parseDuckDuckGoPage(ANOMALY_PAGE)).botCheck);
  const none = await parseDuckDuckGoPage(NO_RESULTS_PAGE);
  assert.deepEqual([none.results, none.resultPage, none.botCheck], [[], true, false]);
  assert.equal((await parseDuckDuckGoPage("<html><body>Consent</body></html>")).resultPage, false);
});

test("site must be a bare hostname; the error suggests the one inside a URL", () => {
  assert.equal(parseSite("Docs.Python.org"), "docs.python.org");
  assert.equal(parseSite("example.com."), "example.com");
  assert.equal(parseSite("bücher.de"), "xn--bcher-kva.de");
  for (const bad of ["https://github.com/denoland", "github.com/denoland", "github.com:443"]) {
    assert.throws(
      () => parseSite(bad),
      (e: Error) =>
        e instanceof ToolError && /not a bare hostname/.test(e.message) &&
        e.message.includes('"github.com"'),
    );
  }
  assert.throws(() => parseSite("user@host.com"), /not a bare hostname.*such as "host\.com"/);
  for (const bad of ["*.example.com", "exa mple.com", "-bad.com", "a..b", "my_host.example"]) {
    assert.throws(() => parseSite(bad), /not a bare hostname.*such as example\.com/);
  }
});

test("results are kept to web URLs on the site, each URL once, at most max", () => {
  const r = (url: string, title = "t") => ({ title, url, snippet: " a\n b " });
  const found = [
    r("https://a.example.org/x"),
    r("https://a.example.org/x#part"),
    r("javascript:alert(1)"),
    r("not a url"),
    r("https://EXAMPLE.org"),
    r("https://evil-example.org/"),
    r("https://c.example.org/", ""),
    r("https://d.example.org/"),
  ];
  const { results, offSite } = collectResults(found, "example.org", 3);
  assert.deepEqual(results, [
    { title: "t", url: "https://a.example.org/x", snippet: "a b" },
    { title: "t", url: "https://example.org/", snippet: "a b" },
    { title: "c.example.org", url: "https://c.example.org/", snippet: "a b" },
  ]);
  assert.equal(offSite, 1);
  assert.equal(collectResults(found, undefined, 20).results.length, 5);
});

test("the provider follows the settings, and misconfiguration names the variable to set", () => {
  assert.deepEqual(chooseProvider({}), {
    id: "duckduckgo",
    endpoint: DUCKDUCKGO_ENDPOINT,
    configured: false,
  });
  assert.deepEqual(chooseProvider({ BRAVE_API_KEY: "k" }), {
    id: "brave",
    endpoint: BRAVE_ENDPOINT,
    configured: false,
    apiKey: "k",
  });
  assert.equal(
    chooseProvider({ BRAVE_API_KEY: "k", TOOLHOST_SEARXNG_URL: "http://10.0.0.5:8080" }).id,
    "searxng",
  );
  assert.equal(
    chooseProvider({ TOOLHOST_SEARCH_PROVIDER: " DuckDuckGo ", BRAVE_API_KEY: "k" }).id,
    "duckduckgo",
  );
  assert.deepEqual(chooseProvider({ TOOLHOST_DUCKDUCKGO_URL: "http://127.0.0.1:9/html/" }), {
    id: "duckduckgo",
    endpoint: "http://127.0.0.1:9/html/",
    configured: true,
  });
  assert.throws(
    () => chooseProvider({ TOOLHOST_SEARCH_PROVIDER: "bing" }),
    /TOOLHOST_SEARCH_PROVIDER is "bing"; set it to one of duckduckgo, searxng, brave/,
  );
  assert.throws(
    () => chooseProvider({ TOOLHOST_SEARCH_PROVIDER: "searxng" }),
    /TOOLHOST_SEARXNG_URL is not set/,
  );
  assert.throws(() => chooseProvider({ TOOLHOST_SEARCH_PROVIDER: "brave" }), /set BRAVE_API_KEY/);
  assert.throws(
    () => chooseProvider({ TOOLHOST_SEARXNG_URL: "searx.local" }),
    /TOOLHOST_SEARXNG_URL is "searx.local", which is not an http or https URL/,
  );
});

test("SearXNG, Brave: URLs built, answers read, markup and entities removed", () => {
  assert.equal(
    searxngSearchUrl("https://searx.example/", "a b site:x.org"),
    "https://searx.example/search?q=a+b+site%3Ax.org&format=json",
  );
  assert.equal(
    searxngSearchUrl("https://host.example/searxng?language=de", "q"),
    "https://host.example/searxng/search?language=de&q=q&format=json",
  );
  assert.equal(
    searxngSearchUrl("http://h:8888/search", "q"),
    "http://h:8888/search?q=q&format=json",
  );
  assert.deepEqual(
    parseSearxng({
      results: [{ url: "https://a.example/", title: "A", content: "about a", engine: "bing" }, 7],
      unresponsive_engines: [["google", "timeout"], ["qwant", "CAPTCHA"]],
    }),
    {
      results: [{ title: "A", url: "https://a.example/", snippet: "about a" }],
      note: "engines of the instance that did not answer: google (timeout), qwant (CAPTCHA)",
    },
  );
  assert.throws(() => parseSearxng({ error: "x" }), /without a results list/);
  assert.equal(
    plainText("<strong>Deno</strong> &amp; Node &#39;x&#x27; &#128512; &bogus;"),
    "Deno & Node 'x' 😀 &bogus;",
  );
  assert.deepEqual(parseBrave({ type: "search" }), []);
  assert.deepEqual(
    parseBrave({
      web: {
        results: [{
          title: "T &amp; U",
          url: "https://t.example/",
          description: "<strong>d</strong>",
        }],
      },
    }),
    [{ title: "T & U", url: "https://t.example/", snippet: "d" }],
  );
  assert.equal(
    waitSeconds({ "x-ratelimit-reset": "1, 1419704", "x-ratelimit-remaining": "0, 100" }),
    1,
  );
  assert.equal(
    waitSeconds({ "x-ratelimit-reset": "1, 86400", "x-ratelimit-remaining": "5, 0" }),
    86400,
  );
  assert.equal(waitSeconds({ "x-ratelimit-reset": "3" }), 3);
  assert.equal(waitSeconds({}), undefined);
});

// --- the tool against fake providers ---

test("DuckDuckGo: titles, decoded URLs and snippets; ad skipped, duplicate removed", async () => {
  const { result, text, data, requests } = await duckduckgo({ query: "  deno\n testing " });
  assert.equal(result.isError, undefined, text);
  assert.equal(requests.length, 1);
  assert.equal(requests[0].url.pathname, "/html/");
  assert.equal(requests[0].url.searchParams.get("q"), "deno testing");
  assert.match(String(requests[0].headers["user-agent"]), /^Mozilla\/5\.0 \(Windows NT.*Chrome\//);
  assert.equal(requests[0].headers["accept-language"], "en");
  assert.equal(data.provider, "duckduckgo");
  assert.equal(data.query, "deno testing");
  const results = data.results as { title: string; url: string; snippet: string }[];
  assert.deepEqual(results.map((r) => r.url), [
    "https://deno.com/",
    "https://docs.deno.com/runtime/fundamentals/testing/?x=a%20b&y=%C3%BC#top",
    "https://github.com/denoland/deno",
    "https://blog.example.org/deno-tests",
    "https://example.org/about",
    "https://notexample.org/deno",
  ]);
  assert.equal(results[1].title, "Testing & Benchmarks | Deno Docs");
  assert.ok(text.startsWith('DuckDuckGo results for "deno testing":\n\n1. Deno, the next-'));
  assert.ok(
    text.includes(
      "\n\n3. GitHub - denoland/deno: A modern runtime for JavaScript and TypeScript.\n" +
        "   https://github.com/denoland/deno\n\n4. ",
    ),
    "a result without a snippet has no snippet line",
  );
  assert.ok(
    text.includes(
      "2. Testing & Benchmarks | Deno Docs\n" +
        "   https://docs.deno.com/runtime/fundamentals/testing/?x=a%20b&y=%C3%BC#top\n" +
        "   Deno provides a built-in test runner for both JavaScript <and> TypeScript.",
    ),
  );
});

test("DuckDuckGo: max_results caps the list", async () => {
  const { data, text } = await duckduckgo({ query: "deno", max_results: 2 });
  assert.equal((data.results as unknown[]).length, 2);
  assert.ok(!text.includes("\n3. "));
});

test("DuckDuckGo: site adds site: to the query and keeps only that domain and its subdomains", async () => {
  const { result, text, data, requests } = await duckduckgo({ query: "deno", site: "Example.org" });
  assert.equal(result.isError, undefined, text);
  assert.equal(requests[0].url.searchParams.get("q"), "deno site:example.org");
  assert.deepEqual((data.results as { url: string }[]).map((r) => r.url), [
    "https://blog.example.org/deno-tests",
    "https://example.org/about",
  ]);
  assert.ok(text.startsWith('DuckDuckGo results for "deno" on example.org:'));
  assert.ok(text.endsWith("[4 results from other sites left out]"), text);
});

test("DuckDuckGo: no results is an answer, not an error", async () => {
  const { result, text, data } = await duckduckgo(
    { query: "xyzzy", site: "example.org" },
    NO_RESULTS_PAGE,
  );
  assert.equal(result.isError, undefined, text);
  assert.deepEqual(data.results, []);
  assert.equal(
    text,
    'DuckDuckGo found no results for "xyzzy" on example.org.\n\n' +
      "[try other or fewer words, or search without site]",
  );
});

test("DuckDuckGo: HTTP 202 and the anomaly page are reported as rate limiting", async () => {
  for (const [status, page] of [[202, ANOMALY_PAGE], [202, ""], [200, ANOMALY_PAGE]] as const) {
    const { result, text } = await duckduckgo({ query: "deno" }, page, status);
    assert.equal(result.isError, true, text);
    assert.match(text, /DuckDuckGo is rate limiting searches from this machine/);
    assert.match(text, /Wait a few minutes.*TOOLHOST_SEARXNG_URL.*BRAVE_API_KEY/);
  }
});

test("DuckDuckGo: other failures say what came back", async () => {
  const broken = await duckduckgo({ query: "deno" }, "oops", 500);
  assert.equal(broken.result.isError, true);
  assert.match(broken.text, /DuckDuckGo answered HTTP 500/);
  const strange = await duckduckgo({ query: "deno" }, "<html><body>Consent</body></html>");
  assert.equal(strange.result.isError, true);
  assert.match(strange.text, /not a result page that toolhost can read/);
  const { result, text } = await withEnv(
    { TOOLHOST_DUCKDUCKGO_URL: "http://127.0.0.1:1/html/" },
    () => search({ query: "deno" }),
  );
  assert.equal(result.isError, true);
  assert.match(text, /^DuckDuckGo could not be reached: .*refused the connection/);
});

test("a site that is not a bare hostname is refused before any request", async () => {
  const { result, text, requests } = await duckduckgo({
    query: "deno",
    site: "https://docs.deno.com/runtime",
  });
  assert.equal(result.isError, true);
  assert.match(
    text,
    /site "https:\/\/docs\.deno\.com\/runtime" is not a bare hostname.*"docs\.deno\.com"/,
  );
  assert.equal(requests.length, 0);
});

test("SearXNG: the JSON API gets q with site: and format=json; results are filtered", async () => {
  const fake = await fakeProvider((_, res) =>
    send(
      res,
      200,
      "application/json",
      JSON.stringify({
        query: "deno site:deno.com",
        number_of_results: 0,
        results: [
          { url: "https://docs.deno.com/a", title: "A", content: "first", engine: "brave" },
          { url: "https://docs.deno.com/a", title: "A again", content: "dup", engine: "bing" },
          { url: "https://other.example/", title: "Off", content: "off site", engine: "bing" },
          { url: "https://deno.com/", title: "Home", content: "", engine: "google" },
        ],
        answers: [],
        suggestions: [],
        unresponsive_engines: [["google", "timeout"]],
      }),
    )
  );
  try {
    const { result, text, data } = await withEnv(
      { TOOLHOST_SEARXNG_URL: `${fake.origin}/searxng/` },
      () => search({ query: "deno", site: "deno.com" }),
    );
    assert.equal(result.isError, undefined, text);
    const seen = fake.requests[0].url;
    assert.equal(seen.pathname, "/searxng/search");
    assert.equal(seen.searchParams.get("q"), "deno site:deno.com");
    assert.equal(seen.searchParams.get("format"), "json");
    assert.deepEqual(data, {
      provider: "searxng",
      query: "deno",
      results: [
        { title: "A", url: "https://docs.deno.com/a", snippet: "first" },
        { title: "Home", url: "https://deno.com/", snippet: "" },
      ],
    });
    assert.ok(text.startsWith('SearXNG results for "deno" on deno.com:\n\n1. A\n'));
    assert.ok(
      text.endsWith(
        "[1 result from other sites left out]\n" +
          "[engines of the instance that did not answer: google (timeout)]",
      ),
      text,
    );
  } finally {
    await fake.close();
  }
});

test("SearXNG: json disabled (403), rate limited (429) and a non-JSON answer are clear errors", async () => {
  const cases: [number, string, string, RegExp][] = [
    [
      403,
      "text/html",
      "<h1>Forbidden</h1>",
      /refused its JSON API \(HTTP 403\)\. The instance must enable the json format/,
    ],
    [429, "text/html", "Too Many Requests", /is rate limiting searches \(HTTP 429\)/],
    [
      200,
      "text/html",
      "<html>login</html>",
      /did not answer with JSON \(HTTP 200, starting "<html>login<\/html>"\)/,
    ],
  ];
  for (const [status, type, body, expected] of cases) {
    const fake = await fakeProvider((_, res) => send(res, status, type, body));
    try {
      const { result, text } = await withEnv(
        { TOOLHOST_SEARXNG_URL: fake.origin.replace("//", "//me:secret@") + "/?token=t0ken" },
        () => search({ query: "deno" }),
      );
      assert.equal(result.isError, true, text);
      assert.match(text, expected);
      assert.ok(text.includes(fake.origin), text);
      assert.ok(!/secret|t0ken/.test(text), `settings' credentials stay out of messages: ${text}`);
      assert.equal(fake.requests[0].url.searchParams.get("token"), "t0ken");
      assert.equal(fake.requests[0].headers.authorization, `Basic ${btoa("me:secret")}`);
    } finally {
      await fake.close();
    }
  }
  const { text } = await withEnv(
    { TOOLHOST_SEARXNG_URL: "http://me:secret@127.0.0.1:1/" },
    () => search({ query: "deno" }),
  );
  assert.match(text, /^SearXNG could not be reached: /);
  assert.ok(!text.includes("secret"), text);
});

test("Brave: the key goes in X-Subscription-Token; results come back plain", async () => {
  const fake = await fakeProvider((seen, res) =>
    seen.headers["x-subscription-token"] === "secret-key"
      ? send(
        res,
        200,
        "application/json",
        JSON.stringify({
          type: "search",
          query: { original: "deno site:deno.com" },
          web: {
            type: "search",
            results: [
              {
                title: "Deno &amp; friends",
                url: "https://deno.com/blog",
                description: "The <strong>Deno</strong> blog.",
                age: "2 days ago",
              },
              { title: "Off", url: "https://example.com/", description: "x" },
            ],
          },
        }),
      )
      : send(res, 401, "application/json", "{}")
  );
  try {
    const { result, text, data } = await withEnv(
      { BRAVE_API_KEY: "secret-key", TOOLHOST_BRAVE_URL: `${fake.origin}/res/v1/web/search` },
      () => search({ query: "deno", site: "deno.com" }),
    );
    assert.equal(result.isError, undefined, text);
    const seen = fake.requests[0];
    assert.equal(seen.url.pathname, "/res/v1/web/search");
    assert.equal(seen.url.searchParams.get("q"), "deno site:deno.com");
    assert.equal(seen.headers.accept, "application/json");
    assert.deepEqual(data, {
      provider: "brave",
      query: "deno",
      results: [{
        title: "Deno & friends",
        url: "https://deno.com/blog",
        snippet: "The Deno blog.",
      }],
    });
    assert.ok(
      text.startsWith('Brave Search results for "deno" on deno.com:\n\n1. Deno & friends\n'),
    );

    const refused = await withEnv(
      { BRAVE_API_KEY: "wrong", TOOLHOST_BRAVE_URL: fake.origin },
      () => search({ query: "deno" }),
    );
    assert.equal(refused.result.isError, true);
    assert.match(refused.text, /refused the API key \(HTTP 401\)\. Check BRAVE_API_KEY/);
  } finally {
    await fake.close();
  }
});

test("Brave: 429 is a rate-limit error with the wait; a missing key names BRAVE_API_KEY", async () => {
  const fake = await fakeProvider((_, res) =>
    send(
      res,
      429,
      "application/json",
      JSON.stringify({
        type: "ErrorResponse",
        error: {
          status: 429,
          code: "RATE_LIMITED",
          detail: "Request rate limit exceeded for plan.",
        },
      }),
      {
        "x-ratelimit-limit": "1, 2000",
        "x-ratelimit-remaining": "0, 1990",
        "x-ratelimit-reset": "1, 1419704",
      },
    )
  );
  try {
    const { result, text } = await withEnv(
      { BRAVE_API_KEY: "k", TOOLHOST_BRAVE_URL: fake.origin },
      () => search({ query: "deno" }),
    );
    assert.equal(result.isError, true);
    assert.equal(
      text,
      "Brave Search is rate limiting this API key (HTTP 429): Request rate limit exceeded for " +
        "plan.. Search again in 1 s; if it persists, the plan's monthly quota may be used up.",
    );
  } finally {
    await fake.close();
  }
  const missing = await withEnv(
    { TOOLHOST_SEARCH_PROVIDER: "brave" },
    () => search({ query: "deno" }),
  );
  assert.equal(missing.result.isError, true);
  assert.match(missing.text, /Brave Search needs an API key: set BRAVE_API_KEY/);
});

test("cancelling a search that the provider never answers ends the call at once", async () => {
  const fake = await fakeProvider(() => {});
  try {
    await withEnv({ TOOLHOST_DUCKDUCKGO_URL: fake.origin }, async () => {
      const h = harness([webSearch]);
      h.line({
        jsonrpc: "2.0",
        id: "s",
        method: "tools/call",
        params: modern({ name: "web_search", arguments: { query: "deno" } }),
      });
      for (let i = 0; i < 100 && fake.requests.length === 0; i++) await tick(10);
      assert.equal(fake.requests.length, 1, "the request reached the provider");
      assert.equal(h.server.inFlight, 1);
      const cancelled = Date.now();
      h.line({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: "s" } });
      while (h.server.inFlight > 0 && Date.now() - cancelled < 2000) await tick(5);
      const took = Date.now() - cancelled;
      assert.equal(h.server.inFlight, 0);
      assert.ok(took < 500, `the call ended ${took} ms after the cancel`);
      assert.ok(!h.sent.some((m) => !Array.isArray(m) && m.id === "s"));
    });
  } finally {
    await fake.close();
  }
});
