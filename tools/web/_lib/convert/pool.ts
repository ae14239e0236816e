/**
 * HTML conversion off the main thread. Parsing, extracting and converting a big page takes
 * hundreds of milliseconds of CPU; on the thread every request shares, that held every other
 * request (a `ping` waited as long as the conversion). Here the work goes to a pool of Workers
 * running worker.ts (tools/_lib/worker_pool.ts), in Deno and in the Bun binary alike:
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
import type { ConvertJob, ConvertReply, ConvertRequest } from "./worker.ts";
import { bodyText, type BodyTextJob } from "./body_text.ts";
import type { HtmlSource } from "./source.ts";
import { createWorkerPool, workerModule } from "../../../_lib/workers/worker_pool.ts";

/** The conversion was given up because the call was cancelled. */
export class ConversionCancelled extends Error {
  constructor() {
    super("The conversion was cancelled.");
    this.name = "AbortError";
  }
}

/** The downloaded bytes a job carries, if it carries any. */
function bodyOf(job: ConvertJob): Uint8Array | undefined {
  if ("text" in job) return job.text.body;
  return typeof job.html === "string" ? undefined : job.html.body;
}

const pool = createWorkerPool<ConvertJob, ConvertedPage | string>({
  workerUrl: workerModule(import.meta.url, "tools/web/_lib/convert/worker.ts"),
  cancelled: () => new ConversionCancelled(),
  message(id, request) {
    const body = bodyOf(request);
    if (!body) return { message: { id, ...request } satisfies ConvertRequest };
    // A body that owns its whole buffer moves to the worker without a copy; any other (a view
    // into a shared pool) is copied first, since transferring would take its neighbours too.
    const owned = body.byteOffset === 0 && body.byteLength === body.buffer.byteLength &&
      body.buffer instanceof ArrayBuffer;
    const moved = owned ? body : body.slice();
    const job: ConvertJob = "text" in request
      ? { text: { ...request.text, body: moved } }
      : { ...request, html: { ...request.html as { contentType?: string }, body: moved } };
    return {
      message: { id, ...job } satisfies ConvertRequest,
      transfer: [moved.buffer as ArrayBuffer],
    };
  },
  reply(data) {
    const reply = data as ConvertReply;
    return "error" in reply
      ? { error: new Error(reply.error) }
      : { result: "text" in reply ? reply.text : reply.page };
  },
  crashed: (request, message) =>
    new Error(`The ${"text" in request ? "body decoder" : "HTML converter"} failed: ${message}`),
});

/**
 * convertSource (source.ts) in a worker; rejects with ConversionCancelled on `signal`.
 * A body given as bytes is transferred to the worker when it owns its buffer: the caller's
 * array is empty afterwards.
 */
export function convertInWorker(
  html: HtmlSource,
  options: ConvertPageOptions,
  signal?: AbortSignal,
): Promise<ConvertedPage> {
  return pool.run({ html, options }, signal) as Promise<ConvertedPage>;
}

/** Bodies up to this size are made text in place: a worker's round trip would cost more. */
const IN_PLACE_BYTES = 64 * 1024;

/**
 * bodyText (body_text.ts) for a body that is not converted as HTML: in a worker for a big body,
 * in place for a small one; rejects with ConversionCancelled on `signal`. A big body is
 * transferred to the worker when it owns its buffer: the caller's array is empty afterwards.
 */
export function bodyTextInWorker(job: BodyTextJob, signal?: AbortSignal): Promise<string> {
  if (job.body.length <= IN_PLACE_BYTES) {
    if (signal?.aborted) return Promise.reject(new ConversionCancelled());
    return Promise.resolve(bodyText(job));
  }
  return pool.run({ text: job }, signal) as Promise<string>;
}

/** Ends every worker now, failing what they were doing (tests, and a process that is leaving). */
export function stopConverters(): void {
  pool.stop();
}

/** How many workers are running now: for tests and the benchmark. */
export function converterCount(): number {
  return pool.count();
}
