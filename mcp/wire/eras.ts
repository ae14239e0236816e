/**
 * Which era a request belongs to, and what it declared: a 2026-07-28 request carries its
 * version and client capabilities in `_meta`; anything else belongs to the legacy session that
 * `initialize` opened.
 */
import { bounded, quoted } from "../../config/quote.ts";
import {
  INVALID_PARAMS,
  isPlainObject,
  type Params,
  RpcError,
  UNSUPPORTED_PROTOCOL_VERSION,
} from "./jsonrpc.ts";
import { isLogLevel, LOG_LEVELS, type LogLevel } from "./log.ts";
import {
  type Era,
  isModernVersion,
  META_CLIENT_CAPABILITIES,
  META_LOG_LEVEL,
  META_PROTOCOL_VERSION,
  MODERN_VERSIONS,
  SUPPORTED_VERSIONS,
} from "./versions.ts";

/**
 * What a legacy client and this server agreed on: the version and client capabilities that
 * `initialize` settled, and the log threshold `logging/setLevel` chose since. Every later
 * legacy request of the connection is read in their light.
 */
export interface SessionTerms {
  version: string;
  clientCapabilities: Params;
  /** Threshold set by `logging/setLevel`; no log notifications until the client sets one. */
  logLevel: LogLevel | null;
}

export interface Scope {
  era: Era;
  version: string;
  clientCapabilities: Params;
  /** The client's threshold for log notifications (a function when the session may change it). */
  logLevel: LogLevel | null | (() => LogLevel | null);
}

export const LOG_LEVEL_LIST = LOG_LEVELS.join(", ");

/**
 * The scope of a request carrying `_meta["io.modelcontextprotocol/protocolVersion"]`, or null
 * when it carries none. Throws -32022 for a version we do not serve statelessly and -32602 for
 * missing or malformed fields, before anything else about the request is looked at.
 */
export function modernScope(meta: Params): Scope | null {
  if (!(META_PROTOCOL_VERSION in meta)) return null;
  const version = meta[META_PROTOCOL_VERSION];
  if (typeof version !== "string") {
    throw new RpcError(
      INVALID_PARAMS,
      `Invalid params: _meta["${META_PROTOCOL_VERSION}"] must be a string`,
    );
  }
  if (!isModernVersion(version)) {
    const legacy = SUPPORTED_VERSIONS.includes(version);
    throw new RpcError(
      UNSUPPORTED_PROTOCOL_VERSION,
      legacy
        ? `Unsupported protocol version ${version} for a request with per-request _meta: ${version} starts with initialize; stateless requests need ${
          MODERN_VERSIONS.join(", ")
        }`
        : `Unsupported protocol version ${quoted(version)}; supported: ${
          SUPPORTED_VERSIONS.join(", ")
        }`,
      // Listing the legacy version itself would invite the same request again.
      {
        supported: legacy ? MODERN_VERSIONS : SUPPORTED_VERSIONS,
        requested: bounded(version, 100),
      },
    );
  }
  const capabilities = meta[META_CLIENT_CAPABILITIES];
  if (!isPlainObject(capabilities)) {
    throw new RpcError(
      INVALID_PARAMS,
      `Invalid params: _meta["${META_CLIENT_CAPABILITIES}"] is required (an object; {} when the client has none)`,
    );
  }
  const level = meta[META_LOG_LEVEL];
  if (level !== undefined && !isLogLevel(level)) {
    throw new RpcError(
      INVALID_PARAMS,
      `Invalid params: _meta["${META_LOG_LEVEL}"] must be one of ${LOG_LEVEL_LIST}`,
    );
  }
  return { era: "modern", version, clientCapabilities: capabilities, logLevel: level ?? null };
}
