/** SearXNG through an instance's JSON API (`/search?q=…&format=json`), at the user's address. */
import { ToolError } from "../../../../mcp/tool/mod.ts";
import {
  jsonBody,
  type ProviderChoice,
  providerGet,
  type SearchFindings,
  type SearchNet,
  type SearchResult,
  shownUrl,
} from "./provider.ts";

/**
 * The search URL for an instance address: `/search` is added to its path unless it ends so
 * already; query parameters the address carries (language, categories) are kept.
 */
export function searxngSearchUrl(endpoint: string, query: string): string {
  const url = new URL(endpoint);
  if (!/\/search\/?$/.test(url.pathname)) url.pathname = url.pathname.replace(/\/?$/, "/search");
  url.searchParams.set("q", query);
  url.searchParams.set("format", "json");
  return url.href;
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);
const str = (value: unknown) => typeof value === "string" ? value : "";

/** Reads an instance's JSON answer; engines that failed are named in the note. */
export function parseSearxng(data: unknown): SearchFindings {
  if (!isObject(data) || !Array.isArray(data.results)) {
    throw new ToolError(
      "SearXNG answered JSON without a results list; check that TOOLHOST_SEARXNG_URL is the " +
        "address of a SearXNG instance.",
    );
  }
  const results: SearchResult[] = data.results.filter(isObject).map((result) => ({
    title: str(result.title),
    url: str(result.url),
    snippet: str(result.content),
  }));
  const failed = Array.isArray(data.unresponsive_engines)
    ? data.unresponsive_engines.map((engine) =>
      Array.isArray(engine)
        ? `${str(engine[0])}${engine[1] ? ` (${str(engine[1])})` : ""}`
        : str(engine)
    ).filter(Boolean)
    : [];
  return failed.length
    ? { results, note: `engines of the instance that did not answer: ${failed.join(", ")}` }
    : { results };
}

export async function searchSearxng(
  choice: ProviderChoice,
  query: string,
  net: SearchNet,
): Promise<SearchFindings> {
  const response = await providerGet(choice, searxngSearchUrl(choice.endpoint, query), net, {
    "accept": "application/json",
    "accept-language": "en",
  });
  const where = `The SearXNG instance at ${shownUrl(choice.endpoint)}`;
  if (response.status === 403) {
    throw new ToolError(
      `${where} refused its JSON API (HTTP 403). The instance must enable the json format: add ` +
        "json to search.formats in its settings.yml, or set TOOLHOST_SEARXNG_URL to an " +
        "instance that allows it.",
    );
  }
  if (response.status === 429) {
    throw new ToolError(
      `${where} is rate limiting searches (HTTP 429). Wait a minute before searching again; ` +
        "an instance you run yourself (with its limiter off) has no such limit.",
    );
  }
  if (response.status !== 200) {
    throw new ToolError(
      `${where} answered HTTP ${response.status}; check TOOLHOST_SEARXNG_URL and the instance.`,
    );
  }
  return parseSearxng(jsonBody(choice, response));
}
