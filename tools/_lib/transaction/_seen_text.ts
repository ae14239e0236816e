/**
 * The text of small files as sessions read them, by digest, so a refusal can show the first lines
 * that changed since. Shared by every session of the server (the same content is kept once) and
 * bounded in bytes: the oldest are forgotten first, and then a refusal gives sizes and times only.
 */
import { Buffer } from "node:buffer";

/** Bytes of text kept in all. */
const BUDGET = 2 << 20;

/** Lines shown of each side of the first difference, and characters of each line. */
const SHOWN_LINES = 3;
const LINE_CHARS = 160;

const byDigest = new Map<string, Uint8Array>();
let kept = 0;

/** Keeps `bytes` (a small file's content) under its digest `sha`. */
export function keepText(sha: string, bytes: Uint8Array): void {
  const known = byDigest.get(sha);
  if (known) {
    byDigest.delete(sha);
    byDigest.set(sha, known);
    return;
  }
  byDigest.set(sha, Uint8Array.from(bytes));
  kept += bytes.length;
  while (kept > BUDGET) {
    const [oldest, value] = byDigest.entries().next().value!;
    byDigest.delete(oldest);
    kept -= value.length;
  }
}

/** The content kept under `sha`, if it still is. */
export function keptText(sha: string): Uint8Array | undefined {
  return byDigest.get(sha);
}

function shown(line: string): string {
  return line.length > LINE_CHARS ? `${line.slice(0, LINE_CHARS)}…` : line;
}

/**
 * The first lines that differ between two versions, in the style of a diff (`-` then, `+` now),
 * at most SHOWN_LINES of each; empty when either is not text.
 */
export function firstDifference(before: Uint8Array, after: Uint8Array): string {
  const decode = (bytes: Uint8Array) => {
    const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString("utf8");
    return text.includes("\u0000") ? undefined : text.split(/\r?\n/);
  };
  const was = decode(before);
  const now = decode(after);
  if (!was || !now) return "";
  let start = 0;
  while (start < was.length && start < now.length && was[start] === now[start]) start++;
  let end = 0;
  while (
    end < was.length - start && end < now.length - start &&
    was[was.length - 1 - end] === now[now.length - 1 - end]
  ) end++;
  const removed = was.slice(start, was.length - end);
  const added = now.slice(start, now.length - end);
  const side = (lines: string[], mark: string) => [
    ...lines.slice(0, SHOWN_LINES).map((line) => `${mark}${shown(line)}`),
    ...(lines.length > SHOWN_LINES ? [`${mark}[… ${lines.length - SHOWN_LINES} more lines]`] : []),
  ];
  return [`@@ line ${start + 1} @@`, ...side(removed, "-"), ...side(added, "+")].join("\n");
}
