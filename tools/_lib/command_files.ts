/**
 * The files a command changed, as the journal found them by comparing the roots around it, told
 * to whoever follows the files: the language servers, which must not answer from what the file
 * held before (typescript-language-server heeds no file-watch notification, and a server's own
 * watcher can lag a question asked right after the command). The journal tells; the code family
 * listens once it has loaded its servers. Told before the command's result is sent.
 *
 * @example
 * ```ts
 * onCommandFiles(({ sandbox, paths, settings }) => bringUpToDate(sandbox, paths, settings));
 * await commandFiles({ sandbox, paths: ["/work/app/src/a.ts"], settings: ctx.config });
 * ```
 */
import type { Settings } from "../../config/settings.ts";
import type { Sandbox } from "./sandbox/mod.ts";

/** What one command changed: real paths beneath the sandbox's roots. */
export interface CommandFiles {
  sandbox: Sandbox;
  paths: readonly string[];
  settings: Readonly<Settings>;
}

type Listener = (files: CommandFiles) => Promise<void>;

const listeners = new Set<Listener>();

/** Follows what commands change from now on. */
export function onCommandFiles(listener: Listener): void {
  listeners.add(listener);
}

/** Tells every listener, and waits for them; a listener's failure is its own. */
export async function commandFiles(files: CommandFiles): Promise<void> {
  if (files.paths.length === 0 || listeners.size === 0) return;
  await Promise.all([...listeners].map((listener) => listener(files).catch(() => {})));
}
