/**
 * The wire: JSON-RPC messages as MCP uses them and what every request carries with it (its
 * protocol version, the caller's grant, trace context), the log levels, and cursor pages. It
 * knows no connection and no tool. Outside mcp/, import it from here; mcp/'s own packages reach
 * the files behind it directly.
 *
 * @example An extension method refusing a request it cannot answer, and paging a list
 * ```ts
 * // From tools/<family>/, the face is "../../mcp/wire/mod.ts".
 * import { INVALID_PARAMS, pageOf, type Params, RpcError } from "./mod.ts";
 *
 * export function listNames(params: Params, names: string[]) {
 *   if (params.filter !== undefined) throw new RpcError(INVALID_PARAMS, "filter is not supported");
 *   const page = pageOf(names, params.cursor, 100, "names");
 *   return { names: page.items, nextCursor: page.nextCursor };
 * }
 * ```
 * @module
 */
export { INVALID_PARAMS, type Params, RpcError } from "./jsonrpc.ts";
export {
  atLeast,
  describeLogData,
  LOG_LEVELS,
  type Logger,
  type LogLevel,
  stderrLogger,
} from "./log.ts";
export { SUPPORTED_VERSIONS } from "./versions.ts";
export { type Page, pageOf } from "./pages.ts";
export { MAX_JSON_DEPTH, MAX_JSON_VALUES, shapeProblem } from "./json_shape.ts";
export { type TraceContext, withTraceEnv } from "./trace.ts";
export { heapPressure } from "./heap_pressure.ts";
