/**
 * MCP over a WebSocket on the Streamable HTTP endpoint, subprotocol `mcp` (what the official
 * TypeScript SDK's WebSocketClientTransport asks for): one JSON-RPC message per text frame in
 * each direction, a legacy session per connection, server requests and notifications whenever
 * they arise. The runtime's part (the handshake, frames) is serve.ts's; this is the protocol's.
 */
import { decodeLine } from "../wire/jsonrpc.ts";
import type { Logger } from "../wire/log.ts";
import type { McpService } from "../server/service.ts";
import { ChannelSession } from "./channel.ts";
import type { SocketEvents, SocketPeer } from "./serve.ts";

export const SUBPROTOCOL = "mcp";

/** A client this far behind in reading is disconnected rather than let grow our memory. */
const MAX_BUFFERED_BYTES = 16 * 1024 * 1024;

/** Close codes (RFC 6455): normal, going away, unsupported data, policy, too big. */
export const CLOSE = {
  normal: 1000,
  goingAway: 1001,
  unsupportedData: 1003,
  policy: 1008,
  tooBig: 1009,
} as const;

/** Whether a handshake's Sec-WebSocket-Protocol offers `mcp`. */
export function offersMcp(header: string | null): boolean {
  return (header ?? "").split(",").some((name) => name.trim() === SUBPROTOCOL);
}

export interface WebSocketOptions {
  id: string;
  service: McpService;
  logger: Logger;
  /** A text message over this many characters closes the connection (1009). */
  maxMessageChars: number;
  /** Runs once when the connection ends, whichever side ended it. */
  onEnd(session: ChannelSession): void;
  /** The subject of the token that opened it (OAuth). */
  owner?: string;
}

/** A session for one WebSocket, and the events its socket reports to it. */
export function webSocketSession(options: WebSocketOptions): {
  session: ChannelSession;
  events: SocketEvents;
} {
  const { logger, id } = options;
  let peer: SocketPeer | undefined;
  let closed = false;
  const closeWith = (code: number, reason: string) => {
    if (closed) return;
    closed = true;
    try {
      peer?.close(code, reason);
    } catch {
      // already closing
    }
  };
  const session = new ChannelSession(
    id,
    "websocket",
    options.service,
    logger,
    (json) => {
      if (!peer || closed) return false;
      if (peer.buffered > MAX_BUFFERED_BYTES) {
        logger.log("warning", `WebSocket session ${id}: the client stopped reading; closing`);
        closeWith(CLOSE.policy, "the client stopped reading what the server sends");
        end();
        return false;
      }
      peer.send(json);
      return true;
    },
    () => closeWith(CLOSE.goingAway, "the server is shutting down"),
    options.owner,
  );
  let ended = false;
  const end = () => {
    if (ended) return;
    ended = true;
    options.onEnd(session);
    session.gone().catch(() => {});
  };
  const events: SocketEvents = {
    open: (opened) => {
      peer = opened;
      logger.log("debug", `WebSocket session ${id} opened`);
    },
    message: (data) => {
      if (typeof data !== "string") {
        closeWith(
          CLOSE.unsupportedData,
          "MCP over WebSocket takes text frames, one JSON-RPC message each",
        );
        end();
        return;
      }
      if (data.length > options.maxMessageChars) {
        closeWith(CLOSE.tooBig, `messages are limited to ${options.maxMessageChars} characters`);
        end();
        return;
      }
      session.receive(decodeLine(data));
    },
    close: (code) => {
      closed = true;
      logger.log("debug", `WebSocket session ${id} closed (${code})`);
      end();
    },
  };
  return { session, events };
}
