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
import type { Admission } from "./admission.ts";
import { heapPressure } from "../wire/heap_pressure.ts";

export const SUBPROTOCOL = "mcp";

/** A client this far behind in reading is disconnected rather than let grow our memory. */
const MAX_BUFFERED_BYTES = 16 * 1024 * 1024;
/**
 * How long a connection the client closed keeps its session's place under the cap. The runtime
 * reports the close at once but keeps the connection until the client closes its end too, or
 * until its own timeout (Bun: 12 to 16 s): a client that sends a close frame and then holds its
 * end open must not get a new place for every one it leaves behind.
 */
const CLOSING_MS = 20_000;

/** The close code (RFC 6455) for a server going away. */
const GOING_AWAY = 1001;

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
  /** Runs once when the session ends, whichever side ended it: no more messages for it. */
  onEnd(session: ChannelSession): void;
  /** The subject of the token that opened it (OAuth). */
  owner?: string;
  /** Runs once when the connection has closed (after onEnd): what it held is free. */
  onClosed(session: ChannelSession): void;
  /** The server's budget of requests running at once. */
  admission: Admission;
}

/** A session for one WebSocket, and the events its socket reports to it. */
export function webSocketSession(options: WebSocketOptions): {
  session: ChannelSession;
  events: SocketEvents;
} {
  const { logger, id } = options;
  let peer: SocketPeer | undefined;
  let closed = false;
  let released = false;
  const release = () => {
    if (released) return;
    released = true;
    options.onClosed(session);
  };
  /**
   * Ends a client that broke the protocol or stopped reading: its connection is dropped at once.
   * A close frame would be kinder, but the runtime keeps a connection it sent one on until the
   * client answers (Bun: up to about 15 s, whatever the client does meanwhile), and a session
   * must not give up its place under the cap while its connection still holds one.
   */
  const drop = (why: string) => {
    if (closed) return;
    closed = true;
    logger.log("warning", `WebSocket session ${id}: ${why}; its connection is dropped`);
    try {
      peer?.terminate();
    } catch {
      // already gone
    }
    end();
    release();
  };
  const session = new ChannelSession(
    id,
    "websocket",
    options.service,
    logger,
    (json) => {
      if (!peer || closed) return false;
      if (peer.buffered > MAX_BUFFERED_BYTES) {
        drop("the client stopped reading what the server sends");
        return false;
      }
      peer.send(json);
      return true;
    },
    () => {
      // The server stops: a close frame says why, and nothing waits for the client to answer.
      if (closed) return;
      closed = true;
      try {
        peer?.close(GOING_AWAY, "the server is shutting down");
      } catch {
        // already closing
      }
    },
    options.admission,
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
        drop("it sent a binary frame (MCP over WebSocket takes text frames, one message each)");
        return;
      }
      if (data.length > options.maxMessageChars) {
        drop(`it sent a message over ${options.maxMessageChars} characters`);
        return;
      }
      heapPressure.noteWork(data.length);
      session.receive(decodeLine(data), data.length);
    },
    close: (code) => {
      logger.log("debug", `WebSocket session ${id} closed (${code})`);
      end();
      if (closed) {
        // Dropped by us (gone already), or the server is stopping.
        release();
        return;
      }
      closed = true;
      const timer = setTimeout(release, CLOSING_MS);
      (timer as { unref?: () => void }).unref?.();
    },
  };
  return { session, events };
}
