/**
 * The one place that touches a runtime's own API: serving a web-standard
 * `Request → Response` handler over HTTP with Bun.serve (the compiled binary) or Deno.serve
 * (`deno task start`), and upgrading a request to a WebSocket with either. Everything above it
 * is runtime-neutral.
 */

/** One side of an open WebSocket, as the code above the adapter sees it. */
export interface SocketPeer {
  /** Sends one text frame. */
  send(text: string): void;
  close(code: number, reason: string): void;
  /** Drops the connection at once, without a closing handshake (a client that stopped reading). */
  terminate(): void;
  /** Bytes sent but not yet taken by the client. */
  readonly buffered: number;
}

/** What happens on a WebSocket, told to the code that accepted it. */
export interface SocketEvents {
  open(peer: SocketPeer): void;
  /** A text frame as a string; a binary one as bytes. */
  message(data: string | Uint8Array): void;
  close(code: number, reason: string): void;
}

/**
 * Accepts the request being handled as a WebSocket speaking `protocol`; the handler returns
 * the Response this gives (a placeholder under Bun, which answers the upgrade itself).
 */
export type Upgrade = (protocol: string, events: SocketEvents) => Response;

export type FetchHandler = (request: Request, upgrade?: Upgrade) => Promise<Response>;

/** The address each request came from, as the runtime told it (a web Request has no place for it). */
const addresses = new WeakMap<Request, string>();

/**
 * The IP address of the client that sent `request` ("127.0.0.1", "::1"), when the runtime said.
 *
 * @example
 * const from = clientAddress(request) ?? "unknown"; // limits per client (auth/_introspect.ts)
 */
export function clientAddress(request: Request): string | undefined {
  return addresses.get(request);
}

export interface Listening {
  /** The port bound (useful when 0 was asked for). */
  port: number;
  /** Stops accepting connections and drops the ones open. */
  close(): Promise<void>;
}

interface BunSocket {
  data: SocketEvents;
  send(text: string): number;
  close(code: number, reason: string): void;
  terminate(): void;
  getBufferedAmount(): number;
}
interface BunServer {
  port: number;
  stop(closeActiveConnections?: boolean): Promise<void> | void;
  upgrade(request: Request, options: { headers: HeadersInit; data: SocketEvents }): boolean;
  requestIP(request: Request): { address: string } | null;
}
interface BunRuntime {
  serve(options: {
    hostname: string;
    port: number;
    idleTimeout: number;
    maxRequestBodySize: number;
    fetch(request: Request, server: BunServer): Promise<Response | undefined>;
    error(error: Error): Response;
    websocket: {
      maxPayloadLength: number;
      open(socket: BunSocket): void;
      message(socket: BunSocket, message: string | Uint8Array): void;
      close(socket: BunSocket, code: number, reason: string): void;
    };
  }): BunServer;
}

const internalError = () => new Response("internal error\n", { status: 500 });

/** What a refused upgrade (a request that is no WebSocket handshake after all) gets. */
const notUpgraded = () =>
  new Response("Bad Request: not a valid WebSocket handshake\n", { status: 400 });

/** `maxMessageBytes` bounds one WebSocket message; bodies are bounded above this layer. */
export function serve(
  hostname: string,
  port: number,
  handler: FetchHandler,
  maxMessageBytes = 64 * 1024 * 1024,
): Promise<Listening> {
  const bun = (globalThis as { Bun?: BunRuntime }).Bun;
  if (bun) {
    const server = bun.serve({
      hostname,
      port,
      // Streams stay open for as long as a subscription lasts; keep-alive comments keep them
      // moving, so the runtime's idle cutoff (10 s by default) must not end them.
      idleTimeout: 0,
      // Ours is the limit that counts: we refuse a large Content-Length before reading, and a
      // chunked body as it passes the cap, each with a JSON-RPC error saying so.
      maxRequestBodySize: Number.MAX_SAFE_INTEGER,
      fetch: async (request, server) => {
        const ip = server.requestIP(request)?.address;
        if (ip) addresses.set(request, ip);
        let upgraded = false;
        const response = await handler(request, (protocol, events) => {
          upgraded = server.upgrade(request, {
            headers: { "sec-websocket-protocol": protocol },
            data: events,
          });
          return upgraded ? new Response(null) : notUpgraded();
        });
        // Bun has answered the handshake itself: it wants nothing back.
        return upgraded ? undefined : response;
      },
      error: internalError,
      websocket: {
        // Bun closes with 1009 past this, before the message is held whole.
        maxPayloadLength: maxMessageBytes,
        open: (socket) =>
          socket.data.open({
            send: (text) => void socket.send(text),
            close: (code, reason) => socket.close(code, reason),
            terminate: () => socket.terminate(),
            get buffered() {
              return socket.getBufferedAmount();
            },
          }),
        message: (socket, message) => socket.data.message(message),
        close: (socket, code, reason) => socket.data.close(code, reason),
      },
    });
    return Promise.resolve({
      port: server.port,
      close: async () => {
        await server.stop(true);
      },
    });
  }
  return new Promise((resolve, reject) => {
    try {
      const server = Deno.serve(
        {
          hostname,
          port,
          onListen: ({ port }) => {
            resolve({
              port,
              close: async () => {
                await server.shutdown();
              },
            });
          },
          onError: internalError,
        },
        (request, info) => {
          const remote = info.remoteAddr as { hostname?: string };
          if (remote.hostname) addresses.set(request, remote.hostname);
          return handler(request, (protocol, events) => upgradeDeno(request, protocol, events));
        },
      );
    } catch (error) {
      reject(error);
    }
  });
}

function upgradeDeno(request: Request, protocol: string, events: SocketEvents): Response {
  let upgraded;
  try {
    upgraded = Deno.upgradeWebSocket(request, { protocol });
  } catch {
    return notUpgraded();
  }
  const { socket, response } = upgraded;
  socket.binaryType = "arraybuffer";
  socket.onopen = () =>
    events.open({
      send: (text) => socket.send(text),
      close: (code, reason) => socket.close(code, reason),
      // Deno's WebSocket has no way to drop a connection unannounced: a close is the nearest.
      terminate: () => socket.close(),
      get buffered() {
        return socket.bufferedAmount;
      },
    });
  socket.onmessage = (event) =>
    events.message(typeof event.data === "string" ? event.data : new Uint8Array(event.data));
  socket.onclose = (event) => events.close(event.code, event.reason);
  return response;
}
