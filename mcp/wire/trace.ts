/**
 * W3C Trace Context in a request's `_meta` (SEP-414): `traceparent`, `tracestate` and `baggage`,
 * as OpenTelemetry's MCP conventions carry them. A call keeps what is well formed and within
 * bounds, so its log lines, its journal entry and the processes it starts can name the trace;
 * anything malformed or oversized is dropped whole (never cut, never echoed), since a half
 * value would name a trace that does not exist.
 */

export interface TraceContext {
  /** `00-<32 hex trace id>-<16 hex parent id>-<2 hex flags>`, lower case. */
  readonly traceparent?: string;
  /** The vendors' list that goes with `traceparent` (only with it). */
  readonly tracestate?: string;
  /** `key=value` pairs the caller propagates (W3C Baggage), percent-encoded. */
  readonly baggage?: string;
}

/** W3C asks that at least 512 characters of tracestate be propagated; more are dropped. */
export const MAX_TRACESTATE = 512;
/** W3C Baggage allows 8,192 bytes; a journal line carries it, so toolhost keeps less. */
export const MAX_BAGGAGE = 1024;

/** Version 00's exact form; a future version is read by its first four fields, as W3C says. */
const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$/;
/** Printable ASCII, no spaces at the edges: what a header value (and an env value) may hold. */
const HEADER_TEXT = /^[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?$/;

function validTraceparent(value: unknown): string | undefined {
  if (typeof value !== "string" || value.length > 128) return undefined;
  const match = TRACEPARENT.exec(value);
  if (!match) return undefined;
  const [, version, traceId, parentId, , rest] = match;
  if (version === "ff" || (version === "00" && rest !== undefined)) return undefined;
  if (/^0+$/.test(traceId) || /^0+$/.test(parentId)) return undefined;
  // Passed on in version 00's form: the fields this server understands.
  return rest === undefined ? value : value.slice(0, 55);
}

function validList(value: unknown, max: number): string | undefined {
  if (typeof value !== "string" || value.length > max || !HEADER_TEXT.test(value)) return undefined;
  return value;
}

/**
 * The trace context of a request's `_meta`, or undefined when it carries none worth keeping.
 *
 * @example
 * traceOf({ traceparent: "00-0af7651916cd43dd8448eb211c80319c-00f067aa0ba902b7-01" })
 * // { traceparent: "00-0af7651916cd43dd8448eb211c80319c-00f067aa0ba902b7-01" }
 */
export function traceOf(meta: Record<string, unknown>): TraceContext | undefined {
  if (!("traceparent" in meta) && !("baggage" in meta)) return undefined;
  const traceparent = validTraceparent(meta.traceparent);
  const tracestate = traceparent ? validList(meta.tracestate, MAX_TRACESTATE) : undefined;
  const baggage = validList(meta.baggage, MAX_BAGGAGE);
  if (!traceparent && !baggage) return undefined;
  const trace: { traceparent?: string; tracestate?: string; baggage?: string } = {};
  if (traceparent) trace.traceparent = traceparent;
  if (tracestate) trace.tracestate = tracestate;
  if (baggage) trace.baggage = baggage;
  return trace;
}

/** What a log line of the call adds: the trace and span it belongs to (bounded by form). */
export function traceTag(trace: TraceContext | undefined): string {
  return trace?.traceparent ? ` [traceparent ${trace.traceparent}]` : "";
}

/**
 * The environment that hands the trace on to a process the call starts, as OpenTelemetry's
 * environment carrier names it (TRACEPARENT, TRACESTATE, BAGGAGE). A call with a traceparent
 * replaces what toolhost itself inherited; one without leaves the environment as it is.
 *
 * @example
 * spawn(cmd, { env: withTraceEnv(process.env, ctx.trace) })
 */
export function withTraceEnv<E extends Record<string, string | undefined>>(
  env: E,
  trace: TraceContext | undefined,
): E {
  if (!trace) return env;
  const out: Record<string, string | undefined> = { ...env };
  if (trace.traceparent) {
    out.TRACEPARENT = trace.traceparent;
    // A tracestate belongs to the traceparent beside it: an inherited one would mislead.
    if (trace.tracestate) out.TRACESTATE = trace.tracestate;
    else delete out.TRACESTATE;
  }
  if (trace.baggage) out.BAGGAGE = trace.baggage;
  return out as E;
}
