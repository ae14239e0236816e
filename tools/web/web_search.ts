import { defineTool, type ToolContext, ToolError } from "../../mcp/tool/mod.ts";
import { READS_THE_WEB } from "../_lib/declarations/annotations.ts";
import { count } from "../_lib/text/units.ts";
import { searchBrave } from "./_lib/search_providers/brave.ts";
import { searchDuckDuckGo } from "./_lib/search_providers/duckduckgo.ts";
import {
  asksAll,
  chooseAllProviders,
  chooseProvider,
  collectResults,
  mergeResults,
  onSite,
  parseSite,
  PROVIDER_LABELS,
  type ProviderChoice,
  type ProviderId,
  PROVIDERS,
  searchEnv,
  type SearchFindings,
  type SearchNet,
  withSite,
} from "./_lib/search_providers/provider.ts";
import { searchWikipedia } from "./_lib/search_providers/wikipedia.ts";
import { proxyRulesOf } from "../_lib/net/user_proxy.ts";
import { searchSearxng } from "./_lib/search_providers/searxng.ts";

const DEFAULT_RESULTS = 8;
const MAX_RESULTS = 20;

function search(
  choice: ProviderChoice,
  query: string,
  net: SearchNet,
): Promise<SearchFindings> {
  switch (choice.id) {
    case "duckduckgo":
      return searchDuckDuckGo(choice, query, net);
    case "searxng":
      return searchSearxng(choice, query, net);
    case "brave":
      return searchBrave(choice, query, net);
    case "wikipedia":
      return searchWikipedia(choice, query, net);
  }
}

/**
 * Every provider at once: one that fails or is rate limited costs only its results (the note
 * says which answered and why the others did not); all failing is the error.
 */
async function searchAll(
  choices: ProviderChoice[],
  query: string,
  site: string | undefined,
  net: SearchNet,
): Promise<SearchFindings & { answered: string[] }> {
  // Wikipedia knows nothing of site:, so it is asked only when the site is Wikipedia.
  const asked = choices.filter((choice) =>
    choice.id !== "wikipedia" || !site || onSite(choice.endpoint, site)
  );
  const settled = await Promise.allSettled(asked.map((choice) => search(choice, query, net)));
  if (net.signal.aborted) throw new ToolError("The search was cancelled.");
  const answered: string[] = [];
  const lists: SearchFindings["results"][] = [];
  const failures: string[] = [];
  const notes: string[] = [];
  settled.forEach((outcome, i) => {
    const label = PROVIDER_LABELS[asked[i].id];
    if (outcome.status === "fulfilled") {
      answered.push(asked[i].id);
      lists.push(outcome.value.results);
      if (outcome.value.note) notes.push(`${label}: ${outcome.value.note}`);
    } else {
      const message = (outcome.reason as Error)?.message ?? String(outcome.reason);
      failures.push(`${label}: ${message}`);
    }
  });
  if (answered.length === 0) {
    throw new ToolError(`No provider answered. ${failures.join(" ")}`);
  }
  const labels = answered.map((id) => PROVIDER_LABELS[id as ProviderId]);
  notes.unshift(
    `answered: ${labels.join(", ")}` +
      (failures.length ? `; did not answer: ${failures.join(" ")}` : ""),
  );
  return { results: mergeResults(lists), note: notes.join("; "), answered };
}

export default defineTool({
  name: "web_search",
  title: "Search the web",
  description: (offers) =>
    "Searches the web and returns the top results as title, URL and snippet, most " +
    "relevant first: to find pages about a topic, current information, or documentation" +
    (offers("fetch_url") ? "; then read a page with fetch_url" : "") +
    ". The provider is DuckDuckGo unless the user chose another (or " +
    "all at once); failures say so. Snippets are the engine's, not the page's text.",
  annotations: READS_THE_WEB,
  taskSupport: "optional",
  input: {
    type: "object",
    properties: {
      query: {
        type: "string",
        minLength: 1,
        maxLength: 500,
        description: "What to search for, as typed into a search engine.",
      },
      max_results: {
        type: "integer",
        minimum: 1,
        maximum: MAX_RESULTS,
        default: DEFAULT_RESULTS,
        description: "How many results to return.",
      },
      site: {
        type: "string",
        minLength: 1,
        maxLength: 253,
        description: "Only results from this domain and its subdomains, e.g. example.com.",
      },
    },
    required: ["query"],
    additionalProperties: false,
  },
  output: {
    type: "object",
    properties: {
      provider: { type: "string", enum: [...PROVIDERS, "all"] },
      answered: { type: "array", items: { type: "string" } },
      query: { type: "string" },
      results: {
        type: "array",
        items: {
          type: "object",
          properties: {
            title: { type: "string" },
            url: { type: "string" },
            snippet: { type: "string" },
          },
          required: ["title", "url", "snippet"],
          additionalProperties: false,
        },
      },
    },
    required: ["provider", "query", "results"],
    additionalProperties: false,
  },

  run: webSearch,
});

/** What the model asked web_search for. */
interface WebSearchArgs {
  query: string;
  max_results?: number;
  site?: string;
}

/** Searches the web through the configured provider (or all of them) and lists the results. */
async function webSearch(args: WebSearchArgs, ctx: ToolContext) {
  const query = args.query.replace(/\s+/g, " ").trim();
  if (!query) throw new ToolError("query is blank; give the words to search for.");
  const site = args.site === undefined ? undefined : parseSite(args.site);
  const max = args.max_results ?? DEFAULT_RESULTS;
  const env = searchEnv(ctx.config.search);
  const net = {
    signal: ctx.signal,
    allowPrivateNetwork: ctx.config.allowPrivateNetwork,
    proxy: proxyRulesOf(ctx.config),
  };
  const all = asksAll(env);
  const choice = all ? undefined : chooseProvider(env);
  const label = choice ? PROVIDER_LABELS[choice.id] : "All providers";
  const findings: SearchFindings & { answered?: string[] } = choice
    ? await search(choice, withSite(query, site), net)
    : await searchAll(chooseAllProviders(env), withSite(query, site), site, net);
  const { results, offSite } = collectResults(findings.results, site, max);

  const where = site ? ` on ${site}` : "";
  const notes: string[] = [];
  if (offSite) {
    notes.push(`[${count(offSite)} result${offSite === 1 ? "" : "s"} from other sites left out]`);
  }
  if (findings.note) notes.push(`[${findings.note}]`);
  let body: string;
  if (results.length === 0) {
    body = `${label} found no results for ${JSON.stringify(query)}${where}.`;
    notes.push(`[try other or fewer words${site ? ", or search without site" : ""}]`);
  } else {
    const list = results.map((result, i) =>
      `${i + 1}. ${result.title}\n   ${result.url}${result.snippet ? `\n   ${result.snippet}` : ""}`
    );
    body = `${label} results for ${JSON.stringify(query)}${where}:\n\n${list.join("\n\n")}`;
  }
  return {
    content: notes.length ? `${body}\n\n${notes.join("\n")}` : body,
    structured: {
      provider: choice?.id ?? "all" as const,
      query,
      results,
      ...(findings.answered ? { answered: findings.answered } : {}),
    },
  };
}
