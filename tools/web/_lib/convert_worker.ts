/**
 * The worker that converts fetched HTML off the main thread (see convert_pool.ts): a message
 * `{ id, html, options }` comes in, `{ id, page }` or `{ id, error }` goes back. It is its own
 * entry point: `bun build --compile` bundles it beside main.ts (scripts/build.ts), and Deno
 * loads it from source.
 *
 * stdout is the JSON-RPC channel, and a worker's console writes to the process's stdout: every
 * console method here writes to stderr instead, before anything else loads.
 */
import "../../_lib/worker_console.ts";
import { convertHtml, type ConvertPageOptions } from "./main_content.ts";

export interface ConvertRequest {
  id: number;
  html: string;
  options: ConvertPageOptions;
}

export type ConvertReply =
  | { id: number; page: ReturnType<typeof convertHtml> }
  | { id: number; error: string };

/** The part of a worker's global scope used here (Deno type-checks with the window's lib). */
interface WorkerScope {
  onmessage: ((event: MessageEvent<ConvertRequest>) => void) | null;
  postMessage(message: ConvertReply): void;
}

const scope = globalThis as unknown as WorkerScope;

scope.onmessage = ({ data: { id, html, options } }) => {
  let reply: ConvertReply;
  try {
    reply = { id, page: convertHtml(html, options) };
  } catch (error) {
    reply = { id, error: error instanceof Error ? error.message : String(error) };
  }
  scope.postMessage(reply);
};
