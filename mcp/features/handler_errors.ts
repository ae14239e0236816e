/**
 * How failures of resource reads, prompts and completions reach the client: a sentence the user
 * can act on, with the JSON-RPC code each era gives it; never a stack (that goes to stderr).
 */
import { bounded } from "../../config/quote.ts";
import type { Era } from "../wire/versions.ts";
import {
  INTERNAL_ERROR,
  INVALID_PARAMS,
  MISSING_CLIENT_CAPABILITY,
  RESOURCE_NOT_FOUND,
  RpcError,
} from "../wire/jsonrpc.ts";
import { describeLogData, type Logger } from "../wire/log.ts";
import { ResourceNotFound } from "./resource.ts";
import { type MissingClientCapability, ToolError } from "../tool/tool.ts";

/** Unknown resource: -32002 before 2026-07-28, -32602 since. */
export function resourceNotFound(uri: string, era: Era, why?: string): RpcError {
  return new RpcError(
    era === "legacy" ? RESOURCE_NOT_FOUND : INVALID_PARAMS,
    `Resource not found: ${bounded(uri, 300)}${why ? ` (${why})` : ""}`,
    { uri: bounded(uri, 300) },
  );
}

/**
 * The error for what a handler threw while doing `what`: a refusal (ToolError) is the client's
 * to fix (-32602); anything else is ours (-32603), its message kept and the details logged.
 */
export function handlerFailure(
  error: unknown,
  what: string,
  context: { era: Era; logger: Logger; uri?: string },
): RpcError {
  if (error instanceof RpcError) return error;
  const data = context.uri === undefined ? undefined : { uri: bounded(context.uri, 300) };
  if (error instanceof ResourceNotFound && context.uri !== undefined) {
    return resourceNotFound(context.uri, context.era, error.message || undefined);
  }
  if (error instanceof ToolError || error instanceof ResourceNotFound) {
    return new RpcError(INVALID_PARAMS, `Cannot ${what}: ${error.message}`, data);
  }
  context.logger.log("error", `${what} failed: ${describeLogData(error)}`);
  const message = error instanceof Error ? error.message : String(error);
  return new RpcError(INTERNAL_ERROR, `Cannot ${what}: ${message}`, data);
}

/** -32021: the 2026-07-28 request lacks a client capability the call needs. */
export function missingCapability(error: MissingClientCapability): RpcError {
  return new RpcError(
    MISSING_CLIENT_CAPABILITY,
    `Missing client capability: ${error.message}`,
    { requiredCapabilities: error.required },
  );
}
