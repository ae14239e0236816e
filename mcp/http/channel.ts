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
import type { Admission } from "./admission.ts";

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
    /** The server's budget of requests running at once. */
    readonly admission: Admission,
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

  /**
   * One decoded message from the client (`chars` long), under the grant of the request that
   * carried it; a request starts once the server has room for it. `settled` runs once it is
   * answered, or refused.
   */
  receive(decoded: Decoded, chars: number, grant = this.grant, settled?: () => void): void {
    const refuse = (message: string) => {
      if (decoded.kind === "request") {
        this.#send(failure(decoded.message.id, INTERNAL_ERROR, message));
      }
      settled?.();
    };
    if (this.#ended) return refuse("this session has ended");
    if (decoded.kind === "request" && this.conn.unanswered >= MAX_IN_FLIGHT) {
      return refuse(
        `Too many requests in flight: this ${this.kind} session runs at most ${MAX_IN_FLIGHT} ` +
          "at once; wait for some answers and send it again",
      );
    }
    if (decoded.kind === "request" && this.admission.full(chars)) {
      return refuse("Too many requests are waiting to run on this server; send it again shortly");
    }
    const wanted = () => !this.#ended;
    this.admission.hand(this.id, chars, decoded, this.conn, grant, { wanted, settled });
  }

  /** The channel closed (the client went away): what runs is stopped, and nothing more is sent. */
  async gone(): Promise<void> {
    if (this.#ended) return;
    this.#ended = true;
    this.admission.forget(this.id);
    await this.conn.shutdown(1000);
  }

  /** The server ends the session: work in flight is stopped and answered, then the channel closes. */
  async close(): Promise<void> {
    if (this.#ended) return;
    await this.conn.shutdown(1000);
    this.#ended = true;
    this.admission.forget(this.id);
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
    this.admission.sent(json.length);
    return this.write(json);
  }
}
