/**
 * Every request toolhost makes to the authorization server goes through here: bounded in time
 * and in size, never redirected (a redirect could lead anywhere), and its failures described
 * without anything the caller sent.
 */

export interface FetchBounds {
  /** The whole exchange, body included, ends by then. */
  timeoutMs: number;
  /** A body past this many bytes is refused unread. */
  maxBytes: number;
}

export const DEFAULT_BOUNDS: FetchBounds = { timeoutMs: 5_000, maxBytes: 1024 * 1024 };

/**
 * `fetch`, but the body is read within the bounds into a fresh Response (so `json()` on it
 * cannot take longer or more memory); a body too large or too slow rejects.
 *
 * @example The JWKS fetch of jose, bounded
 * ```ts
 * createRemoteJWKSet(url, { [customFetch]: (url, init) => boundedFetch(url, init, bounds) });
 * ```
 */
export async function boundedFetch(
  url: string | URL,
  init: RequestInit,
  bounds: FetchBounds = DEFAULT_BOUNDS,
): Promise<Response> {
  const timeout = AbortSignal.timeout(bounds.timeoutMs);
  const signal = init.signal ? AbortSignal.any([init.signal, timeout]) : timeout;
  const response = await fetch(url, { ...init, signal, redirect: "manual" });
  const body = await readCapped(response, bounds.maxBytes);
  return new Response(body, { status: response.status, headers: response.headers });
}

async function readCapped(
  response: Response,
  maxBytes: number,
): Promise<Uint8Array<ArrayBuffer>> {
  const declared = Number(response.headers.get("content-length"));
  if (declared > maxBytes) {
    await response.body?.cancel().catch(() => {});
    throw new Error(`the response is larger than ${maxBytes} bytes`);
  }
  if (!response.body) return new Uint8Array();
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel().catch(() => {});
      throw new Error(`the response is larger than ${maxBytes} bytes`);
    }
    chunks.push(value);
  }
  const body = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    body.set(chunk, at);
    at += chunk.byteLength;
  }
  return body;
}

/** GETs a JSON object within the bounds; throws a sentence naming the URL on any failure. */
export async function fetchJsonObject(
  url: string,
  bounds: FetchBounds = DEFAULT_BOUNDS,
  init: RequestInit = { headers: { accept: "application/json" } },
): Promise<Record<string, unknown>> {
  let response: Response;
  try {
    response = await boundedFetch(url, init, bounds);
  } catch (error) {
    throw new Error(`${url}: ${reason(error)}`);
  }
  if (response.status !== 200) throw new Error(`${url} answered HTTP ${response.status}`);
  let value: unknown;
  try {
    value = await response.json();
  } catch {
    throw new Error(`${url} did not answer JSON`);
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new Error(`${url} did not answer a JSON object`);
  }
  return value as Record<string, unknown>;
}

function reason(error: unknown): string {
  const name = (error as Error)?.name;
  if (name === "TimeoutError" || name === "AbortError") return "no answer in time";
  return String((error as Error)?.message ?? error).slice(0, 200);
}
