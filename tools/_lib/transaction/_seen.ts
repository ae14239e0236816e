/**
 * No edit of a person or another agent is lost: toolhost remembers, per session, what each file was
 * when the session last read or wrote it (device, inode, size, modification time, and the digest
 * when known). A call that replaces a file by any means its tool declares (`replaces`, and
 * `receives`: a copy or a move put over it; mcp/tool/writes.ts) while that file has changed since
 * is refused, with what changed, until the session reads it again or the call passes the tool's
 * `force` argument. A file the session never read or wrote is written as before. Kept in the
 * session (ctx.session), so two sessions never vouch for each other; any change counts, made by
 * bash, an editor or another server. This is the check phase of every write (the hook below).
 */
import { Buffer } from "node:buffer";
import { createHash } from "node:crypto";
import type { Stats } from "node:fs";
import { type FileHandle, lstat } from "node:fs/promises";
import {
  defineToolHook,
  type FinishedCall,
  type PlannedWrite,
  SessionKey,
  type Tool,
  type ToolContext,
  ToolError,
} from "../../../mcp/tool/mod.ts";
import type { Sandbox } from "../sandbox/mod.ts";
import { bytes, duration } from "../text/units.ts";
import { firstDifference, keepText, keptText } from "./_seen_text.ts";
import { allWriteTargets, callSandbox, vouch, writeTargets } from "./_targets.ts";
import { sameVersion, versionOf } from "./_version.ts";
import { writtenDigest } from "./_written_digests.ts";

/** A file as this session last saw it. */
interface Seen {
  dev: number;
  ino: number;
  size: number;
  mtimeMs: number;
  /** When the session read or wrote it (ms since the epoch). */
  at: number;
  how: "read" | "wrote";
  /** SHA-256 of its content, when known without extra reading. */
  sha?: string;
}

/** Files remembered per session at most; the oldest are forgotten (then written as before). */
const MAX_FILES = 4096;

/** Files up to this size are digested (and their text kept for a diff) when read. */
export const SMALL_FILE = 16 * 1024;

/** A changed file of the same size is digested to compare, up to this size. */
const DIGEST_UP_TO = 16 << 20;

class SeenFiles {
  #byPath = new Map<string, Seen>();

  get(real: string): Seen | undefined {
    return this.#byPath.get(real);
  }

  set(real: string, seen: Seen): void {
    this.#byPath.delete(real);
    this.#byPath.set(real, seen);
    if (this.#byPath.size > MAX_FILES) this.#byPath.delete(this.#byPath.keys().next().value!);
  }

  forget(real: string): void {
    this.#byPath.delete(real);
  }

  get size(): number {
    return this.#byPath.size;
  }
}

const seenFiles = new SessionKey("the files this session read or wrote", () => new SeenFiles());

function sha256(data: Uint8Array): string {
  return createHash("sha256").update(data).digest("hex");
}

function seen(info: Stats, how: Seen["how"], sha?: string): Seen {
  return { ...versionOf(info), at: Date.now(), how, sha };
}

/** The kinds of write that put something new in a file's place: another's change there is lost. */
function replacing(write: PlannedWrite): boolean {
  return !write.kept && (write.kind === "replaces" || write.kind === "receives");
}

/**
 * read_file: the session has read the file `info` describes (as it was just before it was
 * opened). `head` is what was read of its start: when that is the whole file, its digest is
 * taken and its text kept for a diff, with no further reading.
 */
export function rememberRead(
  ctx: ToolContext,
  real: string,
  info: Stats,
  head: Uint8Array,
): void {
  let sha: string | undefined;
  if (head.length === info.size && info.size <= SMALL_FILE) {
    sha = sha256(head);
    keepText(sha, head);
  }
  ctx.session.get(seenFiles).set(real, seen(info, "read", sha));
}

/** A file's SHA-256, read in chunks of at most 1 MiB; its bytes too when it is small. */
async function digestOf(handle: FileHandle, size: number): Promise<{ sha: string; text?: Buffer }> {
  const buffer = Buffer.allocUnsafe(Math.min(Math.max(size, 1), 1 << 20));
  const hash = createHash("sha256");
  let total = 0;
  // A file still growing is read no further than one byte past the size it had.
  while (total <= size) {
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, total);
    if (bytesRead === 0) break;
    hash.update(buffer.subarray(0, bytesRead));
    total += bytesRead;
  }
  const text = total <= SMALL_FILE && total === size
    ? Buffer.from(buffer.subarray(0, total))
    : undefined;
  return { sha: hash.digest("hex"), text };
}

/** Refuses the replacing writes among `writes` whose file changed since the session saw it. */
async function refuseChanged(
  tool: Tool,
  ctx: ToolContext,
  writes: readonly PlannedWrite[],
): Promise<void> {
  const files = ctx.session.get(seenFiles);
  const replaced = writes.filter(replacing);
  if (replaced.length === 0) return;
  const sandbox = await callSandbox(ctx);
  for (const { real, write } of await writeTargets(ctx, replaced)) {
    const was = files.get(real);
    if (!was) continue;
    // By path first (the common file is unchanged); a change is looked at through the sandbox.
    const quick = await lstat(real).catch(() => undefined);
    if (quick && sameVersion(was, quick)) {
      // What the write is checked against just before its rename: a change after now is caught.
      vouch(ctx, real, versionOf(quick));
      continue;
    }
    const now = await sandbox.info(real).catch(() => undefined);
    // Gone, or no longer a file: the tool says what it finds there.
    if (!now?.isFile()) continue;
    if (sameVersion(was, now)) {
      vouch(ctx, real, versionOf(now));
      continue;
    }
    // The same size, new times or inode (touched, saved unchanged): the same content counts as
    // unchanged, when the digest from before is known.
    let text: Buffer | undefined;
    if (was.sha && now.size === was.size && now.size <= DIGEST_UP_TO) {
      const handle = await sandbox.openForReading(real);
      const read = await digestOf(handle, now.size).finally(() => handle.close());
      text = read.text;
      if (read.sha === was.sha) {
        files.set(real, { ...seen(now, was.how, was.sha), at: was.at });
        vouch(ctx, real, versionOf(now));
        continue;
      }
    }
    throw new ToolError(await describeChange(tool, write, sandbox, real, was, now, text));
  }
}

/** What changed in a file since the session saw it: sizes, times, and the first lines that differ. */
async function describeChange(
  tool: Tool,
  write: PlannedWrite,
  sandbox: Sandbox,
  real: string,
  was: Seen,
  now: Stats,
  read?: Buffer,
): Promise<string> {
  const shown = sandbox.display(real);
  const size = was.size === now.size
    ? `the same size (${bytes(now.size)}), different content`
    : `${bytes(was.size)} then, ${bytes(now.size)} now`;
  const replaced = was.ino !== now.ino ? ", replaced by a new file" : "";
  const modified = `modified ${duration(Date.now() - now.mtimeMs)} ago`;
  let diff = "";
  const before = was.sha ? keptText(was.sha) : undefined;
  if (before && now.size <= SMALL_FILE) {
    let after = read;
    if (!after) {
      const handle = await sandbox.openForReading(real).catch(() => undefined);
      after = await handle?.readFile().finally(() => handle.close());
    }
    if (after) diff = firstDifference(before, after);
  }
  const force = tool.writes?.force;
  const what = write.kind === "receives" ? "replacing it" : "writing";
  const instead = write.kind === "receives"
    ? `Read it again (read_file) first if it is still to be replaced`
    : `Read it again (read_file) and make the change on what it holds now`;
  return `${tool.name} was refused: ${shown} changed since this session ${was.how} it ` +
    `${duration(Date.now() - was.at)} ago (${size}${replaced}; ${modified}), by another program, ` +
    `person or session: ${what} now would lose that change.${diff ? `\n${diff}\n` : " "}` +
    `${instead}${force ? `, or pass ${force}: true to overwrite it` : ""}.`;
}

/** Remembers what the session's successful writes left, so its own writes never count as changes. */
async function rememberWrites(call: FinishedCall): Promise<void> {
  const files = call.ctx.session.get(seenFiles);
  for (const { real, write: { kind } } of await allWriteTargets(call.ctx)) {
    // By path: what is remembered only decides later checks, which look through the sandbox.
    const now = await lstat(real).catch(() => undefined);
    // An append adds to what the session may not have seen: the file is as if never read.
    if (!now?.isFile() || kind === "changes" || kind === "removes") {
      files.forget(real);
      continue;
    }
    if (kind !== "replaces" && kind !== "receives") continue;
    const sha = writtenDigest(real, now);
    files.set(real, seen(now, "wrote", sha));
    // A small file's text, for a diff should it change: read back only when not kept already.
    if (sha && now.size <= SMALL_FILE && !keptText(sha)) {
      const sandbox = await callSandbox(call.ctx);
      const handle = await sandbox.openForReading(real).catch(() => undefined);
      const text = await handle?.readFile().finally(() => handle.close());
      if (text && sha256(text) === sha) keepText(sha, text);
    }
  }
}

/**
 * The check phase: a call that would replace a file changed since this session saw it is
 * refused before anything is kept or written. It waits for the calls ahead of it on its paths
 * (ctx.writes.turn): one of this session's, still under way, changes the file as this session's
 * own change, and another's is one this session has not seen.
 */
export const seenFilesHook = defineToolHook({
  name: "seen_files",
  phase: "check",
  before(tool: Tool, ctx: ToolContext, args: Record<string, unknown>) {
    const force = tool.writes?.force;
    const forced = force !== undefined && args[force] === true;
    if (tool.writes?.atRunTime && !forced) {
      ctx.writes.onWillWrite((named) => refuseChanged(tool, ctx, named));
    }
    const writes = ctx.writes.planned;
    // Decided at once for the common call: it writes nothing, is forced, or replaces nothing.
    if (writes.length === 0 || forced || !writes.some(replacing)) return;
    const turn = ctx.writes.turn;
    // Nothing seen by this session and no earlier call under way on the path: nothing to check.
    if (!turn || turn.free) {
      return ctx.session.get(seenFiles).size === 0 ? undefined : refuseChanged(tool, ctx, writes);
    }
    return turn.ready.then(() => refuseChanged(tool, ctx, writes));
  },
  finished(call: FinishedCall) {
    const writes = call.ctx.writes;
    const wrote = writes.planned.length + writes.named.length > 0;
    if (call.outcome !== "ok" || !wrote) return;
    return rememberWrites(call).catch(() => {});
  },
});
