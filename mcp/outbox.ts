/** Where a connection's parts send messages and log: the connection's own way out. */
import type { JsonRpcMessage, JsonRpcResponse, RequestId } from "./jsonrpc.ts";
import type { Logger } from "./log.ts";

export interface Outbox {
  /**
   * Every outgoing message (or batch reply) in the order it should be written. Returns false,
   * sending nothing, when the message cannot be encoded as JSON. `related` is the id of the
   * client's request a message belongs to (a reply, its progress, a question asked for it):
   * HTTP sends such messages on that request's stream.
   */
  send(message: JsonRpcMessage | JsonRpcResponse[], related?: RequestId): boolean;
  /** Diagnostics; goes to stderr, never to the client's stdout. */
  logger: Logger;
}
