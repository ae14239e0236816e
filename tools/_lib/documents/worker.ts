/**
 * The document worker (see pool.ts): `{ id, request }` comes in, `{ id, result }` or
 * `{ id, error, clear }` goes back. Its own entry point: `bun build --compile` bundles it beside
 * main.ts (scripts/build.ts), Deno loads it from source. The libraries load on the first
 * document of each kind, here, never on the main thread.
 *
 * Its console writes to stderr (stdout is the JSON-RPC channel), before anything else loads.
 */
import "../workers/worker_console.ts";
import { DocumentError, type ExtractReply, type ExtractRequest } from "./types.ts";

/**
 * mammoth sets `__proto__`, whose setter Deno removes; it is given back here, in this worker
 * only, as Node and Bun have it. JSON.parse never uses it, so parsed input cannot reach it.
 */
function restoreProtoSetter(): void {
  const probe = {} as { __proto__?: unknown };
  probe.__proto__ = Array.prototype;
  if (Array.isArray(probe) || probe instanceof Array) return;
  Object.defineProperty(Object.prototype, "__proto__", {
    configurable: true,
    get(this: object) {
      return Object.getPrototypeOf(this);
    },
    set(this: object, proto: object | null) {
      if (typeof proto === "object" || typeof proto === "function") {
        Object.setPrototypeOf(this, proto);
      }
    },
  });
}
restoreProtoSetter();

interface WorkerScope {
  onmessage: ((event: MessageEvent<{ id: number; request: ExtractRequest }>) => void) | null;
  postMessage(message: ExtractReply): void;
}

const scope = globalThis as unknown as WorkerScope;

async function extract(request: ExtractRequest) {
  switch (request.format) {
    case "pdf":
      return await (await import("./pdf.ts")).extractPdf(request);
    case "docx":
      return await (await import("./docx.ts")).extractDocx(request);
    case "xlsx":
      return await (await import("./sheet.ts")).extractSheet(request);
    case "ipynb":
      return (await import("./notebook.ts")).extractNotebook(request);
  }
}

scope.onmessage = async ({ data: { id, request } }) => {
  let reply: ExtractReply;
  try {
    reply = { id, result: await extract(request) };
  } catch (error) {
    const clear = error instanceof DocumentError;
    const message = error instanceof Error ? error.message : String(error);
    if (!clear) console.error(`document worker: ${request.format}:`, error);
    reply = {
      id,
      clear,
      error: clear
        ? message
        : `${request.name} could not be read as ${request.format.toUpperCase()}: ${
          message.slice(0, 300)
        }`,
    };
  }
  scope.postMessage(reply);
};
