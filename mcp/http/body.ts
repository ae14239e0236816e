/** Reads a request body as text, refusing one over the limit before or while reading it. */
import { INVALID_REQUEST } from "../wire/jsonrpc.ts";
import { errorResponse } from "./replies.ts";

export async function readBody(request: Request, max: number): Promise<string | Response> {
  const tooLarge = () =>
    errorResponse(413, INVALID_REQUEST, `Payload Too Large: bodies are limited to ${max} bytes`);
  const declared = Number(request.headers.get("content-length") ?? "NaN");
  if (declared > max) return tooLarge();
  // A declared length the runtime holds the body to: reading it whole is much cheaper.
  if (declared >= 0) return await request.text();
  if (!request.body) return "";
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = request.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > max) {
      await reader.cancel().catch(() => {});
      return tooLarge();
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.byteLength;
  }
  return new TextDecoder().decode(bytes);
}
