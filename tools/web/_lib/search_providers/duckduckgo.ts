/**
 * DuckDuckGo through its HTML endpoint, the provider that needs no key: the result page is
 * parsed with linkedom (loaded on first use), its redirect links decoded, ads skipped, and its
 * bot check recognised as the rate limit it is.
 */
import { ToolError } from "../../../../mcp/tool/mod.ts";
import { decodeBody } from "../http/http_get.ts";
import {
  OTHER_PROVIDERS_HINT,
  type ProviderChoice,
  providerGet,
  type SearchFindings,
  type SearchNet,
  type SearchResult,
  shownUrl,
} from "./provider.ts";

/** The HTML endpoint turns away some clients that do not look like a browser. */
export const BROWSER_USER_AGENT = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) " +
  "AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36";

export interface DuckDuckGoPage {
  /** Organic results in page order, links decoded; ads left out. */
  results: SearchResult[];
  /** The page is DuckDuckGo's "bots use DuckDuckGo too" challenge, not results. */
  botCheck: boolean;
  /** The page has the parts of a result page (results or a "no results" notice). */
  resultPage: boolean;
}

/**
 * Where a result link leads: DuckDuckGo's `/l/?uddg=<target>` redirects are unwrapped, its own
 * other links (ads go through `/y.js`) give undefined, anything else is taken as it is.
 */
export function resultTarget(href: string): string | undefined {
  let url: URL;
  try {
    url = new URL(href, "https://duckduckgo.com/");
  } catch {
    return undefined;
  }
  const own = url.hostname === "duckduckgo.com" || url.hostname.endsWith(".duckduckgo.com");
  if (!own) return url.href;
  const target = /^\/l\/?$/.test(url.pathname) ? url.searchParams.get("uddg") : null;
  return target ? target : undefined;
}

/** The part of linkedom's DOM read here (its types assume the browser's global DOM types). */
interface Element {
  readonly textContent: string | null;
  readonly classList: { contains(token: string): boolean };
  getAttribute(name: string): string | null;
  querySelector(selectors: string): Element | null;
  querySelectorAll(selectors: string): Iterable<Element>;
}

const text = (node: Element | null) => (node?.textContent ?? "").replace(/\s+/g, " ").trim();

/** Reads a page from the HTML endpoint. */
export async function parseDuckDuckGoPage(html: string): Promise<DuckDuckGoPage> {
  const { parseHTML } = await import("linkedom");
  const { document } = parseHTML(html) as unknown as { document: Element };
  const botCheck = document.querySelector(
    "#challenge-form, form[action*='anomaly'], .anomaly-modal__modal",
  ) !== null;
  const results: SearchResult[] = [];
  for (const result of document.querySelectorAll(".result")) {
    if (result.classList.contains("result--ad")) continue;
    const link = result.querySelector("a.result__a");
    const target = resultTarget(link?.getAttribute("href") ?? "");
    if (!link || !target) continue;
    results.push({
      title: text(link),
      url: target,
      snippet: text(result.querySelector(".result__snippet")),
    });
  }
  const resultPage = document.querySelector("#links, .results, .result, .no-results") !== null;
  return { results, botCheck, resultPage };
}

export async function searchDuckDuckGo(
  choice: ProviderChoice,
  query: string,
  net: SearchNet,
): Promise<SearchFindings> {
  const url = new URL(choice.endpoint);
  url.searchParams.set("q", query);
  const response = await providerGet(choice, url.href, net, {
    "user-agent": BROWSER_USER_AGENT,
    "accept": "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8",
    "accept-language": "en",
  });
  const limited = (how: string) =>
    new ToolError(
      `DuckDuckGo is rate limiting searches from this machine: it answered ${how} instead of ` +
        `results. Wait a few minutes before searching again, or ${OTHER_PROVIDERS_HINT}.`,
    );
  if (response.status === 202) throw limited("HTTP 202 with a bot check");
  if (response.status === 429) throw limited("HTTP 429 (too many requests)");
  const page = await parseDuckDuckGoPage(decodeBody(response));
  if (page.botCheck) throw limited(`with a bot check (HTTP ${response.status})`);
  if (response.status !== 200) {
    throw new ToolError(
      `DuckDuckGo answered HTTP ${response.status} from ${
        shownUrl(response.url)
      }; try again later, or ` +
        `${OTHER_PROVIDERS_HINT}.`,
    );
  }
  if (!page.resultPage) {
    throw new ToolError(
      `DuckDuckGo's answer from ${
        shownUrl(response.url)
      } was not a result page that toolhost can read ` +
        `(its layout may have changed); ${OTHER_PROVIDERS_HINT}.`,
    );
  }
  return { results: page.results };
}
