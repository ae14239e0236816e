/**
 * Files toolhost opens by path, outside what the roots' held directories reach: its own state
 * (the journal, its locks, the undo store), skills, a search's file named by path where no
 * directory is held. Never blocking (a FIFO put in such a file's place must not hold the caller
 * for ever), and unless asked, never through a link at the end of the path. Inside the roots,
 * open through Sandbox and Dir instead, which never follow a link anywhere on the way.
 */
import { randomBytes } from "node:crypto";
import { constants } from "node:fs";
import { type FileHandle, open } from "node:fs/promises";
import { O_NOFOLLOW, O_NOFOLLOW_ANY, O_NONBLOCK } from "./_beneath.ts";

/**
 * How to open a file by path without following a link at its end, or blocking: the flags, for a
 * worker thread that opens by path itself (grep's search workers) and for readFile's `flag`.
 */
export const UNFOLLOWED_READ = constants.O_RDONLY | O_NOFOLLOW | O_NONBLOCK;

/**
 * UNFOLLOWED_READ, and on macOS no link in any component either (`"read strictly"`): for paths
 * inside the roots opened by path where no directory is held, which must not lead outside them.
 */
export const STRICT_READ = UNFOLLOWED_READ | O_NOFOLLOW_ANY;

/**
 * Opens `path` by path, never blocking on a FIFO: to read it (`"read"`: no link at its end,
 * ELOOP; `"read strictly"`: STRICT_READ; `"read through a link"`: a link to a file counts, as a
 * skill's SKILL.md may be one), or to append to it, creating it with `mode` when missing
 * (`"append"`, no link at its end). What was opened may still be no regular file: check before
 * reading or writing.
 *
 * @example The journal's append: one write, never through a link
 * ```ts
 * const handle = await openByPath(file, "append", 0o600);
 * ```
 */
export function openByPath(
  path: string,
  how: "read" | "read strictly" | "read through a link" | "append" = "read",
  mode = 0o600,
): Promise<FileHandle> {
  switch (how) {
    case "append": {
      const flags = constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | O_NOFOLLOW;
      return open(path, flags | O_NONBLOCK, mode);
    }
    case "read through a link":
      return open(path, constants.O_RDONLY | O_NONBLOCK);
    case "read strictly":
      return open(path, STRICT_READ);
    default:
      return open(path, UNFOLLOWED_READ);
  }
}

/** A short name for work in progress (short: long file names must still fit). */
export function temporaryName(): string {
  return `.toolhost-${randomBytes(6).toString("hex")}.tmp`;
}
