/**
 * Child processes in process groups of their own, so a timeout, a cancel or shutdown reaches every
 * process a command started; a watchdog kills what is left if the server itself is killed. The
 * files behind this one are private to the package: import from here.
 *
 * @example Run a command in its own group, and end all of it when the call is cancelled
 * ```ts
 * import type { ToolContext } from "../../../mcp/tool/mod.ts";
 * // From tools/<family>/, the face is "../_lib/processes/mod.ts".
 * import { spawnInGroup, terminateGroup } from "./mod.ts";
 *
 * export function start(ctx: ToolContext, command: string, cwd: string) {
 *   const stdio = ["ignore", "pipe", "pipe"] as const;
 *   const child = spawnInGroup("/bin/sh", ["-c", command], { cwd, stdio: [...stdio] }, {
 *     // Real call sites pass the sandbox's wrapper (tools/_lib/confine) or say why not.
 *     confinement: { unconfined: "an example" },
 *   });
 *   // SIGTERM to the group and to what left it, SIGKILL to whatever still lives 2 s later.
 *   ctx.signal.addEventListener("abort", () => terminateGroup(child.pid!, 2000));
 *   return child;
 * }
 * ```
 * @module
 */
export {
  type Confinement,
  enableWatchdog,
  endRunsOf,
  groupAlive,
  type GroupOptions,
  killAllGroups,
  type Launch,
  RUN_VARIABLE,
  runAlive,
  signalGroup,
  spawnInGroup,
  terminateGroup,
} from "./_process_groups.ts";
