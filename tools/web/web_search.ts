import { defineTool, ToolError } from "../../mcp/tool.ts";
import { READS_THE_WEB } from "../_lib/annotations.ts";
import { count } from "../_lib/units.ts";
import { searchBrave } from "./_lib/search_brave.ts";
import { searchDuckDuckGo } from "./_lib/search_duckduckgo.ts";
import {
  chooseProvider,
  collectResults,
  parseSite,
  PROVIDER_LABELS,
  type ProviderChoice,
  PROVIDERS,
  searchEnv,
  type SearchFindings,
  type SearchNet,
  withSite,
} from "./_lib/search_provider.ts";
import { proxyRulesOf } from "./_lib/proxy.ts";
import { searchSearxng } from "./_lib/search_searxng.ts";

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
  }
}

export default defineTool({
  name: "web_search",
  title: "Search the web",
  description:
    "Searches the web and returns the top results as title, URL and snippet, most relevant " +
    "first. Use it to find pages about a topic, current information, or documentation; then " +
    "read a page with fetch_url. `site` keeps results to one domain and its subdomains " +
    "(e.g. docs.python.org). Up to 20 results (default 8). The provider is DuckDuckGo unless " +
    "the user configured SearXNG or Brave Search; a rate limit or provider failure comes back " +
    "as an error that says so. Snippets are the search engine's, not the page's full text.",
  annotations: READS_THE_WEB,
  input: {
    type: "object",
    properties: {
      query: {
        type: "string",
        minLength: 1,
        maxLength: 500,
        description: "What to search for, as you would type it into a search engine.",
      },
      max_results: {
        type: "integer",
        minimum: 1,
        maximum: MAX_RESULTS,
        default: DEFAULT_RESULTS,
        description:
          `How many results to return, 1 to ${MAX_RESULTS} (default ${DEFAULT_RESULTS}).`,
      },
      site: {
        type: "string",
        minLength: 1,
        maxLength: 253,
        description:
          "Only results from this domain or its subdomains: a bare hostname such as example.com.",
      },
    },
    required: ["query"],
    additionalProperties: false,
  },
  output: {
    type: "object",
    properties: {
      provider: { type: "string", enum: PROVIDERS },
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

  async run(args, ctx) {
    const query = args.query.replace(/\s+/g, " ").trim();
    if (!query) throw new ToolError("query is blank; give the words to search for.");
    const site = args.site === undefined ? undefined : parseSite(args.site);
    const max = args.max_results ?? DEFAULT_RESULTS;
    const choice = chooseProvider(searchEnv(ctx.config.search));
    const label = PROVIDER_LABELS[choice.id];
    const net = {
      signal: ctx.signal,
      allowPrivateNetwork: ctx.config.allowPrivateNetwork,
      proxy: proxyRulesOf(ctx.config),
    };
    const findings = await search(choice, withSite(query, site), net);
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
        `${i + 1}. ${result.title}\n   ${result.url}${
          result.snippet ? `\n   ${result.snippet}` : ""
        }`
      );
      body = `${label} results for ${JSON.stringify(query)}${where}:\n\n${list.join("\n\n")}`;
    }
    return {
      content: notes.length ? `${body}\n\n${notes.join("\n")}` : body,
      structured: { provider: choice.id, query, results },
    };
  },
});
