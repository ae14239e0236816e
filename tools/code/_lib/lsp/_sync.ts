/** Keeping a server's view of the files current before a request, and asking it. */
import { ToolError } from "../../../../mcp/tool/mod.ts";
import type { Sandbox } from "../../../_lib/sandbox/mod.ts";
import { readSource } from "./_documents.ts";
import type { LanguageServer } from "./_server.ts";
import { uriOf } from "./_uris.ts";

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
  const changed = await server.changedOnDisk();
  for (const { uri, path, gone } of changed) {
    if (gone || !sandbox.contains(path)) {
      server.closeDocument(uri, gone);
      continue;
    }
    const source = await readSource(sandbox, path).catch(() => undefined);
    if (source) server.syncDocument(uri, source.text, source.mtimeMs, source.size);
    else server.closeDocument(uri, false);
  }
  const texts: string[] = [];
  for (const file of files) {
    // An open document unchanged on disk (size and time) is what the server has: not read again.
    const open = server.openText(uriOf(file));
    if (open !== undefined && !changed.some((c) => c.path === file)) {
      texts.push(open);
      continue;
    }
    const source = await readSource(sandbox, file);
    server.syncDocument(uriOf(file), source.text, source.mtimeMs, source.size);
    texts.push(source.text);
  }
  return texts;
}

/** A request to the server, its failure turned into a sentence naming the server. */
export async function ask<T>(
  server: LanguageServer,
  method: string,
  params: unknown,
  signal: AbortSignal,
  timeoutMs = 30_000,
): Promise<T> {
  server.touch();
  try {
    return await server.connection.request<T>(method, params, timeoutMs, signal);
  } catch (error) {
    throw new ToolError(
      `${server.choice.label} (${server.choice.root}): ${(error as Error).message}`,
    );
  }
}
