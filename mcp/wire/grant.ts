/**
 * What one caller may do, when a transport knows (HTTP with OAuth: the scopes of the access
 * token that came with the message). Transport-neutral: the connection checks every request
 * against it, on every channel, and tools/list shows only the tools it allows.
 */
import { type Decoded, INVALID_REQUEST, isPlainObject, type Params } from "./jsonrpc.ts";

/**
 * The JSON-RPC code of a request the caller's authorization does not cover, on every channel:
 * MCP defines none (HTTP's 403 with `insufficient_scope` is the signal), and its specification
 * keeps -32000 to -32019 for legacy codes new implementations should not use and receivers may
 * not read meaning into; so it is JSON-RPC's own -32600, which the 403's body carries too.
 */
export const FORBIDDEN = INVALID_REQUEST;

export interface Grant {
  /** The scopes the caller holds. */
  readonly scopes: ReadonlySet<string>;
  /** Holding it allows read-only tools and everything that changes nothing. */
  readonly readScope: string;
  /** Holding it allows everything, tools that change things included. */
  readonly writeScope: string;
  /**
   * Who the token speaks for (its `sub`, else its client, else the token itself): a session is
   * used only by tokens of whoever opened it.
   */
  readonly subject?: string;
  /** When the authorization ends (ms since the epoch), for channels that outlive a request. */
  readonly expiresAt?: number;
}

/**
 * What a tool is, as far as authorization goes (with a call's arguments: what that call does);
 * undefined for no tool of that name.
 */
export type ToolKind = (
  name: string,
  args?: Record<string, unknown>,
) => "read-only" | "changes" | undefined;

/** Whether a tool of this kind may be called; unknown tools are left to say so themselves. */
export function mayCall(grant: Grant, kind: ReturnType<ToolKind>): boolean {
  if (grant.scopes.has(grant.writeScope)) return true;
  return grant.scopes.has(grant.readScope) && kind !== "changes";
}

/**
 * The scope a request needs that the grant lacks, or undefined when it may go ahead. A
 * tools/call of a tool not annotated read-only needs the write scope; anything else (read-only
 * tools, resources, prompts, completion, ping, tasks) needs at least the read scope.
 *
 * @example
 * ```ts
 * const missing = missingScope(grant, "tools/call", { name: "write_file" }, kindOf);
 * // "toolhost:write" for a token that holds only "toolhost:read"
 * ```
 */
export function missingScope(
  grant: Grant,
  method: string,
  params: Params | undefined,
  kindOf: ToolKind,
): string | undefined {
  if (grant.scopes.has(grant.writeScope)) return undefined;
  if (method === "tools/call") {
    const name = params?.name;
    // The arguments count: a read-only tool may still write when told to (fetch_url's save_to).
    const args = isPlainObject(params?.arguments) ? params.arguments : {};
    const kind = typeof name === "string" ? kindOf(name, args) : undefined;
    if (kind === "changes") return grant.writeScope;
  }
  return grant.scopes.has(grant.readScope) ? undefined : grant.readScope;
}

/** Why a request was refused, as a sentence for its JSON-RPC error. */
export function refusalText(grant: Grant, method: string, missing: string): string {
  return `Forbidden: ${method} needs the scope "${missing}", which this access token does not ` +
    `hold; authorize again asking for it (read-only tools and listings need ` +
    `"${grant.readScope}", every other tool "${grant.writeScope}")`;
}

/** Whether the grant has run out (a WebSocket outliving its token). */
export function expired(grant: Grant, now = Date.now()): boolean {
  return grant.expiresAt !== undefined && now >= grant.expiresAt;
}

/**
 * The scope a decoded message needs that the grant lacks (a batch: the most any item needs), or
 * undefined. Notifications and replies need the read scope: a token with neither can do nothing.
 */
export function missingForMessage(
  grant: Grant,
  decoded: Decoded,
  kindOf: ToolKind,
): string | undefined {
  switch (decoded.kind) {
    case "request":
      return missingScope(grant, decoded.message.method, decoded.message.params, kindOf);
    case "notification":
    case "response":
      return missingScope(grant, "", undefined, kindOf);
    case "batch": {
      let missing: string | undefined;
      for (const item of decoded.items) {
        const each = isPlainObject(item) ? item : {};
        const method = typeof each.method === "string" ? each.method : "";
        const params = isPlainObject(each.params) ? each.params : undefined;
        const lacking = missingScope(grant, method, params, kindOf);
        if (lacking === grant.writeScope) return lacking;
        missing ??= lacking;
      }
      return missing;
    }
    default:
      return undefined;
  }
}
