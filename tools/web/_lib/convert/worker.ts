/**
 * The worker that converts fetched HTML off the main thread (see pool.ts): a message
 * `{ id, html, options }` comes in (the HTML as text, or the downloaded bytes, transferred),
 * `{ id, page }` or `{ id, error }` goes back; or `{ id, text }` comes in (a body to decode,
 * body_text.ts) and `{ id, text }` goes back. It is its own entry point: `bun build --compile`
 * bundles it beside main.ts (scripts/build.ts), and Deno loads it from source.
 *
 * stdout is the JSON-RPC channel, and a worker's console writes to the process's stdout: every
 * console method here writes to stderr instead, before anything else loads.
 */
import "../../../_lib/workers/worker_console.ts";
import type { ConvertedPage, ConvertPageOptions } from "./main_content.ts";
import { convertSource, type HtmlSource } from "./source.ts";
import { bodyText, type BodyTextJob } from "./body_text.ts";

/** A page to convert, or a body to make text of (body_text.ts). */
export type ConvertJob =
  | { html: HtmlSource; options: ConvertPageOptions }
  | { text: BodyTextJob };

export type ConvertRequest = ConvertJob & { id: number };

export type ConvertReply =
  | { id: number; page: ConvertedPage }
  | { id: number; text: string }
  | { id: number; error: string };

/** The part of a worker's global scope used here (Deno type-checks with the window's lib). */
interface WorkerScope {
  onmessage: ((event: MessageEvent<ConvertRequest>) => void) | null;
  postMessage(message: ConvertReply): void;
}

const scope = globalThis as unknown as WorkerScope;

scope.onmessage = ({ data }) => {
  const { id } = data;
  let reply: ConvertReply;
  try {
    reply = "text" in data
      ? { id, text: bodyText(data.text) }
      : { id, page: convertSource(data.html, data.options) };
  } catch (error) {
    reply = { id, error: error instanceof Error ? error.message : String(error) };
  }
  scope.postMessage(reply);
};
