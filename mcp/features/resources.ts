/**
 * The resource catalog: resources/list (fixed resources and what templates list now),
 * resources/templates/list and resources/read, in both eras.
 */
import { bounded } from "../../config/quote.ts";
import type { Call } from "../tool/call.ts";
import { handlerFailure, resourceNotFound } from "./handler_errors.ts";
import { INVALID_PARAMS, type Params, RpcError } from "../wire/jsonrpc.ts";
import { describeLogData, type Logger } from "../wire/log.ts";
import { pageOf } from "../wire/pages.ts";
import { APP_MIME_TYPE, rendersApps } from "../tool/apps.ts";
import type {
  ReadContext,
  ReadReturn,
  Resource,
  ResourceBody,
  ResourceInfo,
  ResourceTemplate,
} from "./resource.ts";
import { features } from "../wire/versions.ts";
import type { Watch } from "./watch.ts";
import type { ProgramContext } from "../tool/tool.ts";

interface ResourceOptions {
  program: ProgramContext;
  pageSize: number;
  /** How long clients may cache the template list (modern era). */
  cacheTtlMs: number;
}

/**
 * Lists whose members come and go (background processes) and contents that change without
 * notice: we send no change notifications, so clients should not reuse them.
 */
const DYNAMIC_TTL_MS = 0;

export class ResourceCatalog {
  readonly #resources: Resource[];
  readonly #templates: ResourceTemplate[];

  constructor(
    resources: Resource[],
    templates: ResourceTemplate[],
    readonly logger: Logger,
    readonly options: ResourceOptions,
  ) {
    this.#resources = [...resources].sort((a, b) => compare(a.uri, b.uri));
    this.#templates = [...templates].sort((a, b) => compare(a.uriTemplate, b.uriTemplate));
    const uris = new Set<string>();
    for (const { uri } of this.#resources) {
      if (uris.has(uri)) throw new Error(`Two resources have the URI ${uri}`);
      uris.add(uri);
    }
    const patterns = new Set<string>();
    for (const { uriTemplate } of this.#templates) {
      if (patterns.has(uriTemplate)) throw new Error(`Two resource templates are ${uriTemplate}`);
      patterns.add(uriTemplate);
    }
  }

  get templates(): readonly ResourceTemplate[] {
    return this.#templates;
  }

  async list(params: Params, call: Call): Promise<Record<string, unknown>> {
    const ctx = call.context(this.options.program);
    const listed = await Promise.all(this.#templates.map(async (template) => {
      if (!template.list) return [];
      try {
        return await template.list(ctx);
      } catch (error) {
        // One family failing to list must not hide the others.
        this.logger.log(
          "warning",
          `listing ${template.uriTemplate} failed: ${describeLogData(error)}`,
        );
        return [];
      }
    }));
    // An app's page is listed to clients that render apps alone (SEP-1865 lets servers omit it).
    const apps = rendersApps(call.clientCapabilities);
    const offered = this.#resources.filter((r) => apps || r.mimeType !== APP_MIME_TYPE);
    const all: ResourceInfo[] = [
      ...offered.map(({ uri, name, title, description, mimeType }) => ({
        uri,
        name,
        title,
        description,
        mimeType,
      })),
      ...listed.flat().sort((a, b) => compare(a.uri, b.uri)),
    ];
    const page = pageOf(all, params.cursor, this.options.pageSize, "resources");
    const result: Record<string, unknown> = {
      resources: page.items.map((info) => shaped(info, call)),
    };
    if (page.nextCursor) result.nextCursor = page.nextCursor;
    return cacheable(result, call, DYNAMIC_TTL_MS);
  }

  listTemplates(params: Params, call: Call): Promise<Record<string, unknown>> {
    const page = pageOf(this.#templates, params.cursor, this.options.pageSize, "templates");
    const result: Record<string, unknown> = {
      resourceTemplates: page.items.map(({ uriTemplate, name, title, description, mimeType }) =>
        shaped({ uriTemplate, name, title, description, mimeType }, call)
      ),
    };
    if (page.nextCursor) result.nextCursor = page.nextCursor;
    // Templates are the same for everyone; what they expand to is not, and is read separately.
    return Promise.resolve(cacheable(result, call, this.options.cacheTtlMs, "public"));
  }

  async read(params: Params, call: Call): Promise<Record<string, unknown>> {
    const uri = params.uri;
    if (typeof uri !== "string" || uri === "") {
      throw new RpcError(
        INVALID_PARAMS,
        "Invalid params: resources/read needs params.uri (a non-empty string)",
      );
    }
    call.label = uri;
    const ctx = call.context(this.options.program);
    const fixed = this.#resources.find((resource) => resource.uri === uri);
    let read: () => Promise<ReadReturn>;
    let mimeType: string | undefined;
    if (fixed) {
      read = () => fixed.read(ctx);
      mimeType = fixed.mimeType;
    } else {
      const found = this.#match(uri);
      if (!found) throw resourceNotFound(uri, call.era);
      read = () => found.template.read(found.variables, ctx);
      mimeType = found.template.mimeType;
    }
    let value: ReadReturn;
    try {
      value = await read();
    } catch (error) {
      throw handlerFailure(error, `read ${bounded(uri, 300)}`, {
        era: call.era,
        logger: this.logger,
        uri,
      });
    }
    const contents = bodies(value).map((body) => ({
      uri: body.uri ?? uri,
      ...(body.mimeType ?? mimeType ? { mimeType: body.mimeType ?? mimeType } : {}),
      ..."text" in body ? { text: body.text } : { blob: body.blob },
      ...(body.meta ? { _meta: body.meta } : {}),
    }));
    return cacheable({ contents }, call, DYNAMIC_TTL_MS);
  }

  /**
   * resources/search (an extension announced in capabilities.experimental): the resources and
   * templates whose names, titles, URIs or descriptions hold `query`, case-insensitively, best
   * first, in pages, at most SEARCH_MAX_RESULTS in all.
   */
  async search(params: Params, call: Call): Promise<Record<string, unknown>> {
    const query = params.query;
    if (typeof query !== "string" || query.trim() === "" || query.length > SEARCH_MAX_QUERY) {
      throw new RpcError(
        INVALID_PARAMS,
        `Invalid params: resources/search needs params.query, a string of 1 to ` +
          `${SEARCH_MAX_QUERY} characters`,
      );
    }
    const needle = query.trim().toLowerCase();
    const ctx = call.context(this.options.program);
    const found = await Promise.all(this.#templates.map(async (template) => {
      try {
        const [listed, searched] = await Promise.all([
          template.list ? template.list(ctx) : [],
          template.search ? template.search(needle, ctx, SEARCH_MAX_RESULTS) : [],
        ]);
        return [...listed, ...searched];
      } catch (error) {
        this.logger.log(
          "warning",
          `searching ${template.uriTemplate} failed: ${describeLogData(error)}`,
        );
        return [];
      }
    }));
    const seen = new Set<string>();
    const ranked: { rank: number; key: string; item: Record<string, unknown> }[] = [];
    const consider = (item: Record<string, unknown>, key: string) => {
      const rank = rankOf(needle, item);
      if (rank === undefined || seen.has(key)) return;
      seen.add(key);
      ranked.push({ rank, key, item });
    };
    for (const { uri, name, title, description, mimeType } of this.#resources) {
      consider({ uri, name, title, description, mimeType }, uri);
    }
    for (const info of found.flat()) consider({ ...info }, info.uri);
    for (const { uriTemplate, name, title, description, mimeType } of this.#templates) {
      consider({ uriTemplate, name, title, description, mimeType }, `template ${uriTemplate}`);
    }
    ranked.sort((a, b) => a.rank - b.rank || compare(a.key, b.key));
    const all = ranked.slice(0, SEARCH_MAX_RESULTS).map(({ item }) => shaped(item, call));
    const page = pageOf(all, params.cursor, this.options.pageSize, "search");
    const result: Record<string, unknown> = { results: page.items };
    if (page.nextCursor) result.nextCursor = page.nextCursor;
    if (ranked.length > SEARCH_MAX_RESULTS) result.truncated = true;
    return cacheable(result, call, DYNAMIC_TTL_MS);
  }

  /** The app pages (MCP Apps) a browser may open: fixed `ui://` resources of the app type. */
  get appPages(): { uri: string; title?: string }[] {
    return this.#resources.filter((r) => r.uri.startsWith("ui://") && r.mimeType === APP_MIME_TYPE)
      .map((r) => ({ uri: r.uri, title: r.title }));
  }

  /**
   * The app page (MCP Apps) at `uri`, a fixed `ui://` resource of the app MIME type, as HTML for
   * a browser; undefined when there is none. Read outside any request: it may not use roots.
   */
  async appPage(uri: string, ctx: ReadContext): Promise<string | undefined> {
    const page = this.#resources.find((r) => r.uri === uri && r.mimeType === APP_MIME_TYPE);
    if (!page || !uri.startsWith("ui://")) return undefined;
    const [body] = bodies(await page.read(ctx));
    return body && "text" in body ? body.text : undefined;
  }

  /**
   * How to watch the resource at `uri` for changes: undefined when nothing by that URI can be
   * read, null when it can but does not say when it changes.
   */
  watchFor(uri: string): Watch | null | undefined {
    const fixed = this.#resources.find((resource) => resource.uri === uri);
    if (fixed) return fixed.watch ?? null;
    const found = this.#match(uri);
    if (!found) return undefined;
    const { template, variables } = found;
    const watch = template.watch;
    return watch ? (ctx, changed) => watch.call(template, variables, ctx, changed) : null;
  }

  /** What tells when resources/list may answer differently: the templates' list watches. */
  get listWatches(): Watch[] {
    return this.#templates.flatMap((t) => t.watchList ? [t.watchList.bind(t)] : []);
  }

  /** Whether any resource can be subscribed to (some URIs, at least). */
  get subscribable(): boolean {
    return this.#resources.some((r) => r.watch) || this.#templates.some((t) => t.watch);
  }

  /** The first template (in sorted order) the URI fits, with its variables. */
  #match(uri: string) {
    for (const template of this.#templates) {
      const variables = template.parsed.match(uri);
      if (variables) return { template, variables };
    }
    return undefined;
  }
}

/** The longest query resources/search takes, and the most results it gives. */
export const SEARCH_MAX_QUERY = 200;
export const SEARCH_MAX_RESULTS = 500;

/**
 * How well `item` answers the (lower-case) query: a name equal to it first, then one starting
 * with it, one holding it, then the title, the URI and the description; undefined for no match.
 */
function rankOf(needle: string, item: Record<string, unknown>): number | undefined {
  const text = (key: string) => typeof item[key] === "string" ? item[key].toLowerCase() : "";
  const name = text("name");
  if (name === needle) return 0;
  if (name.startsWith(needle)) return 1;
  if (name.includes(needle)) return 2;
  if (text("title").includes(needle)) return 3;
  if (text("uri").includes(needle) || text("uriTemplate").includes(needle)) return 4;
  if (text("description").includes(needle)) return 5;
  return undefined;
}

function bodies(value: ReadReturn): ResourceBody[] {
  if (typeof value === "string") return [{ text: value }];
  return Array.isArray(value) ? value : [value];
}

/** Drops what the version does not know and the fields left undefined. */
function shaped(item: object, call: Call): Record<string, unknown> {
  const titled = call.era === "modern" || features.titles(call.version);
  return Object.fromEntries(
    Object.entries(item).filter(([key, value]) =>
      value !== undefined && (key !== "title" || titled)
    ),
  );
}

/** Modern results say how long they may be cached, and by whom. */
export function cacheable(
  result: Record<string, unknown>,
  call: Call,
  ttlMs: number,
  scope: "public" | "private" = "private",
): Record<string, unknown> {
  if (call.era === "modern") {
    result.ttlMs = ttlMs;
    result.cacheScope = scope;
  }
  return result;
}

export function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
