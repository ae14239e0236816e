/**
 * What a code tool's arguments point at: a file checked by the sandbox, the server for it
 * (started on first use), brought up to date and done loading the project (or said not to be),
 * and the position given by line and column or found by a symbol's name path, read as the
 * `symbols` tool reads it (tree-sitter; a leading `/` anchors at the top).
 */
import { type ToolContext, ToolError } from "../../../../mcp/tool/mod.ts";
import { Sandbox } from "../../../_lib/sandbox/mod.ts";
import { languageOf, parseBatch } from "../parse/mod.ts";
import { NotPicked, pickSymbol } from "../name_path.ts";
import { lineOf, type Position, positionAt, positionIn } from "./_documents.ts";
import { serverFor } from "./_pool.ts";
import type { LanguageServer } from "./_server.ts";
import { resolveNamePath } from "./_symbols.ts";
import { uriOf } from "./_uris.ts";
import { ask, syncForQuery } from "./_sync.ts";
import { sandboxFor } from "../../../_lib/confine/mod.ts";

export interface Target {
  sandbox: Sandbox;
  server: LanguageServer;
  real: string;
  shown: string;
  uri: string;
  text: string;
  /** When the query must be answered by: the wait for loading ends then. */
  deadline: number;
  /** Set when the server was still loading when the wait ran out: the answer may be partial. */
  loading?: string;
}

export interface PointArgs {
  path: string;
  line?: number;
  column?: number;
  symbol?: string;
}

/** How a server's life is logged for a call's context: stderr, and the client's log. */
export function serverLog(ctx: ToolContext) {
  return (level: "info" | "warning", message: string) =>
    ctx.serverLog(level, "language server", message);
}

/** The file `path` names, its server, synced and settled. */
export async function targetFile(path: string, ctx: ToolContext): Promise<Target> {
  const deadline = Date.now() + ctx.config.code.queryWaitSeconds * 1000;
  const sandbox = await Sandbox.of(ctx);
  const resolved = await sandbox.resolve(path);
  const shown = sandbox.display(resolved.real);
  if (!resolved.exists) throw new ToolError(`${shown} does not exist`);
  const info = await sandbox.info(resolved.real);
  if (!info.isFile()) throw new ToolError(`${shown} is not a file; name a source file`);
  const top = sandbox.rootOf(resolved.real) ?? sandbox.base;
  const server = await serverFor(
    resolved.real,
    top,
    shown,
    ctx.config,
    async () => (await sandboxFor(ctx, "language-server")).confinement,
    serverLog(ctx),
  );
  const [text] = await syncForQuery(server, sandbox, [resolved.real]);
  const loading = await server.settled(deadline, ctx.signal);
  return {
    sandbox,
    server,
    real: resolved.real,
    shown,
    uri: uriOf(resolved.real),
    text,
    deadline,
    loading,
  };
}

/** What a still-loading server is said to be doing: "rust-analyzer is still indexing (12 s)". */
export function stillLoading(target: Target): string | undefined {
  if (!target.loading) return undefined;
  const seconds = Math.round((Date.now() - target.server.startedAt) / 1000);
  return `${target.server.choice.label} is still loading the project (${target.loading}, ${seconds} s)`;
}

/** The position the arguments give: line and column, or a symbol's name path. */
export async function targetPosition(
  target: Target,
  args: PointArgs,
  ctx: ToolContext,
): Promise<Position> {
  if (args.symbol !== undefined) {
    const lang = languageOf(target.real);
    if (lang) return await byTree(target, lang, args.symbol, args.line, ctx.signal);
    // A language tier 1 does not parse (a configured server's): the server's own symbols.
    const symbols = await ask(
      target.server,
      "textDocument/documentSymbol",
      {
        textDocument: { uri: target.uri },
      },
      ctx.signal,
      target.deadline,
    );
    return resolveNamePath(symbols, args.symbol, target.shown);
  }
  if (args.line === undefined) {
    throw new ToolError(
      "give `line` (and `column`), or `symbol` with a name path such as Class/method",
    );
  }
  return positionIn(
    target.text,
    args.line,
    args.column ?? firstColumn(target.text, args.line),
    target.shown,
  );
}

/** Where the name of the definition `namePath` names starts, found by tree-sitter. */
async function byTree(
  target: Target,
  lang: NonNullable<ReturnType<typeof languageOf>>,
  namePath: string,
  line: number | undefined,
  signal: AbortSignal,
): Promise<Position> {
  const [outcome] = await parseBatch([{ lang, text: target.text, symbols: true }], signal);
  if ("failed" in outcome) {
    throw new ToolError(`${target.shown} could not be parsed: ${outcome.failed}`);
  }
  try {
    const symbol = pickSymbol(outcome.symbols, namePath, line, target.shown);
    return positionAt(target.text, symbol.nameAt);
  } catch (error) {
    if (error instanceof NotPicked) throw new ToolError(error.message);
    throw error;
  }
}

/** Without a column: the line's first non-blank character (1-based). */
function firstColumn(text: string, line: number): number {
  const content = lineOf(text, line) ?? "";
  return content.length - content.trimStart().length + 1;
}
