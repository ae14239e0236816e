/**
 * The sandbox: what keeps every file a tool touches inside the allowed roots. Resolve a path
 * with `Sandbox.of(ctx).resolve(path)`, read and write through the directories it holds open,
 * replace files atomically, and take the file lock around a change. The files behind this one
 * are the package's own: import from here. The examples check with `deno check --doc`.
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
 * @example Replace a file atomically, under the lock the other file tools take
 * ```ts
 * import type { ToolContext } from "../../../mcp/tool/mod.ts";
 * import { Sandbox, whileChanging, writeFileAtomic } from "./mod.ts";
 *
 * export async function replaceInside(ctx: ToolContext, path: string, text: string) {
 *   const sandbox = await Sandbox.of(ctx);
 *   const target = await sandbox.resolve(path);
 *   // With the sandbox, the temporary file is made and renamed in the parent directory it holds
 *   // open, so a directory swapped for a link meanwhile cannot send the write outside.
 *   await whileChanging(() =>
 *     writeFileAtomic(target.real, new TextEncoder().encode(text), sandbox)
 *   );
 * }
 * ```
 * @module
 */

// Paths: resolved, contained, shown.
export { type ResolvedPath, Sandbox } from "./_sandbox.ts";
export { establishRoots } from "./_held_roots.ts";
export { pathRulesFor } from "./_path_rules.ts";
// Directories held open, entered one component at a time without following links.
export {
  Dir,
  type ListedKind,
  MovedOutOfRoots,
  NotADirectory,
  O_DIRECTORY,
  O_NOFOLLOW,
  O_NOFOLLOW_ANY,
  O_NONBLOCK,
} from "./_beneath.ts";
export {
  type EntryLook,
  lookAt,
  modifiedAt,
  nativeLookups,
  nativeLookupsLoaded,
  openEntryAt,
} from "./_beneath_native.ts";
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
// Writing: directories, atomic replacement, the lock, what we wrote.
export { makeDirectories } from "./_make_directories.ts";
export {
  assertWritable,
  type Content,
  hardLinkNote,
  temporaryName,
  writeFileAtomic,
  type WriteOptions,
} from "./_atomic_write.ts";
export { whileChanging, whileReading } from "./_file_lock.ts";
export { writtenDigest } from "./_written_digests.ts";
// Ignore files, read beneath the roots.
export {
  IgnoreFileReader,
  MAX_IGNORE_FILE_BYTES,
  type SkippedIgnoreFile,
  skippedIgnoreNote,
} from "./_gitignore_read.ts";
// rg's answers confirmed against the files read again beneath the held directory.
export {
  confirms,
  confirmsBytes,
  decodeAsRg,
  HeldReader,
  heldText,
  type OpenAt,
  regularBytes,
} from "./_grep_held.ts";
