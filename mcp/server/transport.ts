/**
 * The seam between a way in (stdio, a Streamable HTTP session, a WebSocket, an HTTP+SSE stream)
 * and the connection that holds one client's conversation. A transport gives the connection its
 * way out (`Transport`); `connect()` (connect.ts) gives it back the connection as a transport
 * sees it (`TransportConnection`): where decoded messages go in, and how to stop.
 */
import type { Decoded, JsonRpcMessage, JsonRpcResponse, RequestId } from "../wire/jsonrpc.ts";
import type { Grant } from "../wire/grant.ts";
import type { LogLevel } from "../wire/log.ts";
import type { SessionMemory } from "../tool/session_memory.ts";

/** One message the connection sends, or the replies to one batch. */
export type Outgoing = JsonRpcMessage | JsonRpcResponse[];

/**
 * What a transport gives a connection: where every outgoing message goes.
 *
 * @example A transport that writes one JSON line per message to a socket
 * ```ts
 * const conn = connect(service, {
 *   send(message) {
 *     let json: string;
 *     try {
 *       json = JSON.stringify(message);
 *     } catch {
 *       return false; // the connection answers -32603 instead
 *     }
 *     socket.write(json + "\n");
 *     return true;
 *   },
 * });
 * socket.on("line", (line) => conn.receive(decodeLine(line)));
 * socket.on("close", () => conn.shutdown(1000));
 * ```
 */
export interface Transport {
  /**
   * Every outgoing message (or batch reply) in the order it should be written. Returns false,
   * sending nothing, when the message cannot be encoded as JSON (or, for a request of ours, when
   * nothing can carry it: the question then fails at once). `related` is the id of the client's
   * request a message belongs to (a reply, its progress, a question asked for it): HTTP sends
   * such messages on that request's stream.
   */
  send(message: Outgoing, related?: RequestId): boolean;
}

/**
 * Whose session a connection is: by default its own, made with it and ended when it closes (of
 * `subject`, an OAuth token's; none without OAuth). A transport that makes a connection per
 * request gives them all one `session` it keeps and ends itself.
 */
export type SessionOf = { subject?: string; session?: never } | {
  session: SessionMemory;
  subject?: never;
};

/** What a transport gets back from `connect()`: the connection, as seen from the wire. */
export interface TransportConnection {
  /**
   * Handles one decoded message (a line of stdin, an HTTP body, a WebSocket frame). Never
   * throws; every problem becomes a reply or a stderr line. With a `grant` (HTTP with OAuth),
   * a request it does not cover is answered with an error instead of being run. `answered` runs
   * once its reply is sent, or it is dropped (at once for what gets none).
   */
  receive(decoded: Decoded, grant?: Grant, answered?: () => void): void;
  /**
   * Stops taking work: new requests are refused, work in flight is aborted and answered.
   * Resolves when everything is answered, or after `ms`; then the connection is closed.
   */
  shutdown(ms: number): Promise<void>;
  /** Stops the connection's watches once it is no longer used (a one-request connection). */
  close(): void;
  /** Resolves once every request has been answered (or dropped), or after `ms`. */
  settled(ms: number): Promise<void>;
  /** The client went away from one request (its stream closed): it gets no reply. */
  cancel(id: RequestId, reason?: string): void;
  /** Whether a request with this id is in flight. */
  busy(id: RequestId): boolean;
  /** Logs what belongs to no request: to stderr (unless told not to) and to a listening client. */
  log(level: LogLevel, logger: string, data: unknown, toStderr?: boolean): void;
  /** The protocol version `initialize` settled, if it has run. */
  readonly sessionVersion: string | undefined;
  /** Requests in flight (for the shutdown's log line). */
  readonly inFlight: number;
  /** Requests and batches started whose replies are not sent yet: the transport's flow control. */
  readonly unanswered: number;
  /** Requests and batches answered (or dropped) since the start. */
  readonly answeredCount: number;
  /** Resolves once fewer than `n` requests and batches are unanswered. */
  whenUnansweredBelow(n: number): Promise<void>;
}
