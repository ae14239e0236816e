/**
 * The filesystem sandbox: every path a file tool touches must lie inside one of the allowed
 * roots after symlinks are resolved, including the parent of a file that does not exist yet.
 * Containment is checked on whole path segments, so /work/app2 is not inside /work/app.
 */
import { bounded, quoted } from "../../../config/quote.ts";
import { realpathSync, type Stats } from "node:fs";
import { type FileHandle, lstat, realpath } from "node:fs/promises";
import { homedir } from "node:os";
import process from "node:process";
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
import { type ToolContext, ToolError } from "../../../mcp/tool/mod.ts";
import { Dir, NotADirectory } from "./_beneath.ts";
import { type HeldRoot, heldRoots, inPlace } from "./_held_roots.ts";
import { pathRulesFor } from "./_path_rules.ts";

/**
 * This platform's path rules (_path_rules.ts). Windows: case-insensitive containment, `\\?\` and
 * UNC forms, device names and alternate data streams refused. No root is held as a descriptor
 * there: the path is resolved (realpath: junctions, symlinks, 8.3 names) and checked, then used.
 */
const RULES = pathRulesFor(process.platform);

/**
 * Whether the real path `path` is `dir` or lies inside it, compared on whole segments by this
 * platform's rules (`/work/app2` is not inside `/work/app`; on Windows without regard to case):
 * the one place that decides which directory holds a path. For the roots, ask a Sandbox
 * (`contains`, `rootOf`); this is for other directories (a language server's, a skill's).
 *
 * @example
 * ```ts
 * isWithin("/work/app", "/work/app/src/a.ts"); // true
 * isWithin("/work/app", "/work/app2/a.ts"); // false
 * ```
 */
export function isWithin(dir: string, path: string): boolean {
  return RULES.contains(dir, path);
}

export interface ResolvedPath {
  /** The path as asked for, made absolute (`~` expanded), symlinks not resolved. */
  absolute: string;
  /**
   * The real path: symlinks resolved (for a missing path, those of its deepest existing parent;
   * for a dangling symlink, the link's own path, with `exists` false).
   */
  real: string;
  /** Whether something exists there. */
  exists: boolean;
}

/**
 * Why there are no roots: toolhost was started in / or the home directory without naming any,
 * and the client named none either (main.ts leaves the fallback empty then). Working on the whole
 * disk silently is what a newcomer never meant; naming such a root explicitly still works.
 */
const NO_ROOTS = "no directory is allowed: toolhost was started in / or in the home directory " +
  "without --root, and the client named no roots, so the file tools refuse rather than work on " +
  "the whole disk. Name the project's directory: --root DIR in the args of toolhost's entry in " +
  'the client\'s configuration, "roots" in the config file (~/.config/toolhost/config.jsonc or ' +
  ".toolhost.jsonc) or TOOLHOST_ROOTS, or roots offered by the client. A root of / or ~ is " +
  "allowed when named so explicitly.";

export class Sandbox {
  /** `roots` are the held roots' real paths (as established), in order. */
  private constructor(
    readonly roots: string[],
    readonly held: HeldRoot[],
    /** Roots whose path no longer names the directory established: they allow nothing. */
    readonly moved: HeldRoot[] = [],
    /** The list the roots were established from: kept alive (and held open) while in use. */
    readonly list?: readonly string[],
  ) {}

  /**
   * The sandbox of a call: its roots, each established once (see _held_roots.ts) and worked in
   * through the directory held then, never looked up by name again.
   */
  static async of(ctx: Pick<ToolContext, "roots">): Promise<Sandbox> {
    const requested = await ctx.roots();
    if (requested.length === 0) throw new ToolError(NO_ROOTS);
    const held: HeldRoot[] = [];
    const moved: HeldRoot[] = [];
    for (const root of await heldRoots(requested)) {
      // A root that does not exist allows nothing; one moved or replaced since, nothing either.
      if (root === undefined) continue;
      if (inPlace(root)) {
        if (!held.some((r) => r.path === root.path)) held.push(root);
      } else moved.push(root);
    }
    if (held.length === 0) {
      throw new ToolError(
        `none of the allowed roots ${moved.length > 0 ? "is usable" : "exists"}: ${
          requested.join(", ")
        }${movedNote(moved)}`,
      );
    }
    return new Sandbox(held.map((r) => r.path), held, moved, requested);
  }

  /** Where relative paths start. */
  get base(): string {
    return this.roots[0];
  }

  /** Whether the real path `real` lies in one of the roots (or is one). */
  contains(real: string): boolean {
    return this.roots.some((root) => RULES.contains(root, real));
  }

  /** The innermost root that holds the real path `real` (nested roots: the deepest), if any. */
  rootOf(real: string): string | undefined {
    let found: string | undefined;
    for (const root of this.roots) {
      if (RULES.contains(root, real) && (found === undefined || root.length > found.length)) {
        found = root;
      }
    }
    return found;
  }

  /** Whether `real` is a root or holds one: a directory a tool must never remove or move. */
  holdsRoot(real: string): boolean {
    return this.roots.some((root) => RULES.contains(real, root));
  }

  /**
   * Resolves `path` (relative ones against the first root) and checks it. Refuses with a message
   * naming the path and the roots when it is, or leads, outside them.
   */
  async resolve(path: string): Promise<ResolvedPath> {
    if (path.includes("\0")) {
      throw new ToolError(`path ${quoted(path)} contains a NUL byte`);
    }
    const problem = RULES.problem(path);
    if (problem) throw new ToolError(`path ${quoted(path)} ${problem}`);
    const expanded = path === "~" || path.startsWith("~/") ? homedir() + path.slice(1) : path;
    const absolute = resolve(this.base, expanded);
    let real: string;
    let exists = true;
    try {
      // Synchronously: one call of a few microseconds (realpath's own, as the promise's is),
      // where a trip through the event loop's thread pool took 30-100 µs of every call.
      real = realpathSync.native(absolute);
    } catch (error) {
      if (!isMissing(error)) {
        throw new ToolError(
          `cannot resolve ${quoted(path)}: ${bounded((error as Error).message, 300)}`,
        );
      }
      exists = false;
      real = await this.#realMissing(absolute);
    }
    if (!this.contains(real)) {
      const via = real === absolute ? "" : ` (it resolves to ${bounded(real, 300)})`;
      throw new ToolError(
        `${quoted(path)} is outside the allowed roots${via}. Allowed roots: ${
          this.roots.join(", ")
        }. Use a path inside them.${movedNote(this.moved)}`,
      );
    }
    return { absolute, real, exists };
  }

  /** A path that does not exist: the real path of its deepest existing parent, plus the rest. */
  async #realMissing(absolute: string): Promise<string> {
    let parent = dirname(absolute);
    const rest = [basename(absolute)];
    for (;;) {
      try {
        return join(await realpath(parent), ...rest);
      } catch (error) {
        if (!isMissing(error) || parent === dirname(parent)) {
          throw new ToolError(`cannot resolve ${absolute}: ${(error as Error).message}`);
        }
        rest.unshift(basename(parent));
        parent = dirname(parent);
      }
    }
  }

  /** The innermost root that holds `real`, and the components of `real` below it. */
  #below(real: string): { root: string; parts: string[] } {
    const root = this.rootOf(real);
    if (root === undefined) {
      throw new ToolError(
        `${real} is outside the allowed roots. Allowed roots: ${this.roots.join(", ")}.`,
      );
    }
    return { root, parts: relative(root, real).split(sep).filter((part) => part !== "") };
  }

  /**
   * Opens the directory at `real` (a path resolve() gave) by walking down from its root one
   * component at a time, never following a symbolic link: whatever another process renames
   * meanwhile, the directory returned is inside the root. With `create`, missing directories
   * are made on the way (`created` is the first one made). A link met on the way means the tree
   * changed since the path was resolved: refused. Something else in the way (or nothing, without
   * `create`) throws NotADirectory, whose `code` is ENOTDIR or ENOENT. Close what it returns.
   */
  async directory(real: string, create = false): Promise<{ dir: Dir; created?: string }> {
    const { root, parts } = this.#below(real);
    const held = this.held.find((r) => r.path === root)!;
    let dir = await Dir.root(root, held.handle, held).catch(async (error) => {
      throw await this.#changed(real, error);
    });
    let created: string | undefined;
    try {
      for (const part of parts) {
        const next = await dir.child(part, create);
        await dir.close();
        dir = next.dir;
        if (next.created) created ??= next.dir.path;
      }
      return { dir, created };
    } catch (error) {
      await dir.close();
      throw await this.#changed(real, error);
    }
  }

  /**
   * The directory holding `real`, opened as directory() does, and the entry's name in it. The
   * entry itself is not looked at: the caller acts on `dir.at(name)`. Close `dir` when done.
   */
  async parent(
    real: string,
    create = false,
  ): Promise<{ dir: Dir; name: string; created?: string }> {
    if (this.roots.includes(real)) {
      throw new ToolError(`${this.display(real)} is an allowed root; it has no parent to work in.`);
    }
    const { dir, created } = await this.directory(dirname(real), create);
    return { dir, name: basename(real), created };
  }

  /** What is at `real` (a link is described, not followed), looked at beneath its root. */
  async info(real: string): Promise<Stats> {
    const root = this.held.find((r) => r.path === real);
    if (root) return root.handle ? await root.handle.stat() : await lstat(real);
    const now = await this.#infoNow(real);
    if (now) return now;
    const { dir, name } = await this.parent(real);
    try {
      return await dir.lstat(name);
    } finally {
      await dir.close();
    }
  }

  /**
   * info() without waiting on the event loop, where the root is held open: each directory on the
   * way entered as childSync does (never through a link), the entry looked at with one lstat
   * beneath it, microseconds in all. Undefined when that does not work out (something on the way
   * is not a directory, the entry is gone): info() then looks again its usual way and says why.
   */
  async #infoNow(real: string): Promise<Stats | undefined> {
    const { root, parts } = this.#below(real);
    const held = this.held.find((r) => r.path === root);
    if (!held?.handle || parts.length === 0) return undefined;
    let dir: Dir;
    try {
      dir = await Dir.root(root, held.handle, held);
    } catch {
      return undefined;
    }
    try {
      for (const part of parts.slice(0, -1)) {
        const next = dir.childSync(part);
        if (!next) return undefined;
        await dir.close();
        dir = next;
      }
      return dir.lstatSync(parts[parts.length - 1]);
    } catch {
      return undefined;
    } finally {
      await dir.close();
    }
  }

  /**
   * A symbolic link met where resolve() saw none: the tree changed, so the call is refused. A
   * link that leads nowhere is what resolve() saw (it stops there): a plain NotADirectory.
   */
  async #changed(real: string, error: unknown): Promise<unknown> {
    if (!(error instanceof NotADirectory)) return error;
    if (error.code === "ENOENT" || (error.info && !error.info.isSymbolicLink())) return error;
    if (error.info && await realpath(error.path).then(() => false, () => true)) return error;
    return new ToolError(
      `${this.display(real)} changed while it was being opened (${
        this.display(error.path)
      } is no longer the directory it was); try again`,
    );
  }

  /**
   * Opens a resolved real path for reading beneath its root, never through a symbolic link, and
   * makes sure it is a regular file: whatever was renamed since resolve(), no byte from outside
   * the roots is read.
   */
  async openForReading(real: string): Promise<FileHandle> {
    let handle: FileHandle;
    try {
      const { dir, name } = await this.parent(real);
      try {
        // Non-blocking: a FIFO swapped in after the caller's stat must not hang the open (and
        // with it the read lock every writer waits on). Reads of regular files are unaffected.
        handle = await dir.openFile(name);
      } finally {
        await dir.close();
      }
    } catch (error) {
      if (error instanceof ToolError) throw error;
      const code = (error as NodeJS.ErrnoException).code;
      if (code === "ELOOP" || code === "EMLINK") {
        throw new ToolError(`${this.display(real)} changed while it was being opened; try again`);
      }
      throw new ToolError(`cannot open ${this.display(real)}: ${(error as Error).message}`);
    }
    const opened = await handle.stat();
    if (!opened.isFile()) {
      await handle.close();
      throw new ToolError(`${this.display(real)} is not a regular file; only files can be read`);
    }
    return handle;
  }

  /** How a real path reads in results: relative to the first root when inside it. */
  display(real: string): string {
    const inside = relative(this.base, real);
    const outside = inside === ".." || inside.startsWith(`..${sep}`) || isAbsolute(inside);
    return inside === "" ? "." : outside ? real : inside;
  }
}

/** What refusals add about roots that were moved or replaced since they were established. */
function movedNote(moved: HeldRoot[]): string {
  if (moved.length === 0) return "";
  const paths = moved.map((r) => r.path).join(", ");
  return ` (${paths}: moved or replaced since the server established ${
    moved.length === 1 ? "it" : "them"
  } as allowed roots, so nothing there is allowed until the roots are set again)`;
}

/** Missing, or a file where a directory was expected: either way the path does not exist. */
function isMissing(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException).code;
  return code === "ENOENT" || code === "ENOTDIR";
}
