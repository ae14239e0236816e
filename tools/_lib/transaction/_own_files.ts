/**
 * toolhost's own files: its state (task lists, plan mode's state) and the plan file plan mode
 * keeps, written atomically like a tool's file but outside any call's declaration. They are not
 * the user's content, so no journal keeps them and no session check applies: only the atomic
 * write (and, for a plan file inside the roots, the sandbox's held directories) is shared.
 */
import type { Sandbox } from "../sandbox/mod.ts";
import { type Content, writeFileAtomic } from "./_atomic_write.ts";

/**
 * Replaces toolhost's own file at `path` with `bytes`, atomically. With `sandbox`, a file inside
 * the roots is written beneath them (never through a link); without, by path. `bytes` may come in
 * chunks (a cache written as it is made).
 *
 * @example A state file
 * ```ts
 * await replaceOwnFile(stateFile, new TextEncoder().encode(JSON.stringify(state)));
 * ```
 */
export async function replaceOwnFile(
  path: string,
  bytes: Content,
  sandbox?: Sandbox,
): Promise<void> {
  await writeFileAtomic(path, bytes, sandbox);
}
