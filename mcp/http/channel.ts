/**
 * A legacy session over one long-lived channel: the 2024-11-05 HTTP+SSE transport (a GET
 * stream, with POSTs for what the client sends) or a WebSocket. Everything the connection sends
 * goes down the channel in order, whatever request it belongs to; the session lasts as long as
 * the channel. Requests of 2026-07-28 that come this way are answered statelessly by the same
 * connection, as over stdio.
 */
import { type Decoded, failure, INTERNAL_ERROR } from "../wire/jsonrpc.ts";
import type { Grant } from "../wire/grant.ts";
import type { Logger } from "../wire/log.ts";
import { connect } from "../server/connect.ts";
import type { McpService } from "../server/service.ts";
import type { Outgoing, TransportConnection } from "../server/transport.ts";

/** Requests of one channel running at once at most; past it a request is refused at once. */
export const MAX_IN_FLIGHT = 256;

/** Sends one encoded message down the channel: false once it cannot carry it. */
export type ChannelWrite = (json: string) => boolean;

export class ChannelSession {
  readonly conn: TransportConnection;
  #ended = false;

  constructor(
    readonly id: string,
    readonly kind: "sse" | "websocket",
    service: McpService,
    readonly logger: Logger,
    readonly write: ChannelWrite,
    /** Closes the channel from our side (the server stops). */
    readonly closeChannel: () => void,
    /**
     * The subject of the token that opened it (OAuth): tokens of another cannot use it, and its
     * session memory is that subject's.
     */
    readonly owner?: string,
  ) {
    this.conn = connect(service, { send: (message) => this.#send(message) }, { subject: owner });
  }

  get ended(): boolean {
    return this.#ended;
  }

  /** What the channel's own token allows (a WebSocket's, from its handshake). */
  grant?: Grant;

  /** One decoded message from the client, under the grant of the request that carried it. */
  receive(decoded: Decoded, grant = this.grant): void {
    if (this.#ended) return;
    if (decoded.kind === "request" && this.conn.unanswered >= MAX_IN_FLIGHT) {
      this.#send(failure(
        decoded.message.id,
        INTERNAL_ERROR,
        `Too many requests in flight: this ${this.kind} session runs at most ${MAX_IN_FLIGHT} ` +
          "at once; wait for some answers and send it again",
      ));
      return;
    }
    this.conn.receive(decoded, grant);
  }

  /** The channel closed (the client went away): what runs is stopped, and nothing more is sent. */
  async gone(): Promise<void> {
    if (this.#ended) return;
    this.#ended = true;
    await this.conn.shutdown(1000);
  }

  /** The server ends the session: work in flight is stopped and answered, then the channel closes. */
  async close(): Promise<void> {
    if (this.#ended) return;
    await this.conn.shutdown(1000);
    this.#ended = true;
    this.closeChannel();
  }

  /** False for what could not be encoded or sent: a question nobody can receive fails now. */
  #send(message: Outgoing): boolean {
    if (this.#ended) return false;
    let json: string;
    try {
      json = JSON.stringify(message);
    } catch {
      return false;
    }
    return this.write(json);
  }
}
