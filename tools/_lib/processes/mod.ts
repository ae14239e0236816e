/**
 * Child processes in process groups of their own, so a timeout, a cancel or shutdown reaches every
 * process a command started; a watchdog kills what is left if the server itself is killed. The
 * files behind this one are private to the package: import from here.
 *
 * @example Run a command in its own group and end all of it on cancel
 * ```ts
 * import { spawnInGroup, terminateGroup } from "../_lib/processes/mod.ts";
 *
 * const child = spawnInGroup("/bin/sh", ["-c", command], { cwd, stdio: ["ignore", "pipe", "pipe"] });
 * // SIGTERM to the group and to what left it, SIGKILL to what is still alive 2 s later.
 * ctx.signal.addEventListener("abort", () => terminateGroup(child.pid!, 2000));
 * ```
 * @module
 */
export {
  enableWatchdog,
  groupAlive,
  type GroupOptions,
  killAllGroups,
  RUN_VARIABLE,
  runAlive,
  signalGroup,
  spawnInGroup,
  terminateGroup,
} from "./_process_groups.ts";
