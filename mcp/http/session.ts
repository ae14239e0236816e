/**
 * A legacy (2025-11-25 and earlier) session over HTTP: one connection named by Mcp-Session-Id,
 * kept between requests. It routes what the connection sends: a reply to the POST that asked,
 * what belongs to a request (progress, log lines, questions to the client) onto that POST's
 * stream, and the rest (change notifications) onto the session's GET stream.
 */
import type { Decoded, RequestId } from "../wire/jsonrpc.ts";
import type { Grant } from "../wire/grant.ts";
import type { Admission } from "./admission.ts";
import { requestKey } from "../wire/jsonrpc.ts";
import type { Logger } from "../wire/log.ts";
import { connect } from "../server/connect.ts";
import type { McpService } from "../server/service.ts";
import type { Outgoing, TransportConnection } from "../server/transport.ts";
import { type Accepts, Exchange } from "./exchange.ts";
import type { SseStream } from "./sse.ts";

export class HttpSession {
  readonly conn: TransportConnection;
  /** POSTs waiting for their reply, by request id. */
  readonly exchanges = new Map<string, Exchange>();
  stream?: SseStream;
  lastActive = Date.now();
  constructor(
    readonly id: string,
    service: McpService,
    readonly logger: Logger,
    readonly admission: Admission,
    /**
     * The subject of the token that opened it (OAuth): tokens of another cannot use it, and its
     * session memory is that subject's.
     */
    readonly owner?: string,
  ) {
    this.conn = connect(
      service,
      { send: (message, related) => this.#send(message, related) },
      { subject: owner },
    );
  }

  /** A message of `chars` for the connection, a request once the server has room for it. */
  receive(decoded: Decoded, grant: Grant | undefined, chars: number, wanted?: () => boolean) {
    this.admission.hand(this.id, chars, decoded, this.conn, grant, { wanted });
  }

  /** Nothing waits on it and no stream is open: it may be ended to make room. */
  get idle(): boolean {
    return this.exchanges.size === 0 && (!this.stream || this.stream.closed);
  }

  /** The exchange of a POST that carries requests `ids`; the client hanging up cancels them. */
  exchangeFor(request: Request, ids: RequestId[], accept: Accepts): Exchange {
    const exchange = new Exchange(accept, () => {
      for (const id of ids) {
        this.exchanges.delete(requestKey(id));
        this.conn.cancel(id, "the client closed the HTTP request");
      }
    });
    for (const id of ids) this.exchanges.set(requestKey(id), exchange);
    request.signal.addEventListener("abort", () => exchange.gone(), { once: true });
    return exchange;
  }

  /** The client cancelled a request: it gets no reply, so its POST ends here. */
  cancelled(id: RequestId): void {
    const exchange = this.exchanges.get(requestKey(id));
    if (!exchange) return;
    this.exchanges.delete(requestKey(id));
    exchange.abandon(204);
  }

  /** False only for what could not be encoded, or a request of ours that no stream can carry. */
  #send(message: Outgoing, related?: RequestId): boolean {
    let json: string;
    try {
      json = JSON.stringify(message);
    } catch {
      return false;
    }
    this.admission.sent(json.length);
    if (Array.isArray(message)) {
      const first = message.find((reply) => reply.id !== null);
      const exchange = first ? this.exchanges.get(requestKey(first.id!)) : undefined;
      for (const reply of message) {
        if (reply.id !== null) this.exchanges.delete(requestKey(reply.id));
      }
      exchange?.finish(json);
      return true;
    }
    if (!("method" in message)) {
      const exchange = message.id === null ? undefined : this.exchanges.get(requestKey(message.id));
      if (exchange) {
        this.exchanges.delete(requestKey(message.id!));
        exchange.finish(json);
      }
      return true;
    }
    const exchange = related === undefined ? undefined : this.exchanges.get(requestKey(related));
    if (exchange?.push(json)) return true;
    if (this.stream && !this.stream.closed) return this.stream.send(json);
    this.logger.log("debug", `session ${this.id}: no stream open for ${message.method}`);
    // A question nobody can receive must fail now, not after its timeout.
    return !("id" in message);
  }

  async close(): Promise<void> {
    this.admission.forget(this.id);
    await this.conn.shutdown(1000);
    for (const exchange of this.exchanges.values()) exchange.abandon();
    this.exchanges.clear();
    this.stream?.close();
  }
}
