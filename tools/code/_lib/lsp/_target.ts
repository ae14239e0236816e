/**
 * What a code tool's arguments point at: a file checked by the sandbox, the server for it
 * (started on first use), brought up to date, and the position given by line and column or
 * found by a symbol's name path.
 */
import { type ToolContext, ToolError } from "../../../../mcp/tool/mod.ts";
import { Sandbox } from "../../../_lib/sandbox/mod.ts";
import { type Position, positionIn } from "./_documents.ts";
import { serverFor } from "./_pool.ts";
import type { LanguageServer } from "./_server.ts";
import { resolveNamePath } from "./_symbols.ts";
import { uriOf } from "./_uris.ts";
import { ask, syncForQuery } from "./_sync.ts";
import { sandboxFor } from "../../../_lib/confine/mod.ts";

/** How long a query waits for a server still loading the project before answering anyway. */
export const LOADING_WAIT_MS = 45_000;

export interface Target {
  sandbox: Sandbox;
  server: LanguageServer;
  real: string;
  shown: string;
  uri: string;
  text: string;
  /** Set when the server was still loading when the wait ran out: the answer may be partial. */
  loading?: string;
}

export interface PointArgs {
  path: string;
  line?: number;
  column?: number;
  symbol?: string;
}

/** The file `path` names, its server, synced and settled. */
export async function targetFile(path: string, ctx: ToolContext): Promise<Target> {
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
  );
  const [text] = await syncForQuery(server, sandbox, [resolved.real]);
  const loading = await server.settled(LOADING_WAIT_MS, ctx.signal);
  return { sandbox, server, real: resolved.real, shown, uri: uriOf(resolved.real), text, loading };
}

/** The position the arguments give: line and column, or a symbol's name path. */
export async function targetPosition(
  target: Target,
  args: PointArgs,
  ctx: ToolContext,
): Promise<Position> {
  if (args.symbol !== undefined) {
    const symbols = await ask(target.server, "textDocument/documentSymbol", {
      textDocument: { uri: target.uri },
    }, ctx.signal);
    const position = resolveNamePath(symbols, args.symbol, target.shown);
    // The symbol request may itself have set the server loading the project.
    target.loading = await target.server.settled(LOADING_WAIT_MS, ctx.signal);
    return position;
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

/** Without a column: the line's first non-blank character (1-based). */
function firstColumn(text: string, line: number): number {
  const content = text.split("\n")[line - 1] ?? "";
  return content.length - content.trimStart().length + 1;
}
