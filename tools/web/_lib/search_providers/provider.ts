/**
 * What every web search provider shares: the result shape, which provider a call uses (from
 * environment variables, read at call time), the `site` filter, and the one way they fetch.
 */
import process from "node:process";
import { ToolError } from "../../../../mcp/tool/mod.ts";
import { HttpError, httpGet, type HttpResponse } from "../http/http_get.ts";
import type { ProxyRules } from "../../../_lib/net/user_proxy.ts";
import { oneLine } from "../../../_lib/text/one_line.ts";
import { quoted } from "../../../../config/quote.ts";
import type { Settings } from "../../../../config/settings.ts";

export interface SearchResult {
  title: string;
  url: string;
  snippet: string;
}

/** What a provider found: results in its order, and anything the reader should know. */
export interface SearchFindings {
  results: SearchResult[];
  note?: string;
}

export const PROVIDERS = ["duckduckgo", "searxng", "brave", "wikipedia"] as const;
export type ProviderId = typeof PROVIDERS[number];

export const PROVIDER_LABELS: Record<ProviderId, string> = {
  duckduckgo: "DuckDuckGo",
  searxng: "SearXNG",
  brave: "Brave Search",
  wikipedia: "Wikipedia",
};

/**
 * The provider a call uses, with what it needs. `configured` marks an endpoint the user chose,
 * which may be on their own network; the public endpoints keep the private-network guard.
 */
export type ProviderChoice =
  | { id: "duckduckgo"; endpoint: string; configured: boolean }
  | { id: "searxng"; endpoint: string; configured: true }
  | { id: "brave"; endpoint: string; configured: boolean; apiKey: string }
  | { id: "wikipedia"; endpoint: string; configured: boolean };

export const DUCKDUCKGO_ENDPOINT = "https://html.duckduckgo.com/html/";
export const BRAVE_ENDPOINT = "https://api.search.brave.com/res/v1/web/search";
export const WIKIPEDIA_ENDPOINT = "https://en.wikipedia.org/w/api.php";

const PROVIDER_VAR = "TOOLHOST_SEARCH_PROVIDER";
const SEARXNG_VAR = "TOOLHOST_SEARXNG_URL";
const BRAVE_KEY_VAR = "BRAVE_API_KEY";
const DUCKDUCKGO_VAR = "TOOLHOST_DUCKDUCKGO_URL";
const BRAVE_URL_VAR = "TOOLHOST_BRAVE_URL";
const WIKIPEDIA_VAR = "TOOLHOST_WIKIPEDIA_URL";

/** How to switch away from a provider that fails, for the end of an error message. */
export const OTHER_PROVIDERS_HINT = `set ${SEARXNG_VAR} to a SearXNG instance's address or ` +
  `${BRAVE_KEY_VAR} to a Brave Search API key to search with another provider`;

type Env = Record<string, string | undefined>;

/** An environment variable's value, blank counted as unset. */
function setting(env: Env, name: string): string | undefined {
  const value = env[name]?.trim();
  return value ? value : undefined;
}

/** An endpoint from the environment, checked to be an http(s) URL. */
function endpointFrom(env: Env, name: string, example: string): string | undefined {
  const value = setting(env, name);
  if (value === undefined) return undefined;
  let url: URL | undefined;
  try {
    url = new URL(value);
  } catch {
    url = undefined;
  }
  if (!url || (url.protocol !== "http:" && url.protocol !== "https:")) {
    throw new ToolError(
      `${name} is ${quoted(value)}, which is not an http or https URL; set it to one such as ` +
        `${example}, or unset it.`,
    );
  }
  return url.href;
}

/**
 * The provider named by TOOLHOST_SEARCH_PROVIDER; without it SearXNG when TOOLHOST_SEARXNG_URL
 * is set, else Brave when BRAVE_API_KEY is, else DuckDuckGo, which needs no setup.
 */
/**
 * The environment as the provider choice reads it, with what the configuration says on top (the
 * configuration already weighed the environment against the files).
 */
export function searchEnv(search: Settings["search"]): Env {
  const { provider, searxngUrl, braveApiKey, duckduckgoUrl, braveUrl, wikipediaUrl } = search;
  const configured: Record<string, string | undefined> = {
    [PROVIDER_VAR]: provider,
    [SEARXNG_VAR]: searxngUrl,
    [BRAVE_KEY_VAR]: braveApiKey,
    [DUCKDUCKGO_VAR]: duckduckgoUrl,
    [BRAVE_URL_VAR]: braveUrl,
    [WIKIPEDIA_VAR]: wikipediaUrl,
  };
  const env: Env = { ...process.env };
  for (const [name, value] of Object.entries(configured)) if (value) env[name] = value;
  return env;
}

export function chooseProvider(env: Env): ProviderChoice {
  const named = setting(env, PROVIDER_VAR)?.toLowerCase();
  if (named !== undefined && !(PROVIDERS as readonly string[]).includes(named)) {
    throw new ToolError(
      `${PROVIDER_VAR} is ${quoted(env[PROVIDER_VAR] ?? "")}; set it to one of ` +
        `${PROVIDERS.join(", ")} or all, or unset it to choose by which settings are present.`,
    );
  }
  const searxng = endpointFrom(env, SEARXNG_VAR, "https://searx.example.org");
  const apiKey = setting(env, BRAVE_KEY_VAR);
  const id = (named as ProviderId | undefined) ??
    (searxng ? "searxng" : apiKey ? "brave" : "duckduckgo");
  switch (id) {
    case "searxng":
      if (!searxng) {
        throw new ToolError(
          `${PROVIDER_VAR} is searxng but ${SEARXNG_VAR} is not set; set it to your SearXNG ` +
            "instance's address, such as https://searx.example.org.",
        );
      }
      return { id, endpoint: searxng, configured: true };
    case "brave": {
      if (!apiKey) {
        throw new ToolError(
          `Brave Search needs an API key: set ${BRAVE_KEY_VAR} (get one at ` +
            `https://brave.com/search/api/), or unset ${PROVIDER_VAR} to use DuckDuckGo.`,
        );
      }
      const custom = endpointFrom(env, BRAVE_URL_VAR, BRAVE_ENDPOINT);
      return { id, endpoint: custom ?? BRAVE_ENDPOINT, configured: custom !== undefined, apiKey };
    }
    case "duckduckgo": {
      const custom = endpointFrom(env, DUCKDUCKGO_VAR, DUCKDUCKGO_ENDPOINT);
      return { id, endpoint: custom ?? DUCKDUCKGO_ENDPOINT, configured: custom !== undefined };
    }
    case "wikipedia": {
      const custom = endpointFrom(env, WIKIPEDIA_VAR, WIKIPEDIA_ENDPOINT);
      return { id, endpoint: custom ?? WIKIPEDIA_ENDPOINT, configured: custom !== undefined };
    }
  }
}

/** Whether the provider setting asks every configured provider at once. */
export function asksAll(env: Env): boolean {
  return setting(env, PROVIDER_VAR)?.toLowerCase() === "all";
}

/**
 * The providers "all" asks: those that need no key (DuckDuckGo, Wikipedia), SearXNG when its
 * address is set and Brave when its key is.
 */
export function chooseAllProviders(env: Env): ProviderChoice[] {
  const ids: ProviderId[] = ["duckduckgo", "wikipedia"];
  if (setting(env, SEARXNG_VAR)) ids.push("searxng");
  if (setting(env, BRAVE_KEY_VAR)) ids.push("brave");
  return ids.map((id) => chooseProvider({ ...env, [PROVIDER_VAR]: id }));
}

/** How much a result at 0-based `rank` adds to its URL's score (reciprocal rank fusion). */
const FUSION_K = 60;

/**
 * Results of several providers as one list: the same URL (fragment, case of the host and a
 * trailing slash aside) is one result, ranked by the sum of 1/(60 + rank) over the providers
 * that found it, its title and snippet from the first provider that had them.
 */
export function mergeResults(lists: SearchResult[][]): SearchResult[] {
  const merged = new Map<string, { result: SearchResult; score: number; first: number }>();
  let order = 0;
  for (const list of lists) {
    list.forEach((result, rank) => {
      let key: string;
      try {
        const url = new URL(result.url);
        key = `${url.host}${url.pathname.replace(/\/$/, "")}${url.search}`;
      } catch {
        return;
      }
      const score = 1 / (FUSION_K + rank + 1);
      const seen = merged.get(key);
      if (seen) {
        seen.score += score;
        if (!seen.result.snippet && result.snippet) {
          seen.result = { ...seen.result, snippet: result.snippet };
        }
      } else merged.set(key, { result, score, first: order++ });
    });
  }
  return [...merged.values()].sort((a, b) => b.score - a.score || a.first - b.first)
    .map((entry) => entry.result);
}

const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;

/**
 * `site` as the lower-case ASCII hostname the filter compares with, or a ToolError that says
 * what to give instead (the hostname inside a URL, when it was one).
 */
export function parseSite(site: string): string {
  const given = site.trim();
  let host: string | undefined;
  try {
    host = new URL(`http://${given.replace(/\.$/, "")}`).hostname;
  } catch {
    host = undefined;
  }
  const bare = host !== undefined && !/[/:?#@\\\s]/.test(given) && host.length <= 253 &&
    host.split(".").every((label) => LABEL.test(label));
  if (bare) return host!;
  let inside: string | undefined;
  try {
    inside = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(given) ? given : `http://${given}`).hostname;
  } catch {
    inside = undefined;
  }
  const suggestion = inside && inside.split(".").every((label) => LABEL.test(label))
    ? `, such as ${quoted(inside)}`
    : ", such as example.com or docs.python.org";
  throw new ToolError(
    `site ${quoted(site)} is not a bare hostname; give only the domain, without scheme, path, ` +
      `port or wildcard${suggestion}.`,
  );
}

/** The query as sent to an engine: with `site:` when there is a site filter. */
export function withSite(query: string, site: string | undefined): string {
  return site ? `${query} site:${site}` : query;
}

/** Whether `url`'s host is `site` or one of its subdomains. */
export function onSite(url: string, site: string): boolean {
  const host = new URL(url).hostname.replace(/\.$/, "");
  return host === site || host.endsWith(`.${site}`);
}

// With 20 results these keep the text under about 30,000 characters.
const TITLE_CHARS = 200;
const SNIPPET_CHARS = 400;
const URL_CHARS = 800;

export interface Collected {
  results: SearchResult[];
  /** Results an engine returned from outside `site`, left out. */
  offSite: number;
}

/**
 * The results a reader gets: web URLs only, on `site` when there is one, each URL once (its
 * fragment ignored), text on one bounded line, at most `max`.
 */
export function collectResults(
  found: SearchResult[],
  site: string | undefined,
  max: number,
): Collected {
  const results: SearchResult[] = [];
  const seen = new Set<string>();
  let offSite = 0;
  for (const result of found) {
    if (results.length >= max) break;
    let url: URL;
    try {
      url = new URL(result.url);
    } catch {
      continue;
    }
    if ((url.protocol !== "http:" && url.protocol !== "https:") || url.href.length > URL_CHARS) {
      continue;
    }
    const key = url.href.replace(/#.*$/, "");
    if (seen.has(key)) continue;
    seen.add(key);
    if (site && !onSite(url.href, site)) {
      offSite++;
      continue;
    }
    results.push({
      title: oneLine(result.title, TITLE_CHARS) || url.hostname,
      url: url.href,
      snippet: oneLine(result.snippet, SNIPPET_CHARS),
    });
  }
  return { results, offSite };
}

/**
 * A provider address for a message: without user info or query, which may hold credentials
 * from the user's settings.
 */
export function shownUrl(href: string): string {
  const url = new URL(href);
  return `${url.origin}${url.pathname}`;
}

/** What a search's requests go out with: the call's signal and the private-network setting. */
export interface SearchNet {
  signal: AbortSignal;
  allowPrivateNetwork: boolean;
  /** The user's proxies, which search requests go through like fetch_url's. */
  proxy?: ProxyRules;
}

export const TIMEOUT_MS = 15_000;
export const MAX_BYTES = 2 * 1024 * 1024;

/**
 * GET for a provider, bounded in time and size. Network failures become a ToolError naming the
 * provider; cancellation passes through as it is.
 */
export async function providerGet(
  choice: ProviderChoice,
  url: string,
  net: SearchNet,
  headers: Record<string, string>,
): Promise<HttpResponse> {
  const { signal, allowPrivateNetwork, proxy } = net;
  try {
    return await httpGet(url, {
      signal,
      allowPrivateNetwork,
      proxy,
      timeoutMs: TIMEOUT_MS,
      maxBytes: MAX_BYTES,
      headers,
      ...(choice.configured ? { allowPrivate: true } : {}),
    });
  } catch (error) {
    if (signal.aborted) throw new ToolError("The search was cancelled.");
    if (error instanceof HttpError) {
      // Credentials and query strings (tokens live there too) stay out of what the model sees.
      const message = error.message.replace(/\/\/[^/@\s]*@/g, "//")
        .replace(/(https?:\/\/[^\s?#]*)\?[^\s#]*/g, "$1?…");
      throw new ToolError(`${PROVIDER_LABELS[choice.id]} could not be reached: ${message}`);
    }
    throw error;
  }
}

/** A JSON answer's body, or a ToolError saying the provider did not give JSON. */
export function jsonBody(choice: ProviderChoice, response: HttpResponse): unknown {
  const label = PROVIDER_LABELS[choice.id];
  if (response.truncated) {
    throw new ToolError(`${label} sent an answer larger than 2 MB; try a narrower query.`);
  }
  const text = new TextDecoder().decode(response.body);
  try {
    return JSON.parse(text);
  } catch {
    throw new ToolError(
      `${label} at ${
        shownUrl(response.url)
      } did not answer with JSON (HTTP ${response.status}, starting ` +
        `${quoted(oneLine(text, 80))}); check that the address points at its API.`,
    );
  }
}
