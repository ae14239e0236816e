/**
 * The edit transaction: the one way a tool replaces or creates a file's content, or puts a copy
 * or a moved entry in a path's place (_transaction.ts), with what goes with it: a call's write
 * targets resolved once and carried on `ctx.writes` (_targets.ts), the check phase against
 * another's unseen change (_seen.ts: the hook, and what read_file remembers), the one comparison
 * of "changed since" (_version.ts), the digests of what was written (_written_digests.ts), and
 * toolhost's own files written the same atomic way (_own_files.ts). The files behind this one are
 * the package's own: import from here.
 *
 * @example A tool that replaces the file `path` names (declared `{ arg: "path", kind: "replaces" }`)
 * ```ts
 * import type { ToolContext } from "../../../mcp/tool/mod.ts";
 * // From tools/<family>/, the face is "../_lib/transaction/mod.ts".
 * import { transaction } from "./mod.ts";
 *
 * export function shout(ctx: ToolContext, path: string): Promise<string> {
 *   return transaction(ctx, async (tx) => {
 *     const file = await tx.readText(await tx.target(path), {
 *       tool: "shout",
 *       instead: "use bash instead",
 *     });
 *     // Checked, kept for undo by the journal, written beside the old file and renamed over it.
 *     const written = await tx.replace(file, file.encode(file.text.toUpperCase()));
 *     return `Shouted ${file.shown}${written.note}.`;
 *   });
 * }
 * ```
 * @module
 */
export {
  hardLinkNote,
  MAX_EDITED_BYTES,
  type Target,
  type TextFile,
  type TextRules,
  Transaction,
  transaction,
  type Written,
} from "./_transaction.ts";
export { allWriteTargets, callSandbox, type WriteTarget, writeTargets } from "./_targets.ts";
export { rememberRead, seenFilesHook, SMALL_FILE } from "./_seen.ts";
export { sameVersion, type Version, versionKey, versionOf } from "./_version.ts";
export { writtenDigest } from "./_written_digests.ts";
export { replaceOwnFile } from "./_own_files.ts";
export type { Content } from "./_atomic_write.ts";
