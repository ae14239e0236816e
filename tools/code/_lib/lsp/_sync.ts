/** Keeping a server's view of the files current before a request, and asking it. */
import { ToolError } from "../../../../mcp/tool/mod.ts";
import type { Sandbox } from "../../../_lib/sandbox/mod.ts";
import { NoAnswer, RequestFailed } from "./_connection.ts";
import { readSource } from "./_documents.ts";
import { type Method, type ParamsOf, type ResultOf, RETRY_CODES } from "./_protocol.ts";
import type { LanguageServer } from "./_server.ts";
import { uriOf } from "./_uris.ts";

/** How long one request may take. */
export const REQUEST_MS = 30_000;
/**
 * Times a request the server cancelled (content modified) is sent again while it says it is
 * ready: rust-analyzer cancels what a change on disk (its own cargo check's) makes stale, and
 * says it is loading again only after. Each retry waits for its next word, or a little longer.
 */
const RETRIES_WHEN_READY = 8;

/**
 * Brings the server up to date before a request: every open document changed on disk since it
 * was sent (by bash, an editor, another tool) is sent again or closed if gone, and `files` are
 * opened with what they hold now. Returns the texts of `files` as sent.
 */
export async function syncForQuery(
  server: LanguageServer,
  sandbox: Sandbox,
  files: string[],
): Promise<string[]> {
  // Changes made outside toolhost to files it has not open, sent before the query.
  await server.watcher.drain();
  const changed = server.changedOnDisk();
  for (const { uri, path, gone } of changed) {
    if (gone || !sandbox.contains(path)) {
      server.closeDocument(uri, gone);
      continue;
    }
    const source = await readSource(sandbox, path).catch(() => undefined);
    if (source) server.syncDocument(uri, source.text, source);
    else server.closeDocument(uri, false);
  }
  const texts: string[] = [];
  for (const file of files) {
    // An open document unchanged on disk (size, time, inode) is what the server has.
    const open = server.openText(uriOf(file));
    if (open !== undefined && !changed.some((c) => c.path === file)) {
      texts.push(open);
      continue;
    }
    const source = await readSource(sandbox, file);
    server.syncDocument(uriOf(file), source.text, source);
    texts.push(source.text);
  }
  return texts;
}

/**
 * A request to the server, its failure turned into a sentence naming the server. A request the
 * server cancels because it is not ready (rust-analyzer while it loads) is sent again when its
 * state changes, until `deadline`.
 *
 * @example
 * const refs = await ask(server, "textDocument/references", { ...at, context }, ctx.signal);
 */
export async function ask<M extends Method>(
  server: LanguageServer,
  method: M,
  params: ParamsOf<M>,
  signal: AbortSignal,
  deadline = Date.now() + REQUEST_MS,
): Promise<ResultOf<M>> {
  server.touch();
  let retries = 0;
  for (;;) {
    const timeout = Math.max(Math.min(REQUEST_MS, deadline - Date.now()), 1000);
    try {
      return await server.connection.request(method, params, timeout, signal);
    } catch (error) {
      const code = error instanceof RequestFailed ? error.code : undefined;
      const again = code !== undefined && RETRY_CODES.has(code) && Date.now() < deadline &&
        !signal.aborted && !server.dead;
      if (again && server.readiness.busy() !== undefined) {
        await server.readiness.changed(deadline, signal);
        continue;
      }
      if (again && retries++ < RETRIES_WHEN_READY) {
        await server.readiness.changed(Math.min(deadline, Date.now() + 100 * 2 ** retries), signal);
        continue;
      }
      const said = `${server.choice.label} (${server.choice.root}): ${(error as Error).message}`;
      throw error instanceof NoAnswer ? new NotAnswered(said) : new ToolError(said);
    }
  }
}

/**
 * The server gave no answer in the call's time: while it still loads the project, a query says
 * so as an incomplete answer (code_nav), not as a failure.
 */
export class NotAnswered extends ToolError {}
