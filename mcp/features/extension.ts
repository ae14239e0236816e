/**
 * The extension contract (SEP-2133): a family that speaks an MCP extension contributes its
 * methods and the settings it announces under `capabilities.extensions`, with defineExtension().
 * mcp/ answers the methods in both eras and on every transport, as it answers tools/list, without
 * knowing what they do.
 */
import type { Params } from "../wire/jsonrpc.ts";
import type { ReadContext } from "./resource.ts";

/** What an extension's method may use: a resource read's view of the request, and its terms. */
export interface ExtensionContext extends ReadContext {
  readonly era: "legacy" | "modern";
  /** Items per page, as every list method of this server pages. */
  readonly pageSize: number;
  /** How long clients may cache what they are given (the `ttlMs` of cacheable results). */
  readonly cacheTtlMs: number;
}

/**
 * One method: its result, or an RpcError (mcp/wire/jsonrpc.ts) for a request it cannot answer
 * (-32602 for an unknown URI, say). Any other exception is an internal error.
 */
export type ExtensionMethod = (
  params: Params,
  ctx: ExtensionContext,
) => Promise<Record<string, unknown>>;

export interface ExtensionSpec {
  /** `{vendor-prefix}/{name}`, the key under capabilities.extensions. */
  id: string;
  /** What the server announces for it: its settings object ({} when it has none). */
  settings: Record<string, unknown>;
  methods: Record<string, ExtensionMethod>;
  /** Offered only while the tool of this name is (as resources and prompts may be). */
  requires?: string;
}

export interface Extension extends ExtensionSpec {
  readonly kind: "extension";
}

const EXTENSION_ID = /^[A-Za-z0-9][A-Za-z0-9.-]*\/[A-Za-z0-9][A-Za-z0-9._-]*$/;

/**
 * @example
 * export default defineExtension({
 *   id: "com.example/echo",
 *   settings: {},
 *   methods: { "echo/say": async (params) => ({ said: params.text }) },
 * });
 */
export function defineExtension(spec: ExtensionSpec): Extension {
  if (!EXTENSION_ID.test(spec.id)) {
    throw new Error(`Extension id ${JSON.stringify(spec.id)} must be {vendor-prefix}/{name}`);
  }
  return { ...spec, kind: "extension" };
}
