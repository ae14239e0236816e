/**
 * The ways in that are one channel per session: a WebSocket on the endpoint (websocket.ts) and
 * the 2024-11-05 HTTP+SSE transport on /sse and /messages (legacy_sse.ts). The transport routes
 * to them and shares its session cap through `makeRoom`.
 */
import type { Grant } from "../wire/grant.ts";
import type { Logger } from "../wire/log.ts";
import { INTERNAL_ERROR, INVALID_REQUEST } from "../wire/jsonrpc.ts";
import type { McpService } from "../server/service.ts";
import { readMessage } from "./body.ts";
import type { ChannelSession } from "./channel.ts";
import { accepts } from "./exchange.ts";
import { MESSAGES_PATH, openSseSession, SSE_PATH } from "./legacy_sse.ts";
import { errorResponse } from "./replies.ts";
import type { Upgrade } from "./serve.ts";
import type { Admission } from "./admission.ts";
import type { BodyBudget } from "./body_budget.ts";
import { offersMcp, SUBPROTOCOL, webSocketSession } from "./websocket.ts";

export interface ChannelOptions {
  service: McpService;
  logger: Logger;
  maxBodyBytes: number;
  /** The endpoint a WebSocket upgrades on. */
  path: string;
  /** Below the session cap, or made so by ending an idle session; false when full. */
  makeRoom(): boolean;
  /** The server's budgets: requests running at once, request bodies being read. */
  admission: Admission;
  bodies: BodyBudget;
}

export class Channels {
  readonly #options: ChannelOptions;
  /** By id, while their sessions last. */
  readonly #channels = new Map<string, ChannelSession>();
  /**
   * Connections held, which the cap counts: a session the server ended (a binary frame, a client
   * that stopped reading) keeps its place until its connection has closed, so clients that leave
   * such connections open cannot have more than the cap between them.
   */
  #held = 0;

  constructor(options: ChannelOptions) {
    this.#options = options;
  }

  /** Connections open, the sessions' and those of sessions ended but not yet closed. */
  get size(): number {
    return this.#held;
  }

  all(): IterableIterator<ChannelSession> {
    return this.#channels.values();
  }

  clear(): void {
    this.#channels.clear();
  }

  /**
   * A place under the cap, taken now (the count and the check in one step), or the 503 that says
   * there is none. Whoever gets one gives it back once, with the function returned.
   */
  #room(): (() => void) | Response {
    if (this.#options.makeRoom()) {
      this.#held++;
      let given = false;
      return () => {
        if (given) return;
        given = true;
        this.#held--;
      };
    }
    return errorResponse(
      503,
      INTERNAL_ERROR,
      "Service Unavailable: too many sessions are busy; end one (close its stream or socket, " +
        "or DELETE it) and try again",
    );
  }

  #ended = (session: ChannelSession): void => {
    if (this.#channels.get(session.id) === session) this.#channels.delete(session.id);
  };

  /** GET /sse: a 2024-11-05 session, whose stream names where to POST. */
  openSse(request: Request, grant?: Grant): Response {
    if (request.method !== "GET") {
      return errorResponse(
        405,
        INVALID_REQUEST,
        `Method not allowed: ${request.method}; ${SSE_PATH} takes GET (the 2024-11-05 ` +
          `transport: POST to the URL its endpoint event names)`,
        null,
        { allow: "GET" },
      );
    }
    if (!accepts(request.headers.get("accept")).sse) {
      return errorResponse(
        406,
        INVALID_REQUEST,
        `Not Acceptable: ${SSE_PATH} needs text/event-stream`,
      );
    }
    const release = this.#room();
    if (release instanceof Response) return release;
    // The session ends with its stream: the client went away, the stream was dropped or closed.
    const { session, response } = openSseSession(
      crypto.randomUUID(),
      this.#options.service,
      this.#options.logger,
      (ended) => {
        this.#ended(ended);
        release();
      },
      this.#options.admission,
      grant?.subject,
    );
    this.#channels.set(session.id, session);
    return response;
  }

  /** POST /messages?sessionId=…: one message for a 2024-11-05 session; answers go on its stream. */
  async sseMessage(request: Request, grant?: Grant): Promise<Response> {
    if (request.method !== "POST") {
      return errorResponse(
        405,
        INVALID_REQUEST,
        `Method not allowed: ${request.method}; ${MESSAGES_PATH} takes POST`,
        null,
        { allow: "POST" },
      );
    }
    const id = new URL(request.url).searchParams.get("sessionId");
    const session = id === null ? undefined : this.#channels.get(id);
    if (!session || session.kind !== "sse" || session.ended || session.owner !== grant?.subject) {
      return errorResponse(
        id === null ? 400 : 404,
        INVALID_REQUEST,
        id === null
          ? `Bad Request: no sessionId; open ${SSE_PATH} and POST to the URL its endpoint event names`
          : `Not Found: no session has this sessionId (its stream closed, or it never existed); ` +
            `open ${SSE_PATH} again`,
      );
    }
    const type = request.headers.get("content-type") ?? "";
    if (!/^application\/json\s*(;|$)/i.test(type)) {
      return errorResponse(
        415,
        INVALID_REQUEST,
        `Unsupported Media Type: the body must be application/json (got ${type || "none"})`,
      );
    }
    return await readMessage(
      request,
      this.#options.maxBodyBytes,
      this.#options.bodies,
      ({ decoded, chars, keep }) => {
        // Answered on the stream, after this 202: the body's place is given back then.
        session.receive(decoded, chars, grant, keep());
        return new Response(null, { status: 202 });
      },
    );
  }

  /** A WebSocket handshake on the endpoint: a legacy session for as long as the socket lasts. */
  webSocket(request: Request, upgrade: Upgrade | undefined, grant?: Grant): Response {
    if (request.method !== "GET" || !upgrade) {
      return errorResponse(
        400,
        INVALID_REQUEST,
        "Bad Request: a WebSocket handshake is a GET this server can upgrade",
      );
    }
    if (!offersMcp(request.headers.get("sec-websocket-protocol"))) {
      return errorResponse(
        400,
        INVALID_REQUEST,
        `Bad Request: a WebSocket on ${this.#options.path} must ask for the subprotocol "${SUBPROTOCOL}" ` +
          `(Sec-WebSocket-Protocol: ${SUBPROTOCOL})`,
      );
    }
    const release = this.#room();
    if (release instanceof Response) return release;
    const { session, events } = webSocketSession({
      id: crypto.randomUUID(),
      service: this.#options.service,
      logger: this.#options.logger,
      maxMessageChars: this.#options.maxBodyBytes,
      onEnd: this.#ended,
      onClosed: release,
      admission: this.#options.admission,
      owner: grant?.subject,
    });
    session.grant = grant;
    const response = upgrade(SUBPROTOCOL, events);
    if (response.status < 300) this.#channels.set(session.id, session);
    else release();
    return response;
  }
}
