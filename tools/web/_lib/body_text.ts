/**
 * A fetched body that is not converted as HTML, made ready for the model: text decoded in its
 * charset, JSON pretty-printed, an image as base64. Big JSON and images are done in the
 * converter's worker (convert_pool.ts), so that JSON.parse and stringify of ten megabytes do not
 * hold the main thread; this module is the work itself, the same in place and in the worker.
 */
import { Buffer } from "node:buffer";
import { decodeText } from "./charset.ts";

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
  if (kind === "json") {
    try {
      return JSON.stringify(JSON.parse(text), null, 2);
    } catch {
      // Not valid JSON after all (or cut by the download cap): pass it through as it came.
    }
  }
  return text;
}
