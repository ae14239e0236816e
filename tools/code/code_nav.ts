import { defineTool, type ToolContext, ToolError } from "../../mcp/tool/mod.ts";
import { READ_ONLY } from "../_lib/declarations/annotations.ts";
import { pathProperty } from "../_lib/declarations/path_properties.ts";
import { isWithin, Sandbox } from "../_lib/sandbox/mod.ts";
import type { Place, TextDocumentPositionParams } from "./_lib/lsp/mod.ts";
import { loadLsp, type Lsp } from "./_lib/lsp_load.ts";
import { type Answer, page } from "./_lib/nav_page.ts";

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

const METHODS = {
  definition: "textDocument/definition",
  implementations: "textDocument/implementation",
  type_definition: "textDocument/typeDefinition",
} as const;

export default defineTool({
  name: "code_nav",
  title: "Navigate code with a language server",
  description: (offers) =>
    "Asks the project's language server (started on first use; never downloaded) about the " +
    "code at `path` + `line`/`column` (1-based) or a `symbol` name path (Class/method): " +
    "definition, references (per file, with counts), implementations, type_definition, hover, " +
    "incoming_calls, outgoing_calls; also workspace_symbols (`query`) and diagnostics of a file " +
    "or a directory. Waits while the server loads the project; an answer given before it " +
    "finished says `incomplete`." +
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
  run: navigateCode,
});

/** What the model asked code_nav for. */
interface CodeNavArgs {
  operation: Operation;
  path: string;
  line?: number;
  column?: number;
  symbol?: string;
  query?: string;
  cursor?: number;
}

/** Answers one navigation question from the language servers, a page at a time. */
async function navigateCode(args: CodeNavArgs, ctx: ToolContext) {
  lsp = await loadLsp();
  const operation = args.operation;
  const outputChars = ctx.config.limits.outputChars;
  if (operation === "diagnostics") {
    const sandbox = await Sandbox.of(ctx);
    const resolved = await sandbox.resolve(args.path);
    if (resolved.exists && (await sandbox.info(resolved.real)).isDirectory()) {
      return page(
        projectDiagnostics(sandbox, resolved.real),
        "running servers",
        args,
        outputChars,
      );
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
      note: found.pending && `diagnostics pending (${found.pending})`,
    };
  } else {
    answer = await query(operation, target, args, ctx).catch((error) => {
      // No answer in the call's time from a server still loading: incomplete, not a failure.
      if (!(error instanceof lsp.NotAnswered) || !lsp.stillLoading(target)) throw error;
      return { lines: [`no answer yet: ${error.message}`], places: [], count: 0 };
    });
  }
  // An answer given while the server was still loading says so, in the text and the structure.
  answer.incomplete = lsp.stillLoading(target);
  if (answer.incomplete) answer.incomplete += "; ask again shortly";
  // Loaded, but not all of it: rust-analyzer without its standard library misses the uses
  // inside `vec![…]`, and says so only in its status.
  const problem = server.readiness.problem;
  if (!answer.incomplete && problem) {
    answer.incomplete = `${server.choice.label} could not load all of the project (${problem}); ` +
      "the answer may miss what depends on it";
  }
  if (server.replaced) {
    // Said once, by the first answer of the server that replaced it.
    const note =
      `${server.choice.label} was started again: the previous one ended (${server.replaced})`;
    server.replaced = undefined;
    answer.note = answer.note ? `${note}; ${answer.note}` : note;
  }
  return page(answer, server.choice.label, args, outputChars);
}

/** A query of the server about the file (its symbols) or a position in it. */
async function query(
  operation: Exclude<Operation, "diagnostics">,
  target: Awaited<ReturnType<typeof lsp.targetFile>>,
  args: CodeNavArgs,
  ctx: ToolContext,
): Promise<Answer> {
  if (operation === "workspace_symbols") {
    const symbols = await lsp.ask(
      target.server,
      "workspace/symbol",
      {
        query: args.query ?? "",
      },
      ctx.signal,
      target.deadline,
    );
    const places = (Array.isArray(symbols) ? symbols : []).flatMap(({ name, location }) => {
      if (typeof location?.uri !== "string") return [];
      const range = location.range ?? { start: { line: 0, character: 0 } };
      return [lsp.placeOf(location.uri, range, target.sandbox, String(name))];
    });
    return { lines: lsp.placeLines(places), places, count: places.length };
  }
  const position = await lsp.targetPosition(target, args, ctx);
  const at = { textDocument: { uri: target.uri }, position };
  return await navigate(operation, target, at, ctx);
}

async function navigate(
  operation: Exclude<Operation, "diagnostics" | "workspace_symbols">,
  target: Awaited<ReturnType<typeof lsp.targetFile>>,
  at: TextDocumentPositionParams,
  ctx: ToolContext,
): Promise<Answer> {
  const { server, sandbox, deadline } = target;
  switch (operation) {
    case "hover": {
      const hover = await lsp.ask(server, "textDocument/hover", at, ctx.signal, deadline);
      const text = lsp.hoverText(hover?.contents).trim();
      return {
        lines: text ? [text.slice(0, 6000)] : ["(no hover information here)"],
        places: [],
        count: text ? 1 : 0,
      };
    }
    case "references": {
      const found = await lsp.ask(
        server,
        "textDocument/references",
        {
          ...at,
          context: { includeDeclaration: true },
        },
        ctx.signal,
        deadline,
      );
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
      const items = await lsp.ask(
        server,
        "textDocument/prepareCallHierarchy",
        at,
        ctx.signal,
        deadline,
      );
      if (!Array.isArray(items) || items.length === 0) {
        return { lines: ["(no callable symbol here)"], places: [], count: 0 };
      }
      const ends = operation === "incoming_calls"
        ? (await lsp.ask(server, "callHierarchy/incomingCalls", { item: items[0] }, ctx.signal))
          ?.map((call) => call.from)
        : (await lsp.ask(server, "callHierarchy/outgoingCalls", { item: items[0] }, ctx.signal))
          ?.map((call) => call.to);
      const places = (ends ?? []).filter((item) => typeof item?.uri === "string").map((item) =>
        lsp.placeOf(item.uri, item.selectionRange ?? item.range, sandbox, String(item.name))
      );
      return { lines: lsp.placeLines(places), places, count: places.length };
    }
    default: {
      const method = METHODS[operation];
      if (!method) throw new ToolError(`unknown operation ${operation}`);
      const found = await lsp.ask(server, method, at, ctx.signal, deadline);
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
    for (const [uri, items] of server.published.all()) {
      const path = lsp.pathOf(uri);
      if (!path || !isWithin(dir, path) || !sandbox.contains(path)) {
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
