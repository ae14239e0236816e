/**
 * HTTP answers that are not a server reply: refusals with a status and a JSON-RPC error saying
 * why, and the status a 2026-07-28 error maps to (clients tell the eras apart by it).
 */
import type { Logger } from "../wire/log.ts";
import {
  failure,
  INTERNAL_ERROR,
  INVALID_REQUEST,
  type JsonRpcResponse,
  METHOD_NOT_FOUND,
  type RequestId,
} from "../wire/jsonrpc.ts";

export function errorResponse(
  status: number,
  code: number,
  message: string,
  id: RequestId | null = null,
  headers: Record<string, string> = {},
  data?: unknown,
): Response {
  return new Response(JSON.stringify(failure(id, code, message, data)), {
    status,
    headers: { ...headers, "content-type": "application/json" },
  });
}

/** JSON-RPC's own errors (-32700…-32600) and MCP's -32020…-32022 are the client's fault: 400. */
export function modernStatus(response: JsonRpcResponse): number {
  if (!("error" in response)) return 200;
  const code = response.error.code;
  if (code === METHOD_NOT_FOUND) return 404;
  if (code === INTERNAL_ERROR) return 500;
  const invalid = (code <= -32600 && code >= -32700) || (code <= -32020 && code >= -32022);
  return invalid ? 400 : 200;
}

/** A request whose Host names nothing (empty or missing): 400, and one log line saying so. */
export function noHost(logger: Logger): Response {
  logger.log("warning", "HTTP: refused a request with no usable Host header (400)");
  return errorResponse(400, INVALID_REQUEST, "Bad Request: send a Host header naming the server");
}
