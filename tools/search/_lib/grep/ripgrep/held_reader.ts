/**
 * What keeps rg's answers inside the roots. rg walks and opens files by name and follows a
 * symbolic link given to it, so a file (or a directory) swapped for a link while it runs can make
 * it read bytes from outside. Every file rg reports is therefore read again here, beneath the
 * searched directory held open (the sandbox's Dir: each component entered without following a
 * link, the file opened so and required to be a regular file), and only what that content
 * confirms is kept: each line rg reported (matched or context) must be that very line of the
 * held file. A file whose held content disagrees is searched again by the built-in matcher on the
 * held content (or dropped, for a pattern the built-in matcher refuses); one that is not a regular
 * file inside any more is dropped. Only files with matches cost a second read.
 */
import { closeSync, fstatSync, readSync } from "node:fs";
import type { FileHandle } from "node:fs/promises";
import { join } from "node:path";
import { type Dir, openByPath } from "../../../../_lib/sandbox/mod.ts";
import { bomOf } from "../../../../_lib/text/text.ts";

const utf8 = new TextDecoder();

/**
 * The largest file read again: grep's own limit (grep_search.ts's MAX_FILE_BYTES, which rg is
 * given as --max-filesize); tests/search/grep_held_test.ts keeps the two equal.
 */
export const MAX_HELD_FILE_BYTES = 10 * 1024 * 1024;

/** A line without the CR of a CRLF ending, as grep reports it (grep_lines.ts's withoutCr). */
function withoutCr(line: string): string {
  return line.endsWith("\r") ? line.slice(0, -1) : line;
}

/** A file's text as rg reads it with --encoding=utf-8 (BOM dropped, invalid bytes U+FFFD). */
export function decodeAsRg(bytes: Uint8Array): string {
  const bom = bomOf(bytes);
  if (!bom) return utf8.decode(bytes);
  return new TextDecoder(bom.encoding).decode(bytes.subarray(bom.length));
}

/** Reads a regular file's bytes from an open handle, refusing anything else or a too large one. */
export async function regularBytes(handle: FileHandle): Promise<Uint8Array | undefined> {
  const info = await handle.stat();
  if (!info.isFile() || info.size > MAX_HELD_FILE_BYTES) return undefined;
  return await handle.readFile();
}

/**
 * Reads files below a directory held open, by their paths relative to it, in path order: the
 * directories on the way stay open while consecutive files share them.
 */
export class HeldReader {
  /** The directories entered below the top, with their names. */
  #stack: { name: string; dir: Dir }[] = [];
  /** The same for bytesSync(): directories entered below the top without waiting. */
  #synced: { name: string; dir: Dir }[] = [];
  /** Where bytesSync() reads a file, reused from one file to the next. */
  #buffer = new Uint8Array(64 * 1024);

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
      // No held directory (tests): by path, never following a link.
      if (!this.top) return await openByPath(join(this.topPath, rel), "read strictly");
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
      return await (this.#stack.at(-1)?.dir ?? this.top).openFile(name);
    } catch {
      return undefined;
    }
  }

  /**
   * Whether bytesSync() can be used: on Linux, where the directory is held by its descriptor and
   * each entry below it is reached from it.
   */
  get synchronous(): boolean {
    return this.top?.fd !== undefined;
  }

  /**
   * The bytes of `rel` beneath the held directory (as open() gives it; decodeAsRg() makes them
   * heldText()'s text), a view of a buffer the next call reuses. Read with
   * synchronous calls: a few microseconds each, where each asynchronous one is a trip through
   * the thread pool, and a search may read thousands of files. Each directory on the way is
   * entered without following a link (and kept while consecutive files share it); the file is
   * opened so and read only if it is a regular file within the size limit. Undefined when it
   * cannot be read so. Only when `synchronous`.
   */
  bytesSync(rel: string): Uint8Array | undefined {
    const parts = rel.split("/");
    if (parts.some((p) => p === "" || p === "." || p === "..")) return undefined;
    const name = parts.pop()!;
    let shared = 0;
    while (
      shared < this.#synced.length && shared < parts.length &&
      this.#synced[shared].name === parts[shared]
    ) shared++;
    for (const left of this.#synced.splice(shared)) void left.dir.close();
    let fd: number;
    try {
      for (const part of parts.slice(shared)) {
        const dir = (this.#synced.at(-1)?.dir ?? this.top!).childSync(part);
        if (!dir) return undefined;
        this.#synced.push({ name: part, dir });
      }
      fd = (this.#synced.at(-1)?.dir ?? this.top!).openFileSync(name);
    } catch {
      return undefined;
    }
    try {
      const info = fstatSync(fd);
      if (!info.isFile() || info.size > MAX_HELD_FILE_BYTES) return undefined;
      // Read to the end: the file may have grown since.
      if (this.#buffer.length <= info.size) this.#buffer = new Uint8Array(info.size + 4096);
      let length = 0;
      for (;;) {
        if (length === this.#buffer.length) {
          if (length > MAX_HELD_FILE_BYTES) return undefined;
          const bigger = new Uint8Array(length * 2);
          bigger.set(this.#buffer);
          this.#buffer = bigger;
        }
        const got = readSync(fd, this.#buffer, length, this.#buffer.length - length, null);
        if (got === 0) break;
        length += got;
        // The size fstat gave, and room left: the end, without one more call to find it. (Had
        // the file grown meanwhile, its lines are checked against what was read, as ever.)
        if (length >= info.size && length < this.#buffer.length) break;
      }
      return length > MAX_HELD_FILE_BYTES ? undefined : this.#buffer.subarray(0, length);
    } catch {
      return undefined;
    } finally {
      closeSync(fd);
    }
  }

  async close(): Promise<void> {
    for (const { dir } of this.#stack.splice(0)) await dir.close();
    for (const { dir } of this.#synced.splice(0)) await dir.close();
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

/**
 * Whether every line rg reported is that line of `text` (a "\r" before the break aside). The
 * lines come in increasing order (rg's): the text is walked once, only as far as the last one.
 */
export function confirms(text: string, reported: { number: number; text: string }[]): boolean {
  let line = 1;
  let start = 0;
  for (const { number, text: wanted } of reported) {
    if (number < line) return confirmsAnyOrder(text, reported);
    for (; line < number; line++) {
      const newline = text.indexOf("\n", start);
      if (newline < 0) return false;
      start = newline + 1;
    }
    // A final line break ends the last line; it starts none.
    if (start >= text.length) return false;
    const end = text.indexOf("\n", start);
    if (withoutCr(text.slice(start, end < 0 ? text.length : end)) !== withoutCr(wanted)) {
      return false;
    }
  }
  return true;
}

function confirmsAnyOrder(text: string, reported: { number: number; text: string }[]): boolean {
  const lines = text.split("\n");
  if (lines.at(-1) === "") lines.pop();
  return reported.every(({ number, text }) => {
    const line = lines[number - 1];
    return line !== undefined && withoutCr(line) === withoutCr(text);
  });
}

const encoder = new TextEncoder();

/**
 * confirms() on a file's bytes, without decoding them: true when each reported line is, byte for
 * byte, that line of the file in UTF-8 (a "\r" before the break aside). The decoded text would
 * then confirm them too: a "\n" byte is always a line break, and valid UTF-8 decodes to itself.
 * False says nothing (a line with invalid bytes, lines out of order): decode and ask confirms().
 * Not for a file with a BOM, whose lines rg reports decoded.
 */
export function confirmsBytes(
  bytes: Uint8Array,
  reported: { number: number; text: string }[],
): boolean {
  let line = 1;
  let start = 0;
  for (const { number, text } of reported) {
    if (number < line) return false;
    for (; line < number; line++) {
      const newline = bytes.indexOf(0x0a, start);
      if (newline < 0) return false;
      start = newline + 1;
    }
    // A final line break ends the last line; it starts none.
    if (start >= bytes.length) return false;
    let end = bytes.indexOf(0x0a, start);
    if (end < 0) end = bytes.length;
    if (end > start && bytes[end - 1] === 0x0d) end--;
    if (!isUtf8Of(bytes, start, end, withoutCr(text))) return false;
  }
  return true;
}

/** Whether bytes[start, end) are `text` in UTF-8: ASCII compared in place, the rest encoded. */
function isUtf8Of(bytes: Uint8Array, start: number, end: number, text: string): boolean {
  if (end - start < text.length) return false; // never fewer bytes than UTF-16 units
  let at = start;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit >= 0x80) {
      const rest = encoder.encode(text.slice(i));
      if (end - at !== rest.length) return false;
      for (let j = 0; j < rest.length; j++) if (bytes[at + j] !== rest[j]) return false;
      return true;
    }
    if (bytes[at++] !== unit) return false;
  }
  return at === end;
}
