/**
 * What keeps rg's answers inside the roots. rg walks and opens files by name and follows a
 * symbolic link given to it, so a file (or a directory) swapped for a link while it runs can make
 * it read bytes from outside. Every file rg reports is therefore read again here, beneath the
 * searched directory held open (beneath.ts: each component entered with O_NOFOLLOW, the file
 * opened with O_NOFOLLOW and required to be a regular file), and only what that content confirms
 * is kept: each line rg reported (matched or context) must be that very line of the held file.
 * A file whose held content disagrees is searched again by the built-in matcher on the held
 * content (or dropped, for a pattern the built-in matcher refuses); one that is not a regular
 * file inside any more is dropped. Only files with matches cost a second read.
 */
import { constants } from "node:fs";
import { type FileHandle, open } from "node:fs/promises";
import { join } from "node:path";
import { type Dir, O_NOFOLLOW, O_NOFOLLOW_ANY, O_NONBLOCK } from "../../_lib/beneath.ts";
import { bomOf } from "../../_lib/text.ts";
import { withoutCr } from "./grep_lines.ts";
import { MAX_FILE_BYTES } from "./grep_search.ts";

/** A file's text as rg reads it with --encoding=utf-8 (BOM dropped, invalid bytes U+FFFD). */
export function decodeAsRg(bytes: Uint8Array): string {
  const bom = bomOf(bytes);
  return new TextDecoder(bom?.encoding ?? "utf-8").decode(bytes.subarray(bom?.length ?? 0));
}

/** Reads a regular file's bytes from an open handle, refusing anything else or a too large one. */
export async function regularBytes(handle: FileHandle): Promise<Uint8Array | undefined> {
  const info = await handle.stat();
  if (!info.isFile() || info.size > MAX_FILE_BYTES) return undefined;
  return await handle.readFile();
}

/**
 * Reads files below a directory held open, by their paths relative to it, in path order: the
 * directories on the way stay open while consecutive files share them.
 */
export class HeldReader {
  /** The directories entered below the top, with their names. */
  #stack: { name: string; dir: Dir }[] = [];

  constructor(readonly top: Dir | undefined, readonly topPath: string) {}

  /**
   * Opens `rel` for reading beneath the held directory (undefined when nothing can be opened
   * there without following a link); heldText() then reads it.
   */
  async open(rel: string): Promise<FileHandle | undefined> {
    const parts = rel.split("/");
    if (parts.some((p) => p === "" || p === "." || p === "..")) return undefined;
    const name = parts.pop()!;
    try {
      if (!this.top) {
        // No held directory (tests): by path, never following a link in the last component.
        const handle = await open(
          join(this.topPath, rel),
          constants.O_RDONLY | O_NOFOLLOW | O_NOFOLLOW_ANY | O_NONBLOCK,
        );
        return handle;
      }
      let shared = 0;
      while (
        shared < this.#stack.length && shared < parts.length &&
        this.#stack[shared].name === parts[shared]
      ) shared++;
      for (const left of this.#stack.splice(shared)) await left.dir.close();
      for (const part of parts.slice(shared)) {
        const at = this.#stack.at(-1)?.dir ?? this.top;
        this.#stack.push({ name: part, dir: (await at.child(part)).dir });
      }
      const within = this.#stack.at(-1)?.dir ?? this.top;
      return await within.open(name, constants.O_RDONLY | O_NONBLOCK);
    } catch {
      return undefined;
    }
  }

  async close(): Promise<void> {
    for (const { dir } of this.#stack.splice(0)) await dir.close();
  }
}

/** The text of a file HeldReader opened (and closes), or undefined when it is no regular file. */
export async function heldText(handle: FileHandle | undefined): Promise<string | undefined> {
  if (!handle) return undefined;
  try {
    const bytes = await regularBytes(handle);
    return bytes && decodeAsRg(bytes);
  } catch {
    return undefined;
  } finally {
    await handle.close();
  }
}

/** Whether every line rg reported is that line of `text` (a "\r" before the break aside). */
export function confirms(text: string, reported: { number: number; text: string }[]): boolean {
  const lines = text.split("\n");
  if (lines.at(-1) === "") lines.pop();
  return reported.every(({ number, text }) => {
    const line = lines[number - 1];
    return line !== undefined && withoutCr(line) === withoutCr(text);
  });
}
