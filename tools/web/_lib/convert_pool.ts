/**
 * HTML conversion off the main thread. Parsing, extracting and converting a big page takes
 * hundreds of milliseconds of CPU; on the thread every request shares, that held every other
 * request (a `ping` waited as long as the conversion). Here the work goes to a pool of Workers
 * running convert_worker.ts (tools/_lib/worker_pool.ts), in Deno and in the Bun binary alike:
 *
 * - none starts until the first conversion; a worker is then reused, a second one starts only
 *   while two conversions are wanted at once (at most one per core, at most two), and further
 *   conversions wait in line;
 * - a worker idle for 30 s ends, giving its memory back, and a worker never keeps the process
 *   alive (unref'd where the runtime can);
 * - a cancelled call's conversion stops: waiting, it leaves the line; running, its worker is
 *   terminated (a conversion cannot be interrupted) and a new one starts when next needed.
 */
import type { ConvertedPage, ConvertPageOptions } from "./main_content.ts";
import type { ConvertReply, ConvertRequest } from "./convert_worker.ts";
import type { HtmlSource } from "./convert_source.ts";
import { createWorkerPool, workerModule } from "../../_lib/worker_pool.ts";

/** The conversion was given up because the call was cancelled. */
export class ConversionCancelled extends Error {
  constructor() {
    super("The conversion was cancelled.");
    this.name = "AbortError";
  }
}

const pool = createWorkerPool<Omit<ConvertRequest, "id">, ConvertedPage>({
  workerUrl: workerModule(import.meta.url, "tools/web/_lib/convert_worker.ts"),
  cancelled: () => new ConversionCancelled(),
  message(id, request) {
    const message: ConvertRequest = { id, ...request };
    const { html } = request;
    if (typeof html === "string") return { message };
    // A body that owns its whole buffer moves to the worker without a copy; any other (a view
    // into a shared pool) is copied first, since transferring would take its neighbours too.
    const { body } = html;
    const owned = body.byteOffset === 0 && body.byteLength === body.buffer.byteLength &&
      body.buffer instanceof ArrayBuffer;
    const moved = owned ? body : body.slice();
    return {
      message: { ...message, html: { ...html, body: moved } },
      transfer: [moved.buffer as ArrayBuffer],
    };
  },
  reply(data) {
    const reply = data as ConvertReply;
    return "error" in reply ? { error: new Error(reply.error) } : { result: reply.page };
  },
  crashed: (_request, message) => new Error(`The HTML converter failed: ${message}`),
});

/**
 * convertSource (convert_source.ts) in a worker; rejects with ConversionCancelled on `signal`.
 * A body given as bytes is transferred to the worker when it owns its buffer: the caller's
 * array is empty afterwards.
 */
export function convertInWorker(
  html: HtmlSource,
  options: ConvertPageOptions,
  signal?: AbortSignal,
): Promise<ConvertedPage> {
  return pool.run({ html, options }, signal);
}

/** Ends every worker now, failing what they were doing (tests, and a process that is leaving). */
export function stopConverters(): void {
  pool.stop();
}

/** How many workers are running now: for tests and the benchmark. */
export function converterCount(): number {
  return pool.count();
}
