/**
 * The sandbox: what keeps every file a tool touches inside the allowed roots. Resolve a path
 * with `Sandbox.of(ctx).resolve(path)` (which root holds it: `contains`, `rootOf`), open files and
 * directories through the directories it holds open (never following a link on the way), and
 * take the file lock around a change. Replacing a file's content is the edit transaction's
 * (tools/_lib/transaction/), built on what is here. The files behind this one are the package's
 * own: import from here. The examples check with `deno check --doc`.
 *
 * @example Read a file the model named, refusing anything outside the roots
 * ```ts
 * import type { ToolContext } from "../../../mcp/tool/mod.ts";
 * // From tools/<family>/, the face is "../_lib/sandbox/mod.ts".
 * import { Sandbox, whileReading } from "./mod.ts";
 *
 * export async function readInside(ctx: ToolContext, path: string): Promise<string> {
 *   const sandbox = await Sandbox.of(ctx); // the roots in force for this call
 *   const target = await sandbox.resolve(path); // a ToolError when it lies outside them
 *   return await whileReading(async () => {
 *     const handle = await sandbox.openForReading(target.real); // no link followed on the way
 *     try {
 *       return await handle.readFile({ encoding: "utf8" });
 *     } finally {
 *       await handle.close();
 *     }
 *   });
 * }
 * ```
 *
 * @example Which root, or which directory, holds a path: never a prefix check of one's own
 * ```ts
 * import { isWithin, type Sandbox } from "./mod.ts";
 *
 * export function innermostRoot(sandbox: Sandbox, real: string): string {
 *   return sandbox.rootOf(real) ?? sandbox.base; // nested roots: the deepest that holds it
 * }
 * export const inServerRoot = (root: string, file: string) => isWithin(root, file);
 * ```
 * @module
 */

// Paths: resolved, contained, shown.
export { isWithin, type ResolvedPath, Sandbox } from "./_sandbox.ts";
export { establishRoots } from "./_held_roots.ts";
export { pathRulesFor } from "./_path_rules.ts";
// Directories held open, entered one component at a time without following links.
export { Dir, type ListedKind, MovedOutOfRoots, NotADirectory } from "./_beneath.ts";
export {
  type EntryLook,
  lookAt,
  modifiedAt,
  nativeLookups,
  nativeLookupsLoaded,
} from "./_beneath_native.ts";
// Files opened by path (toolhost's state, where no directory is held): never blocking.
export { openByPath, STRICT_READ, temporaryName, UNFOLLOWED_READ } from "./_by_path.ts";
// What is at a path.
export {
  describeEntry,
  type Entry,
  ENTRY_TYPES,
  type EntryType,
  entryType,
  infoIfAny,
  resolveEntry,
} from "./_entries.ts";
// Changing: directories made beneath the roots, and the lock the file tools take.
export { makeDirectories } from "./_make_directories.ts";
export { whileChanging, whileReading } from "./_file_lock.ts";
// Ignore files, read beneath the roots.
export {
  IgnoreFileReader,
  MAX_IGNORE_FILE_BYTES,
  type SkippedIgnoreFile,
  skippedIgnoreNote,
} from "./_gitignore_read.ts";
