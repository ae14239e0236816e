/**
 * No edit of a person or another agent is lost: toolhost remembers, per session, what each file was
 * when the session last read or wrote it (device, inode, size, modification time, and the digest
 * when known). A call that replaces a file (any tool declaring `replaces`, mcp/tool/writes.ts)
 * while that file has changed since is refused, with what changed, until the session reads it again
 * or the call passes the tool's `force` argument. A file the session never read or wrote is written
 * as before. Kept in the session (ctx.session), so two sessions never vouch for each other; any
 * change counts, made by bash, an editor or another server.
 */
import { Buffer } from "node:buffer";
import { createHash } from "node:crypto";
import type { Stats } from "node:fs";
import { type FileHandle, lstat } from "node:fs/promises";
import { normalize } from "node:path";
import {
  defineToolHook,
  type FinishedCall,
  Handoff,
  type PlannedWrite,
  SessionKey,
  type Tool,
  type ToolContext,
  ToolError,
} from "../../../mcp/tool/mod.ts";
import { resolveEntry, Sandbox, writtenDigest } from "../../_lib/sandbox/mod.ts";
import { bytes, duration } from "../../_lib/text/units.ts";
import { firstDifference, keepText, keptText } from "./seen_text.ts";

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

/** How long a call waits at most for the session's earlier write of its path (a backstop). */
const TURN_BACKSTOP_MS = 60_000;

class SeenFiles {
  #byPath = new Map<string, Seen>();
  /** The session's last write under way on each path (as given): the next one checks after it. */
  #writing = new Map<string, Promise<void>>();

  /**
   * A call's turn on `paths` within the session: a write the same client sent before, still under
   * way, changes the file as this session's own change, so the check waits until it is recorded.
   */
  takeTurn(paths: readonly string[]): { ready?: Promise<void>; end(): void } {
    const keys = [...new Set(paths.map((path) => normalize(path)))];
    let done!: () => void;
    const mine = new Promise<void>((resolve) => (done = resolve));
    const before = keys.flatMap((key) => this.#writing.get(key) ?? []);
    for (const key of keys) this.#writing.set(key, mine);
    const end = () => {
      done();
      for (const key of keys) if (this.#writing.get(key) === mine) this.#writing.delete(key);
    };
    if (before.length === 0) return { end };
    const ready = new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, TURN_BACKSTOP_MS);
      Promise.all(before).then(() => {
        clearTimeout(timer);
        resolve();
      });
    });
    return { ready, end };
  }

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

/** The real paths before() resolved, by the path as given, for finished(). */
const resolvedPaths = new Handoff<Map<string, string>>("the paths the check resolved");

/** Ends a call's turn on its paths, from before() to finished(). */
const turnEnd = new Handoff<() => void>("the end of a write's turn in its session");

const seenFiles = new SessionKey("the files this session read or wrote", () => new SeenFiles());

function sha256(data: Uint8Array): string {
  return createHash("sha256").update(data).digest("hex");
}

function seen(info: Stats, how: Seen["how"], sha?: string): Seen {
  const { dev, ino, size, mtimeMs } = info;
  return { dev, ino, size, mtimeMs, at: Date.now(), how, sha };
}

function unchanged(was: Seen, now: Stats): boolean {
  return was.dev === now.dev && was.ino === now.ino && was.size === now.size &&
    was.mtimeMs === now.mtimeMs;
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
  const sandbox = await Sandbox.of(ctx);
  // Handed to finished(), which then need not resolve them again.
  const resolved = new Map<string, string>();
  ctx.writes.give(resolvedPaths, resolved);
  for (const write of writes) {
    if (write.kind !== "replaces") continue;
    const target = await sandbox.resolve(write.path).catch(() => undefined);
    if (target) resolved.set(write.path, target.real);
    const was = target?.exists ? files.get(target.real) : undefined;
    if (!target || !was) continue;
    // By path first (the common file is unchanged); a change is looked at through the sandbox.
    const quick = await lstat(target.real).catch(() => undefined);
    if (quick && unchanged(was, quick)) continue;
    const now = await sandbox.info(target.real).catch(() => undefined);
    // Gone, or no longer a file: the tool says what it finds there.
    if (!now?.isFile() || unchanged(was, now)) continue;
    // The same size, new times or inode (touched, saved unchanged): the same content counts as
    // unchanged, when the digest from before is known.
    let text: Buffer | undefined;
    if (was.sha && now.size === was.size && now.size <= DIGEST_UP_TO) {
      const handle = await sandbox.openForReading(target.real);
      const read = await digestOf(handle, now.size).finally(() => handle.close());
      text = read.text;
      if (read.sha === was.sha) {
        files.set(target.real, { ...seen(now, was.how, was.sha), at: was.at });
        continue;
      }
    }
    throw new ToolError(
      await describeChange(tool, sandbox, target.real, was, now, text),
    );
  }
}

/** What changed in a file since the session saw it: sizes, times, and the first lines that differ. */
async function describeChange(
  tool: Tool,
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
  return `${tool.name} was refused: ${shown} changed since this session ${was.how} it ` +
    `${duration(Date.now() - was.at)} ago (${size}${replaced}; ${modified}), by another program, ` +
    `person or session: writing now would lose that change.${diff ? `\n${diff}\n` : " "}` +
    `Read it again (read_file) and make the change on what it holds now${
      force ? `, or pass ${force}: true to overwrite it` : ""
    }.`;
}

/** Remembers what the session's successful writes left, so its own writes never count as changes. */
async function rememberWrites(call: FinishedCall): Promise<void> {
  const writes = call.ctx.writes;
  const files = call.ctx.session.get(seenFiles);
  const checked = writes.take(resolvedPaths);
  // Asked for only when something is left to resolve or read.
  let held: Sandbox | undefined;
  const sandbox = async () => held ??= await Sandbox.of(call.ctx);
  const reals: { real: string; kind: PlannedWrite["kind"] }[] = [];
  for (const write of [...writes.planned, ...writes.named]) {
    const known = write.link ? undefined : checked?.get(write.path);
    const target = known ?? await resolveEntry(await sandbox(), write.path).then(
      (entry) => write.link ? entry.entry : entry.real,
      () => undefined,
    );
    if (target) reals.push({ real: target, kind: write.kind });
  }
  for (const real of writes.reported) reals.push({ real, kind: "replaces" });
  for (const { real, kind } of reals) {
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
      const handle = await (await sandbox()).openForReading(real).catch(() => undefined);
      const text = await handle?.readFile().finally(() => handle.close());
      if (text && sha256(text) === sha) keepText(sha, text);
    }
  }
}

export const seenFilesHook = defineToolHook({
  name: "seen_files",
  before(tool: Tool, ctx: ToolContext, args: Record<string, unknown>) {
    const force = tool.writes?.force;
    const forced = force !== undefined && args[force] === true;
    if (tool.writes?.atRunTime && !forced) {
      ctx.writes.onWillWrite((named) => refuseChanged(tool, ctx, named));
    }
    const writes = ctx.writes.planned;
    // Decided at once for the common call: it writes nothing.
    if (writes.length === 0) return;
    const files = ctx.session.get(seenFiles);
    const turn = files.takeTurn(writes.map((write) => write.path));
    ctx.writes.give(turnEnd, turn.end);
    // Nothing to check: forced, nothing replaced, or nothing seen and no write of this session
    // under way on the path.
    if (forced || !writes.some((write) => write.kind === "replaces")) return;
    if (!turn.ready) return files.size === 0 ? undefined : refuseChanged(tool, ctx, writes);
    return turn.ready.then(() => refuseChanged(tool, ctx, writes));
  },
  finished(call: FinishedCall) {
    const writes = call.ctx.writes;
    const end = writes.take(turnEnd);
    const wrote = writes.planned.length + writes.named.length + writes.reported.length > 0;
    if (call.outcome !== "ok" || !wrote) return end?.();
    return rememberWrites(call).catch(() => {}).finally(() => end?.());
  },
});
