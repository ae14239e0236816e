import { type ContentBlock, defineTool, type ToolContext, ToolError } from "../../mcp/tool/mod.ts";
import { READS_THE_WEB } from "../_lib/declarations/annotations.ts";
import { HttpError, httpGet, HttpTimeoutError } from "./_lib/http/http_get.ts";
import type { Settings } from "../../config/settings.ts";
import { proxyRulesOf } from "../_lib/net/user_proxy.ts";
import { fetchToFile } from "./_lib/save_body.ts";
import { TtlCache } from "./_lib/ttl_cache.ts";
import { bytes, count, duration } from "../_lib/text/units.ts";
import { type Format, toDocument, type WebDocument } from "./_lib/web_document.ts";
import { renderedResponse } from "./_lib/chromium/web_render.ts";

const DEFAULT_MAX_LENGTH = 20_000;
const CACHE_TTL_MS = 15 * 60 * 1000;
/** Bytes the cache may hold across all pages (a string's characters count two bytes each). */
const CACHE_BUDGET = 64 * 1024 * 1024;

interface Fetched {
  url: string;
  status: number;
  redirects: string[];
  truncated: boolean;
  document: WebDocument;
}

const cache = new TtlCache<Fetched>(CACHE_TTL_MS, CACHE_BUDGET, (entry) => {
  const { document } = entry;
  return document.kind === "text"
    ? document.text.length * 2
    : document.kind === "image"
    ? document.data.length * 2
    : 200;
});

/** Moves a cut back (an end) or on (a start) so it never splits a surrogate pair. */
function safeEnd(text: string, end: number): number {
  return end < text.length && /[\uD800-\uDBFF]/.test(text[end - 1]) ? end - 1 : end;
}

function safeStart(text: string, start: number): number {
  return start > 0 && /[\uDC00-\uDFFF]/.test(text[start] ?? "") ? start + 1 : start;
}

async function download(
  url: string,
  options: { format: Format; raw: boolean; render: boolean; waitMs: number; timeoutMs: number },
  signal: AbortSignal,
  config: Readonly<Settings>,
  roots: () => Promise<string[]>,
): Promise<Fetched> {
  const { allowPrivateNetwork } = config;
  const response = options.render
    ? await renderedResponse(url, {
      waitMs: options.waitMs,
      timeoutMs: options.timeoutMs,
      signal,
      allowPrivateNetwork,
      proxy: proxyRulesOf(config),
      avoid: await roots().catch(() => []),
    })
    : await httpGet(url, {
      signal,
      timeoutMs: options.timeoutMs,
      maxBytes: config.limits.fetchMaxBytes,
      allowPrivateNetwork,
      proxy: proxyRulesOf(config),
    });
  const document = await toDocument(response, { ...options, signal });
  return {
    url: response.url,
    status: response.status,
    redirects: response.redirects,
    truncated: response.truncated,
    document,
  };
}

export default defineTool({
  name: "fetch_url",
  title: "Fetch a web page",
  description: (offers) =>
    "Fetches an http(s) URL for reading: HTML as markdown of the main content " +
    "(`raw`: of the whole page; `format`: text or html instead), JSON pretty-printed, text and " +
    "XML as they are, PNG/JPEG/GIF/WebP as images, other files described. Long pages come in " +
    "parts of `max_length` characters; a cut result says which `start_index` reads on. `render` " +
    "loads the page in a local headless Chrome/Chromium first, for pages written by JavaScript " +
    "(slower). `save_to` writes the body to a file instead. Downloads at most 10 MB; cached 15 " +
    "minutes. Private-network addresses are refused unless the user allowed them." +
    (offers("web_search") ? " Use web_search to find pages." : ""),
  annotations: READS_THE_WEB,
  // Only with save_to; the journal does not keep what it replaces (it is not undoable).
  writes: { paths: [{ arg: "save_to", kind: "replaces" }] },
  taskSupport: "optional",
  input: {
    type: "object",
    properties: {
      url: { type: "string", minLength: 1, maxLength: 8192 },
      format: {
        type: "string",
        enum: ["markdown", "text", "html"],
        description: "How HTML comes back (default markdown).",
      },
      start_index: {
        type: "integer",
        minimum: 0,
        description: "Character to start at (default 0).",
      },
      max_length: {
        type: "integer",
        minimum: 100,
        maximum: 100_000,
        description: "Most characters to return (default 20,000).",
      },
      timeout_ms: {
        type: "integer",
        minimum: 1000,
        maximum: 120_000,
        description: "Deadline in ms (default 30,000).",
      },
      raw: {
        type: "boolean",
        description: "Convert the whole page, not just its main content.",
      },
      render: {
        type: "boolean",
        description: "Load the page in headless Chromium first.",
      },
      wait_ms: {
        type: "integer",
        minimum: 0,
        maximum: 30_000,
        description: "With render: ms to wait after load (default 500).",
      },
      save_to: {
        type: "string",
        minLength: 1,
        description: "A file to save the body to.",
      },
    },
    required: ["url"],
    additionalProperties: false,
  },
  output: {
    type: "object",
    properties: {
      url: { type: "string" },
      final_url: { type: "string", description: "Where the redirects ended." },
      status: { type: "integer" },
      content_type: { type: "string" },
      title: { type: "string" },
      total_length: { type: "integer" },
      start_index: { type: "integer" },
      next_start_index: { type: "integer" },
      download_truncated: {
        type: "boolean",
        description: "Stopped at the size cap.",
      },
      cached_seconds_ago: { type: "integer" },
      saved_to: { type: "string" },
      bytes: { type: "integer" },
    },
    required: ["url", "final_url", "status", "content_type", "start_index", "download_truncated"],
    additionalProperties: false,
  },
  run: fetchUrl,
});

/** What the model asked fetch_url for. */
interface FetchUrlArgs {
  url: string;
  format?: "markdown" | "text" | "html";
  start_index?: number;
  max_length?: number;
  timeout_ms?: number;
  raw?: boolean;
  render?: boolean;
  wait_ms?: number;
  save_to?: string;
}

/** Fetches a URL as markdown, text or HTML, a page at a time, or saves it to a file. */
async function fetchUrl(args: FetchUrlArgs, ctx: ToolContext) {
  const format = args.format ?? "markdown";
  const raw = args.raw ?? false;
  const render = args.render ?? false;
  const startIndex = args.start_index ?? 0;
  const maxLength = args.max_length ?? DEFAULT_MAX_LENGTH;
  const timeoutMs = args.timeout_ms ?? ctx.config.limits.fetchTimeoutMs;
  const waitMs = args.wait_ms ?? 500;
  if (args.save_to !== undefined) {
    return await fetchToFile(args.url, args.save_to, { timeoutMs, render }, ctx);
  }
  const key = `${format} ${raw} ${render ? waitMs : "-"} ${args.url}`;

  const hit = cache.get(key);
  let fetched: Fetched;
  try {
    fetched = hit?.value ??
      await download(
        args.url,
        { format, raw, render, waitMs, timeoutMs },
        ctx.signal,
        ctx.config,
        () => ctx.roots(),
      );
  } catch (error) {
    // A cancelled call's result is never sent; it is not a failure worth a stack trace.
    if (ctx.signal.aborted) throw new ToolError("The fetch was cancelled.");
    if (error instanceof HttpTimeoutError) {
      throw new ToolError(`${error.message} Try again, or give a larger timeout_ms.`);
    }
    if (error instanceof HttpError || error instanceof ToolError) {
      throw new ToolError(error.message);
    }
    throw error;
  }
  const ok = fetched.status >= 200 && fetched.status < 300;
  if (ok && !hit) cache.set(key, fetched);

  const { document } = fetched;
  const structured = {
    url: args.url,
    final_url: fetched.url,
    status: fetched.status,
    content_type: document.contentType,
    ...(document.kind === "text" && document.title ? { title: document.title } : {}),
    start_index: startIndex,
    download_truncated: fetched.truncated,
    ...(hit ? { cached_seconds_ago: Math.floor((Date.now() - hit.at) / 1000) } : {}),
  };
  const facts = [
    `HTTP ${fetched.status}`,
    document.contentType,
    ...(fetched.redirects.length ? [`redirected to ${fetched.url}`] : []),
    ...(hit ? [`from cache, fetched ${duration(Date.now() - hit.at)} ago`] : []),
  ];
  const heading = `${args.url} (${facts.join(", ")})`;
  if (!ok) {
    const excerpt = document.kind === "text" ? `\n\n${document.text.slice(0, 2000)}` : "";
    throw new ToolError(`${heading}: the server answered with an error.${excerpt}`);
  }

  if (document.kind === "image") {
    const content: ContentBlock[] = [
      { type: "text", text: heading },
      { type: "image", data: document.data, mimeType: document.contentType },
    ];
    return { content, structured };
  }
  if (document.kind === "binary") {
    return {
      content: `${heading}\nThis is ${document.description}; fetch_url returns only text ` +
        "and images. To keep the file, call fetch_url again with save_to.",
      structured,
    };
  }

  const { text } = document;
  if (startIndex > 0 && startIndex >= text.length) {
    throw new ToolError(
      `start_index ${startIndex} is past the end: the page has ${count(text.length)} ` +
        "characters.",
    );
  }
  const start = safeStart(text, startIndex);
  const end = Math.max(start, safeEnd(text, Math.min(text.length, start + maxLength)));
  const notes: string[] = [];
  if (end < text.length) {
    notes.push(
      `[Cut at character ${count(end)} of ${count(text.length)}. To read on, call fetch_url ` +
        `again with the same url, format, raw and render, and start_index: ${end}.]`,
    );
  }
  if (fetched.truncated) {
    notes.push(
      `[The download stopped at the ${bytes(ctx.config.limits.fetchMaxBytes)} cap, so the ` +
        "page itself is incomplete.]",
    );
  }
  if (!text.trim()) {
    notes.push(
      render
        ? "[The page has no readable text.]"
        : "[The page has no readable text; if it is written by JavaScript, try render: true.]",
    );
  }
  return {
    content: [heading, "", text.slice(start, end), ...(notes.length ? ["", ...notes] : [])]
      .join("\n"),
    structured: {
      ...structured,
      total_length: text.length,
      ...(end < text.length ? { next_start_index: end } : {}),
    },
  };
}
