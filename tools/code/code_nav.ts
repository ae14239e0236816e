import { defineTool, type ToolContext, ToolError } from "../../mcp/tool/mod.ts";
import { READ_ONLY } from "../_lib/declarations/annotations.ts";
import { pathProperty } from "../_lib/declarations/path_properties.ts";
import { Sandbox } from "../_lib/sandbox/mod.ts";
import type { Place } from "./_lib/lsp/mod.ts";
import { loadLsp, type Lsp } from "./_lib/lsp_load.ts";

/** The language-server package, loaded by the first call (lsp_load.ts): never at start-up. */
let lsp: Lsp;

const OPERATIONS = [
  "definition",
  "references",
  "implementations",
  "type_definition",
  "hover",
  "incoming_calls",
  "outgoing_calls",
  "workspace_symbols",
  "diagnostics",
] as const;
type Operation = typeof OPERATIONS[number];

const METHODS: Partial<Record<Operation, string>> = {
  definition: "textDocument/definition",
  implementations: "textDocument/implementation",
  type_definition: "textDocument/typeDefinition",
};

/** A server younger than this that never reported loading may still be reading the project. */
const YOUNG_MS = 20_000;
const DEFAULT_CHARS = 8000;

interface Answer {
  lines: string[];
  places: Place[];
  count: number;
  note?: string;
}

export default defineTool({
  name: "code_nav",
  title: "Navigate code with a language server",
  description: (offers) =>
    "Asks the project's language server (started on first use; never downloaded) about the " +
    "code at `path` + `line`/`column` (1-based) or a `symbol` name path (Class/method): " +
    "definition, references (per file, with counts), implementations, type_definition, hover, " +
    "incoming_calls, outgoing_calls; also workspace_symbols (`query`) and diagnostics of a file " +
    "or a directory. Names the server and says when it was still loading." +
    (offers("symbols") ? " Without a server, `symbols` still answers." : ""),
  annotations: READ_ONLY,
  input: {
    type: "object",
    properties: {
      operation: { enum: OPERATIONS },
      path: pathProperty("The source file (a directory for project diagnostics)"),
      line: { type: "integer", minimum: 1 },
      column: { type: "integer", minimum: 1, description: "Default: the first non-blank." },
      symbol: { type: "string", minLength: 1, maxLength: 500 },
      query: { type: "string", maxLength: 500 },
      cursor: { type: "integer", minimum: 0, description: "A previous page's next_cursor." },
    },
    required: ["operation", "path"],
    additionalProperties: false,
  },
  output: {
    type: "object",
    properties: {
      server: { type: "string" },
      count: { type: "integer" },
      places: {
        type: "array",
        items: {
          type: "object",
          properties: {
            path: { type: "string" },
            line: { type: "integer" },
            column: { type: "integer" },
            name: { type: "string" },
          },
          required: ["path", "line"],
        },
      },
      text: { type: "string" },
      incomplete: { type: "string" },
      next_cursor: { type: "integer" },
    },
    required: ["server", "count"],
  },
  async run(args, ctx) {
    lsp = await loadLsp();
    const operation = args.operation as Operation;
    if (operation === "diagnostics") {
      const sandbox = await Sandbox.of(ctx);
      const resolved = await sandbox.resolve(args.path);
      if (resolved.exists && (await sandbox.info(resolved.real)).isDirectory()) {
        return page(projectDiagnostics(sandbox, resolved.real), "running servers", args, ctx);
      }
    }
    const target = await lsp.targetFile(args.path, ctx);
    const server = target.server;
    let answer: Answer;
    if (operation === "diagnostics") {
      const found = await lsp.fileDiagnostics(target, ctx.signal);
      answer = {
        lines: found.items.map((d) => lsp.diagnosticLine(target.shown, d)),
        places: found.items.map((d) =>
          lsp.placeOf(target.uri, d.range, target.sandbox, d.message.split("\n")[0])
        ),
        count: found.items.length,
        note: found.note,
      };
    } else if (operation === "workspace_symbols") {
      const symbols = await lsp.ask<unknown[]>(server, "workspace/symbol", {
        query: args.query ?? "",
      }, ctx.signal);
      const places = (symbols ?? []).flatMap((s) => {
        const { name, location } = s as {
          name: string;
          location?: { uri: string; range?: { start: { line: number; character: number } } };
        };
        if (!location?.uri) return [];
        const range = location.range ?? { start: { line: 0, character: 0 } };
        return [lsp.placeOf(location.uri, range, target.sandbox, name)];
      });
      answer = { lines: lsp.placeLines(places), places, count: places.length };
    } else {
      const position = await lsp.targetPosition(target, args, ctx);
      const at = { textDocument: { uri: target.uri }, position };
      answer = await navigate(operation, target, at, ctx);
    }
    const notes: string[] = [];
    if (target.loading) {
      notes.push(
        `${server.choice.label} was still loading the project (${target.loading}) after ` +
          `${
            Math.round((Date.now() - server.startedAt) / 1000)
          } s; the answer may be incomplete — ask again shortly`,
      );
    } else if (
      operation === "references" && !server.reportsProgress &&
      Date.now() - server.startedAt < YOUNG_MS
    ) {
      notes.push(
        `${server.choice.label} started ${
          Math.round((Date.now() - server.startedAt) / 1000)
        } s ago ` +
          "and reports no loading progress; references may still be incomplete — ask again shortly",
      );
    }
    if (answer.note) notes.push(answer.note);
    return page(
      { ...answer, note: notes.join("; ") || undefined, incomplete: notes[0] },
      server.choice.label,
      args,
      ctx,
    );
  },
});

async function navigate(
  operation: Operation,
  target: Awaited<ReturnType<typeof lsp.targetFile>>,
  at: { textDocument: { uri: string }; position: { line: number; character: number } },
  ctx: ToolContext,
): Promise<Answer> {
  const { server, sandbox } = target;
  switch (operation) {
    case "hover": {
      const hover = await lsp.ask<{ contents?: unknown } | null>(
        server,
        "textDocument/hover",
        at,
        ctx.signal,
      );
      const text = lsp.hoverText(hover?.contents).trim();
      return {
        lines: text ? [text.slice(0, 6000)] : ["(no hover information here)"],
        places: [],
        count: text ? 1 : 0,
      };
    }
    case "references": {
      const found = await lsp.ask<unknown>(server, "textDocument/references", {
        ...at,
        context: { includeDeclaration: true },
      }, ctx.signal);
      const places = lsp.placesOf(found, sandbox);
      const files = new Set(places.map((p) => p.path)).size;
      return {
        lines: [`${places.length} references in ${files} files`, ...lsp.groupedLines(places)],
        places,
        count: places.length,
      };
    }
    case "incoming_calls":
    case "outgoing_calls": {
      const items = await lsp.ask<unknown[] | null>(
        server,
        "textDocument/prepareCallHierarchy",
        at,
        ctx.signal,
      );
      if (!items || items.length === 0) {
        return { lines: ["(no callable symbol here)"], places: [], count: 0 };
      }
      const incoming = operation === "incoming_calls";
      const calls = await lsp.ask<Record<string, unknown>[] | null>(
        server,
        incoming ? "callHierarchy/incomingCalls" : "callHierarchy/outgoingCalls",
        { item: items[0] },
        ctx.signal,
      );
      const places = (calls ?? []).map((call) => {
        const item = (incoming ? call.from : call.to) as {
          name: string;
          uri: string;
          selectionRange: { start: { line: number; character: number } };
        };
        return lsp.placeOf(item.uri, item.selectionRange, sandbox, item.name);
      });
      return { lines: lsp.placeLines(places), places, count: places.length };
    }
    default: {
      const method = METHODS[operation];
      if (!method) throw new ToolError(`unknown operation ${operation}`);
      const found = await lsp.ask<unknown>(server, method, at, ctx.signal);
      const places = lsp.placesOf(found, sandbox);
      return { lines: lsp.placeLines(places), places, count: places.length };
    }
  }
}

/** Diagnostics every running server under `dir` has published, errors first. */
function projectDiagnostics(sandbox: Sandbox, dir: string): Answer {
  const lines: { severity: number; line: string }[] = [];
  const places: Place[] = [];
  for (const server of lsp.runningServers()) {
    for (const [uri, items] of server.allPublished()) {
      const path = lsp.pathOf(uri);
      if (!path || !(path === dir || path.startsWith(dir + "/")) || !sandbox.contains(path)) {
        continue;
      }
      for (const d of items) {
        lines.push({
          severity: d.severity ?? 1,
          line: lsp.diagnosticLine(sandbox.display(path), d),
        });
        places.push(lsp.placeOf(uri, d.range, sandbox, d.message.split("\n")[0]));
      }
    }
  }
  if (lsp.runningServers().length === 0) {
    throw new ToolError(
      `no language server is running for ${sandbox.display(dir)}; ask for a file's diagnostics ` +
        "first (that starts its server), then the directory's",
    );
  }
  lines.sort((a, b) => a.severity - b.severity);
  return {
    lines: lines.map((l) => l.line),
    places,
    count: lines.length,
    note: "from the files the running servers have checked (open files, for most servers)",
  };
}

/** The answer's page from `cursor` (a line index) within the character budget. */
function page(
  answer: Answer & { incomplete?: string },
  server: string,
  args: { cursor?: number },
  ctx: ToolContext,
) {
  const budget = Math.min(DEFAULT_CHARS, ctx.config.limits.outputChars);
  const start = Math.min(args.cursor ?? 0, answer.lines.length);
  const shown: string[] = [];
  let used = 0;
  let end = start;
  for (; end < answer.lines.length; end++) {
    const line = answer.lines[end].length > budget
      ? answer.lines[end].slice(0, budget) + "…"
      : answer.lines[end];
    if (used + line.length + 1 > budget && shown.length > 0) break;
    shown.push(line);
    used += line.length + 1;
  }
  const next = end < answer.lines.length ? end : undefined;
  const header = `${server}: ${answer.count} result${answer.count === 1 ? "" : "s"}`;
  const parts = [header, ...shown];
  if (answer.count === 0 && shown.length === 0) parts.push("(nothing found)");
  if (next !== undefined) parts.push(`… more: call again with cursor ${next}`);
  if (answer.note) parts.push(`note: ${answer.note}`);
  const text = answer.places.length === 0 && answer.lines.length > 0
    ? answer.lines.join("\n").slice(0, budget)
    : undefined;
  return {
    content: parts.join("\n"),
    structured: {
      server,
      count: answer.count,
      places: answer.places.slice(0, 500).map(({ path, line, column, name }) => ({
        path,
        line,
        column,
        ...(name === undefined ? {} : { name }),
      })),
      ...(text === undefined ? {} : { text }),
      ...(answer.incomplete ? { incomplete: answer.incomplete } : {}),
      ...(next === undefined ? {} : { next_cursor: next }),
    },
  };
}
