/**
 * The filesystem sandbox: every path a file tool touches must lie inside one of the allowed
 * roots after symlinks are resolved, including the parent of a file that does not exist yet.
 * Containment is checked on whole path segments, so /work/app2 is not inside /work/app.
 */
import { constants } from "node:fs";
import { type FileHandle, open, realpath, stat } from "node:fs/promises";
import { homedir } from "node:os";
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
import { type ToolContext, ToolError } from "../../mcp/tool.ts";

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

export class Sandbox {
  /** `roots` must already be real, absolute paths. */
  private constructor(readonly roots: string[]) {}

  /** The sandbox of a call: its roots, each resolved to its real path. */
  static async of(ctx: Pick<ToolContext, "roots">): Promise<Sandbox> {
    const requested = await ctx.roots();
    const roots: string[] = [];
    for (const root of requested) {
      try {
        roots.push(await realpath(root));
      } catch {
        // A root that does not exist allows nothing.
      }
    }
    if (roots.length === 0) {
      throw new ToolError(`none of the allowed roots exists: ${requested.join(", ")}`);
    }
    return new Sandbox(roots);
  }

  /** Where relative paths start. */
  get base(): string {
    return this.roots[0];
  }

  contains(real: string): boolean {
    return this.roots.some((root) =>
      real === root || real.startsWith(root.endsWith(sep) ? root : root + sep)
    );
  }

  /**
   * Resolves `path` (relative ones against the first root) and checks it. Refuses with a message
   * naming the path and the roots when it is, or leads, outside them.
   */
  async resolve(path: string): Promise<ResolvedPath> {
    if (path.includes("\0")) {
      throw new ToolError(`path ${JSON.stringify(path)} contains a NUL byte`);
    }
    const expanded = path === "~" || path.startsWith("~/") ? homedir() + path.slice(1) : path;
    const absolute = resolve(this.base, expanded);
    let real: string;
    let exists = true;
    try {
      real = await realpath(absolute);
    } catch (error) {
      if (!isMissing(error)) {
        throw new ToolError(`cannot resolve ${JSON.stringify(path)}: ${(error as Error).message}`);
      }
      exists = false;
      real = await this.#realMissing(absolute);
    }
    if (!this.contains(real)) {
      const via = real === absolute ? "" : ` (it resolves to ${real})`;
      throw new ToolError(
        `${JSON.stringify(path)} is outside the allowed roots${via}. Allowed roots: ${
          this.roots.join(", ")
        }. Use a path inside them.`,
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

  /**
   * Opens a resolved real path for reading, then makes sure it still is that file: had a
   * directory on the way been swapped for a symlink meanwhile, open() would have followed it.
   */
  async openForReading(real: string): Promise<FileHandle> {
    // Non-blocking: a FIFO swapped in after the caller's stat must not hang the open (and with
    // it the read lock every writer waits on). Reads of regular files are unaffected.
    const handle = await open(real, constants.O_RDONLY | constants.O_NONBLOCK).catch(
      (error: Error) => {
        throw new ToolError(`cannot open ${this.display(real)}: ${error.message}`);
      },
    );
    const [opened, now] = await Promise.all([handle.stat(), realpath(real).catch(() => "")]);
    const current = now === real ? await stat(real).catch(() => null) : null;
    if (!current || current.ino !== opened.ino || current.dev !== opened.dev) {
      await handle.close();
      throw new ToolError(`${this.display(real)} changed while it was being opened; try again`);
    }
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

/** Missing, or a file where a directory was expected: either way the path does not exist. */
function isMissing(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException).code;
  return code === "ENOENT" || code === "ENOTDIR";
}
