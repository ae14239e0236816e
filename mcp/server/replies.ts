/**
 * How one connection's replies go out: after the reply to an `initialize` still being handled,
 * modern results decorated with their type and the server, and a result JSON cannot carry sent
 * as -32603 rather than crashing the connection.
 */
import { quotedJson } from "../../config/quote.ts";
import {
  failure,
  INTERNAL_ERROR,
  isPlainObject,
  type JsonRpcResponse,
  type RequestId,
} from "../wire/jsonrpc.ts";
import { type Era, META_SERVER_INFO } from "../wire/versions.ts";
import type { Outbox } from "./outbox.ts";
import type { ServerInfo } from "./service.ts";

/** What a call still running when the server stops is told, whatever held it up. */
const STOPPED_TEXT = "Stopped: the server is shutting down.";

/**
 * @example An initialize answered late still goes out before what was made meanwhile
 * ```ts
 * import { Replies } from "./replies.ts";
 *
 * declare const outbox: import("./outbox.ts").Outbox;
 * const replies = new Replies(outbox, { name: "toolhost", version: "1" });
 * replies.initializeStarted();
 * replies.send({ jsonrpc: "2.0", id: null, error: { code: -32700, message: "Parse error" } });
 * replies.initializeAnswered({ jsonrpc: "2.0", id: 1, result: {} }); // sent first, then the error
 * ```
 */
export class Replies {
  readonly #outbox: Outbox;
  readonly #info: ServerInfo;
  /** Shared by every modern result that has no `_meta` of its own; never modified. */
  readonly #serverMeta: Record<string, unknown>;
  /** `initialize`s not answered yet: replies made meanwhile (a parse error, id null) wait. */
  #initializing = 0;
  #held: (JsonRpcResponse | JsonRpcResponse[])[] = [];

  constructor(outbox: Outbox, info: ServerInfo) {
    this.#outbox = outbox;
    this.#info = info;
    this.#serverMeta = Object.freeze({ [META_SERVER_INFO]: info });
  }

  /** An `initialize` is being handled: other replies wait for its own. */
  initializeStarted(): void {
    this.#initializing++;
  }

  /** The `initialize` is answered (null: no reply); what waited for it goes out after it. */
  initializeAnswered(reply: JsonRpcResponse | null): void {
    if (reply) this.#write(reply);
    if (--this.#initializing === 0) {
      for (const held of this.#held.splice(0)) this.#write(held);
    }
  }

  /** Sends a reply, after the reply to an `initialize` still being handled. */
  send(reply: JsonRpcResponse | JsonRpcResponse[]): void {
    if (this.#initializing > 0) this.#held.push(reply);
    else this.#write(reply);
  }

  /**
   * Modern results name their type and the server (server/discover's own serverInfo, with icons,
   * wins). Handlers return fresh objects: edit in place.
   */
  decorate(result: Record<string, unknown>, era: Era): Record<string, unknown> {
    if (era === "legacy") return result;
    result.resultType ??= "complete";
    result._meta = isPlainObject(result._meta)
      ? { [META_SERVER_INFO]: this.#info, ...result._meta }
      : this.#serverMeta;
    return result;
  }

  /** The reply to a call the shutdown stopped waiting for: a tool error, or -32603. */
  stopped(call: { id: RequestId; method: string; era: Era }): JsonRpcResponse {
    if (call.method !== "tools/call") return failure(call.id, INTERNAL_ERROR, STOPPED_TEXT);
    const result = { content: [{ type: "text", text: STOPPED_TEXT }], isError: true };
    return { jsonrpc: "2.0", id: call.id, result: this.decorate(result, call.era) };
  }

  /** Sends a reply; one that JSON cannot carry (a BigInt, a cycle) becomes -32603, not a crash. */
  #write(reply: JsonRpcResponse | JsonRpcResponse[]): void {
    const related = Array.isArray(reply) ? undefined : reply.id ?? undefined;
    if (this.#outbox.send(reply, related)) return;
    const encodable = (r: JsonRpcResponse) => {
      try {
        JSON.stringify(r);
        return r;
      } catch {
        this.#outbox.logger.log(
          "error",
          `the reply to ${quotedJson(r.id)} could not be encoded as JSON`,
        );
        return failure(
          r.id,
          INTERNAL_ERROR,
          "Internal error: the result could not be encoded as JSON",
        );
      }
    };
    this.#outbox.send(Array.isArray(reply) ? reply.map(encodable) : encodable(reply), related);
  }
}
