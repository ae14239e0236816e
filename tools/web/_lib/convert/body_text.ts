/**
 * A fetched body that is not converted as HTML, made ready for the model: text decoded in its
 * charset, JSON pretty-printed, an image as base64. Big JSON and images are done in the
 * converter's worker (pool.ts), so that JSON.parse and stringify of ten megabytes do not
 * hold the main thread; this module is the work itself, the same in place and in the worker.
 */
import { Buffer } from "node:buffer";
import { decodeText } from "../http/charset.ts";

/** What to make of the body: its text, its text as pretty-printed JSON, or base64. */
export type BodyTextKind = "text" | "json" | "base64";

export interface BodyTextJob {
  kind: BodyTextKind;
  body: Uint8Array;
  /** The response's Content-Type, for the charset. */
  contentType?: string;
}

export function bodyText({ kind, body, contentType }: BodyTextJob): string {
  if (kind === "base64") {
    return Buffer.from(body.buffer, body.byteOffset, body.length).toString("base64");
  }
  const text = decodeText(body, contentType);
  if (kind === "json" && prettyLengthAtMost(text) <= MAX_PRETTY_CHARS) {
    try {
      return JSON.stringify(JSON.parse(text), null, 2);
    } catch {
      // Not valid JSON after all (or cut by the download cap): pass it through as it came.
    }
  }
  return text;
}

/**
 * Characters a pretty-printed JSON body may grow to, at most (as bytes of a one-byte string):
 * past it the text comes as it was. Indentation grows with depth, so ten megabytes of `[[[[…`
 * would be quadratically long, and took 2.6 GB to find that out.
 */
export const MAX_PRETTY_CHARS = 32 * 1024 * 1024;

/**
 * The longest JSON.stringify(JSON.parse(text), null, 2) can be, numbers it spells out longer
 * (1E20) aside: the text plus, for each bracket and comma outside strings, a newline and the
 * indentation of its depth, and a space after each colon. One pass, nothing built.
 */
export function prettyLengthAtMost(text: string): number {
  let length = text.length;
  let depth = 0;
  for (let at = 0; at < text.length; at++) {
    const code = text.charCodeAt(at);
    if (code === 0x22) {
      // A string: to its closing quote, escapes skipped.
      for (at++; at < text.length; at++) {
        const inside = text.charCodeAt(at);
        if (inside === 0x5c) at++;
        else if (inside === 0x22) break;
      }
    } else if (code === 0x5b || code === 0x7b) {
      depth++;
      length += 2 * depth + 1;
    } else if (code === 0x5d || code === 0x7d) {
      depth = Math.max(0, depth - 1);
      length += 2 * depth + 1;
    } else if (code === 0x2c) {
      length += 2 * depth + 1;
    } else if (code === 0x3a) {
      length++;
    }
  }
  return length;
}
