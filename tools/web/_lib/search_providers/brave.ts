/** The Brave Search API (web search), with the key from BRAVE_API_KEY. */
import { ToolError } from "../../../../mcp/tool/mod.ts";
import type { HttpResponse } from "../http/http_get.ts";
import { duration } from "../../../_lib/text/units.ts";
import {
  jsonBody,
  type ProviderChoice,
  providerGet,
  type SearchFindings,
  type SearchNet,
  type SearchResult,
} from "./provider.ts";

/** The API's largest page; results are filtered by site and de-duplicated afterwards. */
const COUNT = 20;

export function braveSearchUrl(endpoint: string, query: string): string {
  const url = new URL(endpoint);
  url.searchParams.set("q", query);
  url.searchParams.set("count", String(COUNT));
  url.searchParams.set("result_filter", "web");
  url.searchParams.set("text_decorations", "false");
  return url.href;
}

const ENTITIES: Record<string, string> = {
  amp: "&",
  lt: "<",
  gt: ">",
  quot: '"',
  apos: "'",
  nbsp: " ",
};

/** Text that may still carry markup (highlighting, entities) as plain text. */
export function plainText(html: string): string {
  return html.replace(/<[^>]*>/g, "").replace(
    /&(#x[0-9a-f]{1,6}|#[0-9]{1,7}|[a-z]+);/gi,
    (entity, name: string) => {
      if (name[0] !== "#") return ENTITIES[name.toLowerCase()] ?? entity;
      const code = name[1] === "x" || name[1] === "X"
        ? parseInt(name.slice(2), 16)
        : parseInt(name.slice(1), 10);
      return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : entity;
    },
  );
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);
const str = (value: unknown) => typeof value === "string" ? value : "";

/** The web results of an API answer (none when it has no `web` section). */
export function parseBrave(data: unknown): SearchResult[] {
  if (!isObject(data)) {
    throw new ToolError("Brave Search answered JSON that is not an object; try again later.");
  }
  // A search answer says type "search" even with no web results; anything else is another API.
  if (data.type !== "search" && !isObject(data.web)) {
    throw new ToolError(
      "The Brave endpoint did not answer like the web search API (no search results section); " +
        "check TOOLHOST_BRAVE_URL, or unset it to use Brave's own.",
    );
  }
  const web = isObject(data.web) && Array.isArray(data.web.results) ? data.web.results : [];
  return web.filter(isObject).map((result) => ({
    title: plainText(str(result.title)),
    url: str(result.url),
    snippet: plainText(str(result.description)),
  }));
}

/** The detail of an API error answer, when it has one. */
function errorDetail(response: HttpResponse): string {
  try {
    const data = JSON.parse(new TextDecoder().decode(response.body));
    const detail = isObject(data) && isObject(data.error) ? str(data.error.detail) : "";
    return detail ? `: ${detail.replace(/\s+/g, " ").slice(0, 300)}` : "";
  } catch {
    return "";
  }
}

/**
 * Seconds until the exhausted rate-limit window resets. The headers list one value per window
 * (per second, per month): the window with nothing remaining decides, else the first.
 */
export function waitSeconds(headers: Record<string, string>): number | undefined {
  const numbers = (name: string) =>
    headers[name] ? headers[name].split(",").map((value) => Number(value.trim())) : [];
  const resets = numbers("x-ratelimit-reset");
  const remaining = numbers("x-ratelimit-remaining");
  const exhausted = resets.filter((_, i) => remaining[i] === 0);
  const seconds = exhausted.length ? Math.max(...exhausted) : resets[0];
  return seconds !== undefined && Number.isFinite(seconds) && seconds > 0 ? seconds : undefined;
}

export async function searchBrave(
  choice: ProviderChoice & { id: "brave" },
  query: string,
  net: SearchNet,
): Promise<SearchFindings> {
  const response = await providerGet(choice, braveSearchUrl(choice.endpoint, query), net, {
    "accept": "application/json",
    "accept-language": "en",
    "x-subscription-token": choice.apiKey,
  });
  const status = response.status;
  if (status === 429) {
    const reset = waitSeconds(response.headers);
    const wait = reset === undefined ? "after a short wait" : `in ${duration(reset * 1000)}`;
    throw new ToolError(
      `Brave Search is rate limiting this API key (HTTP 429)${errorDetail(response)}. Search ` +
        `again ${wait}; if it persists, the plan's monthly quota may be used up.`,
    );
  }
  if (status === 401 || status === 403) {
    throw new ToolError(
      `Brave Search refused the API key (HTTP ${status})${errorDetail(response)}. Check ` +
        "BRAVE_API_KEY: it must be a valid Search API subscription token.",
    );
  }
  if (status !== 200) {
    throw new ToolError(
      `Brave Search answered HTTP ${status}${errorDetail(response)}.` +
        (status === 422 ? " Try a shorter or simpler query." : " Try again later."),
    );
  }
  return { results: parseBrave(jsonBody(choice, response)) };
}
