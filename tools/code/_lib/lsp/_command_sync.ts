/**
 * What a command changed (the journal's comparison around it), sent to the servers running for
 * those files before the command's result goes out, so that the next question is answered from
 * the files as they are. The servers' own file watchers are not enough: typescript-language-server
 * heeds no `workspace/didChangeWatchedFiles`, tsserver's watcher waits a moment before it looks,
 * and a `code_nav` asked right after a `bash` call was answered from the old text (4 references
 * of 5). A file a server has open is sent as it is now; of those it has not, the first
 * OPENED_AT_MOST are opened (tsserver then reads them from what is sent), the rest are told of
 * by notification.
 */
import type { CommandFiles } from "../../../_lib/command_files.ts";
import { readSource } from "./_documents.ts";
import { runningFor, runningServers } from "./_pool.ts";
import type { LanguageServer } from "./_server.ts";
import { uriOf } from "./_uris.ts";

/** Files not open in a server that one command's changes open in it, at most. */
const OPENED_AT_MOST = 32;

/**
 * Brings the running servers up to date with the files a command changed.
 *
 * @example
 * ```ts
 * onCommandFiles(followCommand); // once the servers' package has loaded
 * ```
 */
export async function followCommand({ sandbox, paths, settings }: CommandFiles): Promise<void> {
  if (runningServers().length === 0) return;
  let opened = 0;
  const sends: Promise<void>[] = [];
  for (const real of paths) {
    for (const server of runningFor(real, settings)) {
      const open = server.version(uriOf(real)) !== undefined;
      if (!open && opened >= OPENED_AT_MOST) {
        server.fileChanged(uriOf(real), 2);
        continue;
      }
      if (!open) opened++;
      sends.push(resend(server, real, sandbox));
    }
  }
  await Promise.all(sends);
}

async function resend(
  server: LanguageServer,
  real: string,
  sandbox: CommandFiles["sandbox"],
): Promise<void> {
  const uri = uriOf(real);
  const source = await readSource(sandbox, real).catch(() => undefined);
  if (!source) {
    // Gone (or no longer a file it may read): closed if open, else said deleted.
    if (server.version(uri) !== undefined) server.closeDocument(uri, true);
    else server.fileChanged(uri, 3);
    return;
  }
  server.fileChanged(uri, 2);
  server.syncDocument(uri, source.text, source);
}
