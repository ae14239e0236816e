/**
 * What a module of tools/ needs done when the server stops in order (the journal writes out its
 * queued lines): declared with defineShutdownHook() beside its tool, collected by the barrel like
 * tool hooks, and run by main.ts once the connections are closed and child processes killed.
 */
import { describeLogData, type Logger } from "../wire/log.ts";

export interface ShutdownHook {
  kind: "shutdown_hook";
  /** Names the hook in logs and tests. */
  name: string;
  /** Finishes within `ms` (the server exits after that whether or not it did). */
  run(ms: number): Promise<unknown> | void;
}

/**
 * @example The journal writes out what it queued
 * ```ts
 * export default [history, journalHook, defineShutdownHook({
 *   name: "journal flush",
 *   run: (ms) => flushJournal(ms),
 * })];
 * ```
 */
export function defineShutdownHook(spec: Omit<ShutdownHook, "kind">): ShutdownHook {
  return { kind: "shutdown_hook", ...spec };
}

/** Runs every hook at once; resolves when all ended, or after `ms`. A failure is logged. */
export async function runShutdownHooks(
  hooks: readonly ShutdownHook[],
  ms: number,
  logger: Logger,
): Promise<void> {
  if (hooks.length === 0) return;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)));
  const all = Promise.all(hooks.map(async (hook) => {
    try {
      await hook.run(ms);
    } catch (error) {
      logger.log("error", `shutdown hook ${hook.name} failed: ${describeLogData(error)}`);
    }
  }));
  await Promise.race([all, late]);
  clearTimeout(timer);
}
