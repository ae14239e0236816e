/**
 * Starting the project's language server before it is asked anything: when a session first reads
 * one of the project's source files, its server is started and given that file, so that it loads
 * the project while the agent reads, and the first `code_nav` finds it ready. Never a second
 * server for a project, never past MAX_WARM running servers, never one that is not installed;
 * under read-only, only a server that runs none of the project's code (the choice's rules).
 */
import type { ToolContext } from "../../../../mcp/tool/mod.ts";
import { sandboxFor } from "../../../_lib/confine/mod.ts";
import { Sandbox } from "../../../_lib/sandbox/mod.ts";
import { readSource } from "./_documents.ts";
import { choiceRules, runningServers, serverFor } from "./_pool.ts";
import { chooseServer } from "./_servers.ts";
import { serverLog } from "./_target.ts";
import { uriOf } from "./_uris.ts";

/** Servers running at most for one to be started ahead of a question (each holds memory). */
export const MAX_WARM = 4;

/**
 * Starts the server for `path` (as a read-only call named it) when none runs for its project;
 * resolves once it has the file open, or at once when there is nothing to do.
 *
 * @example
 * void warmStart("src/app.ts", ctx); // after read_file: tsserver begins loading the project
 */
export async function warmStart(path: string, ctx: ToolContext): Promise<void> {
  const sandbox = await Sandbox.of(ctx);
  const resolved = await sandbox.resolve(path).catch(() => undefined);
  if (!resolved?.exists || !(await sandbox.info(resolved.real)).isFile()) return;
  const top =
    sandbox.roots.filter((root) => resolved.real === root || resolved.real.startsWith(root + "/"))
      .sort((a, b) => b.length - a.length)[0];
  if (!top) return;
  const choice = chooseServer(resolved.real, top, choiceRules(ctx.config));
  if (!choice || "install" in choice) return;
  const running = runningServers();
  if (running.some((s) => s.choice.id === choice.id && s.choice.root === choice.root)) return;
  if (running.length >= MAX_WARM) return;
  const server = await serverFor(
    resolved.real,
    top,
    sandbox.display(resolved.real),
    ctx.config,
    async () => (await sandboxFor(ctx, "language-server")).confinement,
    serverLog(ctx),
  );
  const source = await readSource(sandbox, resolved.real);
  server.syncDocument(uriOf(resolved.real), source.text, source);
}
