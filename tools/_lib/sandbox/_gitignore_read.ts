/**
 * Reading ignore files without trusting them: only regular files of at most 1 MB, and a symbolic
 * link only when its target is such a file inside the sandbox. A FIFO would block the read forever
 * (and nothing can cancel a pending read), a link to /dev/zero would never end, and a link out of
 * the roots would let rules from anywhere decide what the tools show.
 */
import { constants } from "node:fs";
import { type FileHandle, lstat, open, realpath } from "node:fs/promises";
import { O_NOFOLLOW_ANY } from "./_beneath.ts";
import { describeEntry } from "./_entries.ts";
import { bytes } from "../text/units.ts";

export const MAX_IGNORE_FILE_BYTES = 1024 * 1024;

// Even if a FIFO or a link is swapped in between the check and the open: never wait, never follow.
const OPEN_FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0) | (constants.O_NOFOLLOW ?? 0) |
  O_NOFOLLOW_ANY;

export interface SkippedIgnoreFile {
  /** The ignore file's absolute path. */
  path: string;
  /** Why it was not read, as the end of a sentence about it: "is a FIFO (named pipe)...". */
  why: string;
}

/** Reads the ignore files of one call, and remembers the ones it would not read. */
export class IgnoreFileReader {
  readonly skipped: SkippedIgnoreFile[] = [];

  /**
   * `contains(real)`: whether a link's target may be read (Sandbox.contains). `inside(real)`
   * opens a real path beneath its root, never through a link (Sandbox.openForReading): a link's
   * target, and a file given by its path only, are opened so; without it a link is not followed.
   */
  constructor(
    private readonly contains: (real: string) => boolean,
    private readonly inside?: (real: string) => Promise<FileHandle>,
  ) {}

  /**
   * The file's text: "" when it is missing or was skipped (then it is in `skipped`). `at` is
   * where to open it when not by its path: an address beneath its open directory (_beneath.ts).
   */
  async read(path: string, at = path): Promise<string> {
    try {
      return await this.#read(path, at);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === "ENOENT" || code === "ENOTDIR") return "";
      return this.#skip(path, `could not be read (${code ?? (error as Error).message})`);
    }
  }

  async #read(path: string, at: string): Promise<string> {
    let target: string | undefined;
    let info = await lstat(at);
    if (info.isSymbolicLink()) {
      const real = await realpath(at).catch(() => undefined);
      if (real === undefined) return this.#skip(path, "is a broken symbolic link");
      if (!this.contains(real)) {
        return this.#skip(path, `is a symbolic link to ${real}, outside the allowed roots`);
      }
      if (!this.inside) return this.#skip(path, "is a symbolic link (not followed here)");
      target = real;
      info = await lstat(real);
    } else if (at === path && this.inside) {
      target = path; // given by path only: opened beneath its root
    }
    const notRegular = () => this.#skip(path, `is a ${describeEntry(info)}, not a regular file`);
    if (!info.isFile()) return notRegular();
    const tooLarge = (size: string) =>
      this.#skip(
        path,
        `is ${size}, over the ${bytes(MAX_IGNORE_FILE_BYTES)} limit for ignore files`,
      );
    if (info.size > MAX_IGNORE_FILE_BYTES) return tooLarge(bytes(info.size));
    // The link's target, or a file named by path, is opened beneath its root (its real path
    // walked one directory at a time, no link followed): what is read is inside the roots.
    const handle = target !== undefined && this.inside
      ? await this.inside(target)
      : await open(at, OPEN_FLAGS);
    try {
      info = await handle.stat();
      if (!info.isFile()) return notRegular();
      const buffer = new Uint8Array(MAX_IGNORE_FILE_BYTES + 1);
      let filled = 0;
      for (;;) {
        const { bytesRead } = await handle.read(buffer, filled, buffer.length - filled, filled);
        filled += bytesRead;
        if (bytesRead === 0 || filled === buffer.length) break;
      }
      if (filled > MAX_IGNORE_FILE_BYTES) return tooLarge(`over ${bytes(MAX_IGNORE_FILE_BYTES)}`);
      return new TextDecoder().decode(buffer.subarray(0, filled));
    } finally {
      await handle.close();
    }
  }

  #skip(path: string, why: string): string {
    this.skipped.push({ path, why });
    return "";
  }
}

/** A note for results about ignore files that were not read, or undefined when all were. */
export function skippedIgnoreNote(
  skipped: readonly SkippedIgnoreFile[],
  display: (path: string) => string,
): string | undefined {
  if (skipped.length === 0) return undefined;
  const shown = skipped.slice(0, 5).map((s) => `${display(s.path)} ${s.why}`);
  const more = skipped.length > 5 ? `; and ${skipped.length - 5} more` : "";
  return `[ignore files not read, so their rules were not applied: ${shown.join("; ")}${more}]`;
}
