/** JSON-RPC 2.0 messages as MCP uses them: decode one line into a message or an error to send. */
import { bounded } from "../../config/quote.ts";
import { shapeProblem } from "./json_shape.ts";

/** Characters of an error message at most (far more than any message needs). */
const MAX_ERROR_MESSAGE = 2000;

export type RequestId = string | number;

/** A map key for a request id that keeps 1 and "1" apart. */
export const requestKey = (id: RequestId) => (typeof id === "string" ? `s${id}` : `n${id}`);
export type Params = Record<string, unknown>;

export interface JsonRpcRequest {
  jsonrpc: "2.0";
  id: RequestId;
  method: string;
  params?: Params;
}

export interface JsonRpcNotification {
  jsonrpc: "2.0";
  method: string;
  params?: Params;
}

export interface JsonRpcError {
  code: number;
  message: string;
  data?: unknown;
}

export interface JsonRpcSuccess {
  jsonrpc: "2.0";
  id: RequestId;
  result: Record<string, unknown>;
}

export interface JsonRpcFailure {
  jsonrpc: "2.0";
  id: RequestId | null;
  error: JsonRpcError;
}

export type JsonRpcResponse = JsonRpcSuccess | JsonRpcFailure;
export type JsonRpcMessage = JsonRpcRequest | JsonRpcNotification | JsonRpcResponse;

export const PARSE_ERROR = -32700;
export const INVALID_REQUEST = -32600;
export const METHOD_NOT_FOUND = -32601;
export const INVALID_PARAMS = -32602;
export const INTERNAL_ERROR = -32603;
/** MCP before 2026-07-28: resources/read of a URI that names no resource (now -32602). */
export const RESOURCE_NOT_FOUND = -32002;
/** MCP 2026-07-28: the request's protocol version is not one this server speaks. */
export const UNSUPPORTED_PROTOCOL_VERSION = -32022;
/** 2026-07-28: the call needs a client capability the request did not declare. */
export const MISSING_CLIENT_CAPABILITY = -32021;

/** An error a handler throws to answer its request with a JSON-RPC error. */
export class RpcError extends Error {
  constructor(readonly code: number, message: string, readonly data?: unknown) {
    super(message);
  }
}

export type Decoded =
  | { kind: "request"; message: JsonRpcRequest }
  | { kind: "notification"; message: JsonRpcNotification }
  | { kind: "response"; message: JsonRpcResponse }
  | { kind: "batch"; items: unknown[] }
  /** Not a usable message: send `reply`. */
  | { kind: "invalid"; reply: JsonRpcFailure }
  /** A notification too malformed to act on; notifications are never answered, so it is dropped. */
  | { kind: "ignored"; why: string };

export function failure(id: RequestId | null, code: number, message: string, data?: unknown) {
  // The last guard against echoing a client's text whole: each place that quotes one bounds
  // it, and no error message is ever longer than this.
  message = bounded(message, MAX_ERROR_MESSAGE);
  const error: JsonRpcError = data === undefined ? { code, message } : { code, message, data };
  return { jsonrpc: "2.0", id, error } as JsonRpcFailure;
}

/** Characters at the start of a refused message searched for its id. */
const ID_SEARCH_CHARS = 4096;

/**
 * Parses one JSON text (a line of stdin, or an HTTP body) and classifies it; text that is not
 * JSON becomes a parse error to send (-32700, id null), and text that would build more than any
 * message needs (json_shape.ts) is refused unparsed, with its id when it can be found.
 */
export function decodeLine(line: string): Decoded {
  const problem = shapeProblem(line);
  if (problem !== undefined) {
    return invalid(
      peekTopLevelId(line.slice(0, ID_SEARCH_CHARS)),
      INVALID_REQUEST,
      `Invalid Request: the message was refused unparsed: ${problem}`,
    );
  }
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch (error) {
    // Some runtimes quote the line in their message: only its start is kept.
    const detail = bounded(error instanceof Error ? error.message : String(error), 200);
    return {
      kind: "invalid",
      reply: failure(null, PARSE_ERROR, `Parse error: the line is not valid JSON (${detail})`),
    };
  }
  if (Array.isArray(value)) return { kind: "batch", items: value };
  return classify(value);
}

/** MCP ids are strings or integers (never null). */
/** What a request's id is instead of a string or an integer, for the error that says so. */
function idKind(value: unknown): string {
  if (value === null) return "null (MCP does not allow null ids)";
  if (typeof value === "number") {
    return Number.isInteger(value) ? "an integer too large to keep exactly" : "a fraction";
  }
  if (typeof value === "boolean") return `a boolean (${value})`;
  if (Array.isArray(value)) return "an array";
  return "an object";
}

function isId(value: unknown): value is RequestId {
  return typeof value === "string" || Number.isSafeInteger(value);
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Classifies one already-parsed JSON value (a line, or one element of a batch). */
export function classify(value: unknown): Decoded {
  if (!isPlainObject(value)) {
    return invalid(null, INVALID_REQUEST, "Invalid Request: a message must be a JSON object");
  }
  const id = isId(value.id) ? value.id : null;
  // Something shaped like a notification is never answered, however wrong the rest of it is.
  const notification = typeof value.method === "string" && !("id" in value);
  const reject = (code: number, message: string): Decoded =>
    notification ? { kind: "ignored", why: message } : invalid(id, code, message);
  if (value.jsonrpc !== "2.0") {
    return reject(INVALID_REQUEST, 'Invalid Request: "jsonrpc" must be "2.0"');
  }
  if ("method" in value) {
    if (typeof value.method !== "string") {
      return invalid(id, INVALID_REQUEST, 'Invalid Request: "method" must be a string');
    }
    if ("id" in value && !isId(value.id)) {
      return invalid(
        null,
        INVALID_REQUEST,
        `Invalid Request: "id" must be a string or an integer, not ${idKind(value.id)}`,
      );
    }
    if ("params" in value && !isPlainObject(value.params)) {
      return Array.isArray(value.params)
        ? reject(INVALID_PARAMS, 'Invalid params: MCP "params" must be a JSON object')
        : reject(INVALID_REQUEST, 'Invalid Request: "params" must be a JSON object');
    }
    const message = value as unknown as JsonRpcRequest;
    return notification
      ? { kind: "notification", message: message as JsonRpcNotification }
      : { kind: "request", message };
  }
  if (("result" in value || "error" in value) && "id" in value) {
    return { kind: "response", message: value as unknown as JsonRpcResponse };
  }
  return invalid(
    id,
    INVALID_REQUEST,
    'Invalid Request: expected "method" (a request or notification) or "result"/"error" (a response)',
  );
}

function invalid(id: RequestId | null, code: number, message: string): Decoded {
  return { kind: "invalid", reply: failure(id, code, message) };
}

/**
 * Finds the top-level "id" in the first characters of a JSON object that is too long to parse,
 * so the sender of an oversized request still gets an answer it can match.
 */
export function peekTopLevelId(head: string): RequestId | null {
  let depth = 0;
  let i = 0;
  let expectKey = false;
  while (i < head.length) {
    const ch = head[i];
    if (ch === '"') {
      const end = stringEnd(head, i);
      if (end === -1) return null;
      if (depth === 1 && expectKey && head.slice(i, end + 1) === '"id"') {
        const match = /^\s*:\s*("(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)/.exec(
          head.slice(end + 1),
        );
        if (!match) return null;
        const parsed: unknown = JSON.parse(match[1]);
        return isId(parsed) ? parsed : null;
      }
      expectKey = false;
      i = end + 1;
      continue;
    }
    if (ch === "{" || ch === "[") depth++;
    else if (ch === "}" || ch === "]") depth--;
    if ((ch === "{" && depth === 1) || (ch === "," && depth === 1)) expectKey = true;
    i++;
  }
  return null;
}

function stringEnd(text: string, start: number): number {
  for (let i = start + 1; i < text.length; i++) {
    if (text[i] === "\\") i++;
    else if (text[i] === '"') return i;
  }
  return -1;
}
