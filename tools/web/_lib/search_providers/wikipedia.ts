/**
 * Wikipedia through the MediaWiki search API (`/w/api.php?action=query&list=search`): a stable,
 * documented endpoint that needs no key. Its answers are Wikipedia's own articles only, so it is
 * chosen by name or asked beside the others ("all").
 */
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

export function wikipediaSearchUrl(endpoint: string, query: string): string {
  const url = new URL(endpoint);
  for (
    const [name, value] of Object.entries({
      action: "query",
      list: "search",
      srsearch: query,
      srlimit: "20",
      format: "json",
      formatversion: "2",
      utf8: "1",
    })
  ) url.searchParams.set(name, value);
  return url.href;
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** Snippets come as HTML with the matches in spans: text only. */
function plain(html: string): string {
  return html.replace(/<[^>]*>/g, "").replace(/&quot;/g, '"').replace(/&#0?39;/g, "'")
    .replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&amp;/g, "&");
}

/** An article's address on the wiki the endpoint belongs to. */
export function articleUrl(endpoint: string, title: string): string {
  const url = new URL(endpoint);
  return `${url.origin}/wiki/${encodeURIComponent(title.replace(/ /g, "_"))}`;
}

export function parseWikipedia(endpoint: string, data: unknown): SearchFindings {
  const hits = isObject(data) && isObject(data.query) ? data.query.search : undefined;
  if (!Array.isArray(hits)) {
    throw new ToolError(
      `Wikipedia at ${shownUrl(endpoint)} answered without a search list; check the address.`,
    );
  }
  const results: SearchResult[] = hits.filter(isObject).map((hit) => ({
    title: String(hit.title ?? ""),
    url: articleUrl(endpoint, String(hit.title ?? "")),
    snippet: plain(String(hit.snippet ?? "")),
  }));
  return { results };
}

export async function searchWikipedia(
  choice: ProviderChoice,
  query: string,
  net: SearchNet,
): Promise<SearchFindings> {
  const response = await providerGet(choice, wikipediaSearchUrl(choice.endpoint, query), net, {
    "accept": "application/json",
  });
  if (response.status === 429) {
    throw new ToolError("Wikipedia is rate limiting searches (HTTP 429); wait a minute.");
  }
  if (response.status !== 200) {
    throw new ToolError(`Wikipedia answered HTTP ${response.status}; try again later.`);
  }
  return parseWikipedia(choice.endpoint, jsonBody(choice, response));
}
