/**
 * The edit transaction: the only way a tool replaces or creates a file's content, or puts a copy
 * or a moved entry in a path's place. It works on what the call declared (mcp/tool/writes.ts),
 * resolved once for the call (_targets.ts), under the file tools' lock, and for every write:
 *
 * 1. refuses a path the call did not declare (or name at run time) for that kind of write;
 * 2. refuses a file its owner made read-only;
 * 3. writes the new content beside the old file, never over it;
 * 4. waits until the journal holds the old file for undo (ctx.writes.replacing());
 * 5. checks the file is still the one this call vouched for: the version the session check
 *    found unchanged, else the one the transaction first saw ("changed meanwhile", one way);
 * 6. renames it into place, and says so one way (the hard-link note, the failure sentences).
 *
 * The hooks around the call do the rest, phase by phase: the gate may refuse it, the check
 * refuses a file changed since this session saw it, the journal keeps the old content, and the
 * observers look at the change (mcp/tool/tool.ts, HookPhase).
 */
import type { Stats } from "node:fs";
import { access, constants, type FileHandle } from "node:fs/promises";
import { basename, dirname } from "node:path";
import {
  type PlannedWrite,
  type RunTimeWrite,
  type ToolContext,
  ToolError,
} from "../../../mcp/tool/mod.ts";
import {
  type Dir,
  infoIfAny,
  makeDirectories,
  type Sandbox,
  whileChanging,
} from "../sandbox/mod.ts";
import { crlfOnly } from "../text/lines.ts";
import { type DecodedText, decodeText, encodeText } from "../text/text.ts";
import { type Content, writeFileAtomic, type Written as Wrote } from "./_atomic_write.ts";
import {
  allWriteTargets,
  callSandbox,
  resolution,
  resolvedAlready,
  resolveWrite,
  vouchedVersion,
} from "./_targets.ts";
import { sameVersion, type Version, versionOf } from "./_version.ts";

/** Files larger than this are edited with other means (sed, a script). */
export const MAX_EDITED_BYTES = 20 * 1024 * 1024;

/** A path a tool works on, as the transaction found it. */
export interface Target {
  /** The real path: for a declared write, by the call's one resolution (_targets.ts). */
  readonly real: string;
  /** How results show it (relative to the first root when inside it). */
  readonly shown: string;
  /** What was there when the transaction first looked (a link described, not followed). */
  readonly info?: Stats;
  readonly exists: boolean;
}

/** What a write did: its size, digest, and what the result says of it. */
export interface Written extends Wrote {
  /** For the result: empty, or that the replaced file's other hard links keep the old content. */
  readonly note: string;
}

/** How readText() refuses what it cannot edit: the tool, and what to use instead. */
export interface TextRules {
  /** The tool, for the size refusal. */
  tool: string;
  /** How to make a missing file ("create it with write_file"); none: "does not exist". */
  create?: string;
  /** What to use for a file too large, or one whose bytes an edit would change. */
  instead: string;
  /** The largest file read; MAX_EDITED_BYTES unless given. */
  maxBytes?: number;
  /** The refusal of a file that is not text, when the tool has its own. */
  notText?: string;
}

/** A text file as an edit reads it. */
export interface TextFile extends Target {
  /** Its bytes as read. */
  readonly bytes: Uint8Array;
  readonly decoded: DecodedText;
  /** Every line break is CRLF: `text` has them as LF, and encode() puts them back. */
  readonly crlf: boolean;
  /** The text, with CRLF line breaks as LF when `crlf`. */
  readonly text: string;
  /** `text` (LF) back in the file's own encoding, byte order mark and line breaks. */
  encode(text: string): Uint8Array;
}

/** The kinds of write that put new content (or a new entry) in a path's place. */
const PUTS: readonly PlannedWrite["kind"][] = ["replaces", "receives"];

/**
 * Runs `work` with the call's transaction, under the file tools' lock (changes alone, reads
 * shared): what the transaction checked stays true until the change is made.
 *
 * @example edit_file's shape
 * ```ts
 * return transaction(ctx, async (tx) => {
 *   const file = await tx.readText(await tx.target(args.path), {
 *     tool: "edit_file",
 *     create: "create it with write_file",
 *     instead: "use bash (sed, a script) instead",
 *   });
 *   const written = await tx.replace(file, file.encode(file.text.replace("a", "b")));
 *   return `Edited ${file.shown}${written.note}`;
 * });
 * ```
 */
export function transaction<T>(
  ctx: ToolContext,
  work: (tx: Transaction) => Promise<T>,
): Promise<T> {
  return whileChanging(async () => await work(new Transaction(ctx, await callSandbox(ctx))));
}

export class Transaction {
  /** What the transaction first saw at each real path: what a write there is checked against. */
  readonly #seen = new Map<string, Version | "absent">();
  /** Paths named `kept`: the tool checks and keeps them itself (undo), and may change them first. */
  readonly #ownChecks = new Set<string>();

  constructor(readonly ctx: ToolContext, readonly sandbox: Sandbox) {}

  /**
   * The path `path` (an argument as the call gave it) names: for a write the call declared, its
   * one resolution (a refusal when it lies outside the roots); otherwise resolved for reading
   * only (a dry run), which no write accepts. A declared file of content that exists must be
   * writable.
   */
  async target(path: string): Promise<Target> {
    const write = this.ctx.writes.planned.find((w) => w.path === path);
    let real: string;
    if (write) {
      const resolved = await resolution(this.ctx, write);
      if ("error" in resolved) throw resolved.error;
      real = resolved.target.real;
    } else {
      real = (await this.sandbox.resolve(path)).real;
    }
    const target = await this.#look(real);
    const content = write?.kind === "replaces" || write?.kind === "changes";
    if (content && target.info?.isFile()) await assertWritable(target);
    return target;
  }

  /**
   * Paths decided at run time (a rename across files), named before any is written: each is
   * resolved by the one rule (_targets.ts), two names of one file made one target (in order),
   * the hooks check and keep them (a refusal rejects, and nothing is written), and then they may
   * be written. `kept`: the tool keeps what they hold itself (undo).
   */
  async name(writes: readonly RunTimeWrite[]): Promise<Target[]> {
    const named: RunTimeWrite[] = [];
    for (const write of writes) {
      // By the one rule: the entry itself for `link`, where links lead for content.
      const real = await resolveWrite(this.sandbox, { ...write, link: write.link === true });
      if (named.some((w) => w.path === real)) continue;
      named.push({ ...write, path: real });
      resolvedAlready(this.ctx, real, real);
      if (write.kept) this.#ownChecks.add(real);
    }
    await this.ctx.writes.willWrite(named);
    const targets: Target[] = [];
    for (const { path } of named) targets.push(await this.#look(path));
    return targets;
  }

  /** Opens a target for reading, through the sandbox (no link followed on the way). */
  open(target: Target): Promise<FileHandle> {
    return this.sandbox.openForReading(target.real);
  }

  /**
   * Reads a target's text for an edit: it must exist, be a regular file within the size limit,
   * and be text whose every byte an edit keeps (no invalid sequences); refused with a sentence
   * naming what to do instead otherwise.
   */
  async readText(target: Target, rules: TextRules): Promise<TextFile> {
    const { shown, info } = target;
    if (!info) {
      throw new ToolError(`${shown} does not exist${rules.create ? `; ${rules.create}` : ""}`);
    }
    if (!info.isFile()) throw new ToolError(`${shown} is not a regular file`);
    const max = rules.maxBytes ?? MAX_EDITED_BYTES;
    if (info.size > max) {
      throw new ToolError(
        `${shown} is ${info.size} bytes, over the ${max}-byte limit for ${rules.tool}; ` +
          rules.instead,
      );
    }
    const handle = await this.open(target);
    const bytes: Uint8Array = await handle.readFile().finally(() => handle.close());
    const decoded = decodeText(bytes);
    if (!decoded) {
      throw new ToolError(
        rules.notText ?? `${shown} is a binary file; ${rules.tool} only edits text`,
      );
    }
    if (decoded.invalid > 0) {
      throw new ToolError(
        rules.notText ??
          `${shown} has ${decoded.invalid} byte sequences that are not valid ${decoded.encoding}; ` +
            `editing it here would change them. ${sentence(rules.instead)}.`,
      );
    }
    // Every line break CRLF: edited as LF, written back as CRLF, so edits may use either.
    const crlf = crlfOnly(decoded.text);
    return {
      ...target,
      bytes,
      decoded,
      crlf,
      text: crlf ? decoded.text.replaceAll("\r\n", "\n") : decoded.text,
      encode: (text) =>
        encodeText(crlf ? text.replaceAll("\n", "\r\n") : text, decoded.encoding, decoded.bom),
    };
  }

  /** Makes the missing directories above a target: the first one made, if any. */
  makeParents(target: Target): Promise<string | undefined> {
    return makeDirectories(this.sandbox, dirname(target.real));
  }

  /**
   * Replaces (or creates) the target's content, atomically: written beside it, renamed over it
   * once the journal holds the old file and the file is still the one this call saw. `verify`
   * sees what was written before it takes the name (a throw leaves the file as it was);
   * `meanwhile` is the caller's work while the disk takes the bytes.
   */
  async replace(
    target: Target,
    content: Content,
    options: { meanwhile?(): void; verify?(written: { size: number; sha?: string }): void } = {},
  ): Promise<Written> {
    await this.#declared(target, PUTS, "replace its content");
    let written: Wrote;
    try {
      written = await writeFileAtomic(target.real, content, this.sandbox, {
        // The journal then knows what the file holds without reading it back.
        digest: true,
        meanwhile: options.meanwhile,
        check: options.verify,
        beforeRename: () => this.#beforePutting(target),
      });
    } catch (error) {
      throw failed(target, error);
    }
    return { ...written, note: hardLinkNote(written.hardLinks) };
  }

  /**
   * Replaces several targets, every one or none: each new file is written beside its old one
   * and every check passes before any is renamed; should a rename fail after others were made,
   * those are put back as they were (`before`, the bytes read).
   */
  async replaceAll(files: readonly { target: Target; content: Uint8Array; before: Uint8Array }[]) {
    for (const { target } of files) await this.#declared(target, PUTS, "replace its content");
    let go!: () => void;
    let stop!: (error: unknown) => void;
    const allReady = new Promise<void>((resolve, reject) => {
      go = resolve;
      stop = reject;
    });
    allReady.catch(() => {});
    let waiting = files.length;
    const renamed: (typeof files)[number][] = [];
    const results = await Promise.allSettled(files.map(async (file) => {
      try {
        await writeFileAtomic(file.target.real, file.content, this.sandbox, {
          digest: true,
          beforeRename: async () => {
            await this.#beforePutting(file.target);
            if (--waiting === 0) go();
            // Every file written and checked, or none renamed.
            await allReady;
          },
        });
        renamed.push(file);
      } catch (error) {
        stop(error);
        throw error;
      }
    }));
    const failure = results.find((r): r is PromiseRejectedResult => r.status === "rejected");
    if (!failure) return;
    if (renamed.length === 0) {
      const error = failure.reason;
      if (error instanceof ToolError) throw error;
      throw new ToolError(`could not write the files: ${message(error)}; nothing was changed.`);
    }
    const restored = await Promise.all(
      renamed.map((file) =>
        writeFileAtomic(file.target.real, file.before, this.sandbox, { digest: true }).then(
          () => true,
          () => false,
        )
      ),
    );
    const lost = renamed.filter((_, i) => !restored[i]).map((file) => file.target.shown);
    throw new ToolError(
      `writing stopped: ${message(failure.reason)}; ` +
        (lost.length === 0
          ? `the ${renamed.length} file(s) already written were put back`
          : `these files could not be put back and hold the new content: ${lost.join(", ")}`),
    );
  }

  /**
   * Appends to the target (created when missing), in place: opened in its held parent, never
   * through a link, only a regular file, and never one with other hard links (their other names
   * may be outside the roots).
   */
  async append(target: Target, chunks: Iterable<Uint8Array>): Promise<void> {
    await this.#declared(target, ["changes"], "append to it");
    const { shown } = target;
    let handle: FileHandle;
    const { dir, name } = await this.sandbox.parent(target.real);
    try {
      handle = await dir.openForAppend(name);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      throw new ToolError(
        code === "ELOOP" || code === "EMLINK"
          ? `${shown} changed while it was being opened; try again`
          : `could not append to ${shown}: ${message(error)}`,
      );
    } finally {
      await dir.close();
    }
    try {
      const info = await handle.stat();
      if (!info.isFile()) {
        throw new ToolError(`${shown} is not a regular file; nothing was appended.`);
      }
      if (info.nlink > 1) {
        throw new ToolError(
          `${shown} has ${info.nlink} hard links; append would change them all (their other ` +
            `names may be outside the allowed roots). Nothing was appended; use write_file ` +
            `(mode "overwrite") with the whole new content to replace it under this name only.`,
        );
      }
      for (const chunk of chunks) await handle.writeFile(chunk);
      await handle.sync();
    } finally {
      await handle.close();
    }
  }

  /**
   * The target's parent directory held open, and its name there: where a copy is built under a
   * temporary name before commit() puts it in place. Close `dir` when done.
   */
  parentOf(target: Target): Promise<{ dir: Dir; name: string }> {
    return this.sandbox.parent(target.real);
  }

  /**
   * Puts entry `from` (a copy built beside the target, or the entry a move takes) in the
   * target's place, `into` (from parentOf()), by one rename, once the journal holds what was
   * there and it is still what this call saw.
   */
  async commit(
    target: Target,
    into: { dir: Dir; name: string },
    from: { dir: Dir; name: string },
  ): Promise<void> {
    await this.#declared(target, PUTS, "put something in its place");
    if (into.dir.pathOf(into.name) !== target.real) {
      throw new Error(`commit() into ${into.dir.pathOf(into.name)}, not ${target.real}`);
    }
    await this.#beforePutting(target);
    await from.dir.rename(from.name, into.dir, into.name);
    await into.dir.sync();
  }

  /** Looks at `real` (a link described), remembering the first look as what a write is checked against. */
  async #look(real: string): Promise<Target> {
    const info = await infoIfAny(this.sandbox, real);
    if (!this.#seen.has(real)) this.#seen.set(real, info ? versionOf(info) : "absent");
    return { real, shown: this.sandbox.display(real), info, exists: info !== undefined };
  }

  /** Refuses a target the call did not declare (or name at run time) for one of `kinds`. */
  async #declared(
    target: Target,
    kinds: readonly PlannedWrite["kind"][],
    what: string,
  ): Promise<void> {
    const targets = await allWriteTargets(this.ctx);
    if (targets.some((t) => t.real === target.real && kinds.includes(t.write.kind))) return;
    throw new ToolError(
      `${target.shown} is not a path this call declared it writes (${kinds.join(" or ")}), so ` +
        `nothing was done to ${basename(target.real)}: a tool may ${what} only for a path its ` +
        "`writes` declaration names for the call. This is a fault of the tool; please report it.",
    );
  }

  /**
   * Just before a rename: the journal holds the old file, and the file is still the version this
   * call vouched for (the session check's, else the transaction's first look), or still absent.
   */
  async #beforePutting(target: Target): Promise<void> {
    await this.ctx.writes.replacing();
    if (this.#ownChecks.has(target.real)) return;
    const was = vouchedVersion(this.ctx, target.real) ?? this.#seen.get(target.real);
    if (was === undefined) return;
    const now = await infoIfAny(this.sandbox, target.real);
    if (was === "absent") {
      if (!now) return;
      throw new ToolError(
        `${target.shown} was created meanwhile (by another program); nothing was written. Look ` +
          "at it first, then write again if it is still to be replaced.",
      );
    }
    if (now && sameVersion(was, versionOf(now))) return;
    throw new ToolError(
      `${target.shown} changed while it was being edited (by another program); nothing was ` +
        "written. Read it again and redo the change.",
    );
  }
}

/**
 * Refuses to replace a file its owner made read-only. The rename would replace it anyway (it
 * needs only the directory's permission), but that is not what a read-only file means.
 */
async function assertWritable(target: Target): Promise<void> {
  const ok = await access(target.real, constants.W_OK).then(() => true, () => false);
  if (!ok) {
    throw new ToolError(
      `${target.shown} is read-only for this user; make it writable first (chmod u+w) if you ` +
        "mean to change it.",
    );
  }
}

/** What to add to a result when the replaced file had other names. */
export function hardLinkNote(hardLinks: number): string {
  return hardLinks > 1
    ? ` (it had ${hardLinks} hard links: only this name has the new content; the others keep the old)`
    : "";
}

/** A write that failed, in one sentence: what failed, and that nothing was changed. */
function failed(target: Target, error: unknown): ToolError {
  if (error instanceof ToolError) return error;
  return new ToolError(
    `could not write ${target.shown}: ${message(error)}. ${
      target.exists ? "The file was left as it was." : "No file was created."
    }`,
  );
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** "use bash instead" as a sentence's start. */
function sentence(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
