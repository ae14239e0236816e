/**
 * Reads a request body as text, refusing one over the limit before or while reading it, within
 * the server's budget of bodies in flight (body_budget.ts): a body past TINY_BYTES waits for its
 * turn before it is read; one of undeclared length (chunked) is taken as it grows, and must
 * arrive at a pace.
 */
import { type Decoded, decodeLine, INTERNAL_ERROR, INVALID_REQUEST } from "../wire/jsonrpc.ts";
import { heapPressure } from "../wire/heap_pressure.ts";
import { BodyBudget, type Place } from "./body_budget.ts";
import { errorResponse } from "./replies.ts";

/**
 * Bodies of at most this many declared bytes are read at once, outside the budget: nearly every
 * message is one, and what they hold is what any connection's buffers hold.
 */
export const TINY_BYTES = 64 << 10;
/**
 * What a request counts for towards collecting garbage, besides its body: without it, 10,000 small
 * calls from 200 sessions left 188 MB behind between two looks at memory (a look every 2 MiB of
 * messages is thousands of small requests).
 */
const REQUEST_WEIGHT = 16 << 10;
/** A body has this long to arrive, plus a second per MiB. */
const ARRIVAL_MS = 10_000;
const MS_PER_MIB = 1_000;

/** A request's body, decoded. */
export interface ReadMessage {
  decoded: Exclude<Decoded, { kind: "invalid" }>;
  /** The body's length in characters. */
  chars: number;
  /**
   * Takes over giving back the body's place in the budget (for a message answered after its
   * HTTP response, as over SSE): the function to call once it is.
   */
  keep(): () => void;
}

/**
 * Reads the body as one decoded message and answers with what `then` makes of it, or refuses it:
 * 400 for JSON that does not parse, 413 over `max`, 503 (with Retry-After) when its turn did not
 * come in time, 408 when it did not arrive in time. The body's place in the budget is given back
 * once `then`'s response is ready (the reply, for a request of a POST), so the next large body is
 * not read while this one's text and message still take memory.
 */
export async function readMessage(
  request: Request,
  max: number,
  budget: BodyBudget | undefined,
  then: (read: ReadMessage) => Response | Promise<Response>,
): Promise<Response> {
  let place: Place | undefined;
  let kept = false;
  const text = await readBody(request, max, budget, (taken) => (place = taken));
  try {
    if (text instanceof Response) return text;
    const decoded = decodeLine(text);
    if (decoded.kind === "invalid") {
      return new Response(JSON.stringify(decoded.reply), {
        status: 400,
        headers: { "content-type": "application/json" },
      });
    }
    // Garbage is collected in step with the work, as for stdio's lines (a body that waited for
    // its turn was counted before it was read). An HTTP request leaves more behind than its
    // body (the runtime's request and response, their headers, our exchange): REQUEST_WEIGHT.
    heapPressure.noteWork(REQUEST_WEIGHT + (place ? 0 : text.length));
    const keep = () => {
      kept = true;
      return () => place?.release();
    };
    return await then({ decoded, chars: text.length, keep });
  } finally {
    if (!kept) place?.release();
  }
}

/**
 * The body's text, or the response that refuses it. The place it took in the budget is handed to
 * `keep` to give back (else it is given back once read).
 */
export async function readBody(
  request: Request,
  max: number,
  budget?: BodyBudget,
  keep?: (place: Place) => void,
): Promise<string | Response> {
  const tooLarge = () =>
    errorResponse(413, INVALID_REQUEST, `Payload Too Large: bodies are limited to ${max} bytes`);
  const declared = Number(request.headers.get("content-length") ?? "NaN");
  if (declared > max) return tooLarge();
  // A declared length the runtime holds the body to: reading it whole is much cheaper.
  if (declared >= 0 && (declared <= TINY_BYTES || !budget)) return await request.text();
  if (!request.body) return "";
  if (declared >= 0) {
    const place = await budget!.take(declared);
    if (!place) return busy();
    // Before it is read, what the bodies before it left is collected if memory is high: their
    // requests may have been answered since the last look, and nothing else would look now.
    heapPressure.noteWork(declared);
    let kept = false;
    try {
      // The runtime's own reading: half the memory of reading it in chunks (a 60 MB body: 171
      // against 295 MB). It cannot be given a deadline, so a client that trickles a declared
      // body keeps its place until it has sent it or hung up: others' bodies of its lane wait
      // (and are refused after WAIT_MS), no other lane does.
      const text = await request.text();
      if (keep) {
        keep(place);
        kept = true;
      }
      return text;
    } finally {
      if (!kept) place.release();
    }
  }
  const place = budget?.growing();
  let kept = false;
  try {
    const text = await readWithin(request.body, max, place);
    if (text === undefined) return tooLarge();
    if (keep && place) {
      keep(place);
      kept = true;
    }
    return text;
  } catch (error) {
    return error instanceof Refused ? busy() : late();
  } finally {
    if (!kept) place?.release();
  }
}

class Refused extends Error {}

/**
 * The body as text; undefined when it goes past `max`. Throws when it does not arrive in time,
 * and Refused when a growing place cannot grow.
 */
async function readWithin(
  body: ReadableStream<Uint8Array>,
  max: number,
  place: (Place & { grow(bytes: number): boolean }) | undefined,
): Promise<string | undefined> {
  const reader = body.getReader();
  let bytes = new Uint8Array(0);
  let size = 0;
  const deadline = Date.now() + ARRIVAL_MS + MS_PER_MIB * (max / (1 << 20));
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error("late")), deadline - Date.now());
  });
  try {
    for (;;) {
      const { done, value } = await Promise.race([reader.read(), timeout]);
      if (done) break;
      const end = size + value.byteLength;
      if (end > max) {
        await reader.cancel().catch(() => {});
        return undefined;
      }
      if (end > TINY_BYTES && place && !place.grow(end)) throw new Refused();
      if (end > bytes.byteLength) {
        const grown = new Uint8Array(Math.max(end, bytes.byteLength * 2));
        grown.set(bytes.subarray(0, size));
        bytes = grown;
      }
      bytes.set(value, size);
      size = end;
    }
  } catch (error) {
    await reader.cancel().catch(() => {});
    throw error;
  } finally {
    clearTimeout(timer);
  }
  return new TextDecoder().decode(bytes.subarray(0, size));
}

function busy(): Response {
  return errorResponse(
    503,
    INTERNAL_ERROR,
    "Service Unavailable: too many large request bodies are being read; try again shortly",
    null,
    { "retry-after": "5" },
  );
}

function late(): Response {
  return errorResponse(
    408,
    INVALID_REQUEST,
    "Request Timeout: the body did not arrive in time (10 s, and a second per MiB)",
  );
}
