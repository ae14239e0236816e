/**
 * A long match event in multiline mode, read as it arrives without holding all its submatches:
 * on a long line of matches rg sends millions of them (2.8 GB held for 20 files of one 10 MB
 * line each). grep reads of an event's submatches only where each line's first match starts and
 * which lines a match runs into (matchEventLines), so a submatch is kept only when it reaches a
 * line no kept one has reached; submatches come in order and never overlap, so the lines marked
 * are the same. The event is rebuilt with those submatches (their text left empty: unused).
 */
import { lineIndexAt } from "../lines.ts";

/** An event's `lines`: UTF-8 text, or base64 bytes when it was not valid UTF-8. */
type Lines = { text: string } | { bytes: string };

const encoder = new TextEncoder();

const SUBMATCHES = '"submatches":[';
/** A submatch's offsets: keys, as quotes inside JSON strings are escaped. */
const OFFSETS = /"start":(\d+),"end":(\d+)\}/g;
/** Enough of a scanned piece's end to hold the start of one more submatch's offsets. */
const CARRY = 64;

export class MultilineEventCut {
  #kept: string[] = [];
  /** The last line a kept submatch reaches (-1: none yet). */
  #reached = -1;
  /** Text after the last offsets found, not yet complete. */
  #pending = "";

  private constructor(readonly prefix: string, readonly starts: number[]) {}

  /**
   * The cut for an event whose beginning is `head`, once `head` reaches its submatches; undefined
   * before then, or for any other event (then it is held whole, as before).
   */
  static start(head: string): MultilineEventCut | undefined {
    if (!head.startsWith('{"type":"match"')) return undefined;
    const list = head.indexOf(SUBMATCHES);
    if (list < 0) return undefined;
    const prefix = head.slice(0, list + SUBMATCHES.length);
    let lines: Lines;
    try {
      lines = JSON.parse(`${prefix}]}}`).data.lines;
    } catch {
      return undefined;
    }
    // Where each line of the event starts, in bytes (as matchEventLines counts them).
    const bytes = "text" in lines
      ? encoder.encode(lines.text)
      : Uint8Array.from(atob(lines.bytes), (c) => c.charCodeAt(0));
    const starts = [0];
    for (let i = bytes.indexOf(0x0a); i >= 0 && i + 1 < bytes.length;) {
      starts.push(i + 1);
      i = bytes.indexOf(0x0a, i + 1);
    }
    const cut = new MultilineEventCut(prefix, starts);
    cut.feed(head.slice(prefix.length));
    return cut;
  }

  /** The next piece of the event (without its closing line break). */
  feed(text: string): void {
    const scanned = this.#pending + text;
    OFFSETS.lastIndex = 0;
    let after = 0;
    for (let found = OFFSETS.exec(scanned); found; found = OFFSETS.exec(scanned)) {
      this.#consider(Number(found[1]), Number(found[2]));
      after = OFFSETS.lastIndex;
    }
    this.#pending = scanned.slice(Math.max(after, scanned.length - CARRY));
  }

  #consider(start: number, end: number): void {
    const last = end > start ? lineIndexAt(this.starts, end - 1) : lineIndexAt(this.starts, start);
    if (last <= this.#reached) return;
    this.#reached = last;
    this.#kept.push(`{"match":{"text":""},"start":${start},"end":${end}}`);
  }

  /** The event with the submatches kept, closed as rg closes it. */
  finish(rest: string): string {
    this.feed(rest);
    return `${this.prefix}${this.#kept.join(",")}]}}`;
  }
}
