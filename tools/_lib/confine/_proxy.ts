/**
 * The sandbox's filtering proxy, one per session: HTTP/1.1 CONNECT tunnels and plain http
 * requests in absolute form, on a unix socket (which the session's network holder forwards
 * 127.0.0.1:PORT of the namespace to) or on TCP 127.0.0.1 where there are no namespaces. Each
 * request names its call by the token in its proxy credentials; the call decides (the rules, the
 * person, the guard) and the proxy connects to the address that was checked. One request per
 * connection; heads bounded in size and time; bodies piped, never buffered without bound.
 */
import { Buffer } from "node:buffer";
import { createServer, type Server, type Socket } from "node:net";
import {
  answer,
  BadRequest,
  type BodyFraming,
  type Destination,
  destinationOf,
  forwardedHead,
  framingOf,
  headEnd,
  parseHead,
  type RequestHead,
  tokenOf,
} from "./_proxy_http.ts";
import { relayPlain } from "./_proxy_plain.ts";
import {
  connectTarget,
  Refused,
  type Target,
  Unreachable,
  type Upstream,
} from "./_proxy_upstream.ts";

/** What the proxy asks of the calls it serves. */
export interface ProxyPolicy {
  /** The running call one of `tokens` names; undefined refuses the request (407). */
  call(tokens: string[]): ProxyCall | undefined;
}

export interface ProxyCall {
  /**
   * Whether `host` on `port` may be reached, and where: throws Refused (which the call records)
   * or Unreachable. May wait for the person's answer.
   */
  admit(host: string, port: number, scheme: "http" | "https"): Promise<Target>;
}

const HEAD_BYTES = 16 * 1024;
const HEAD_MS = 10_000;
/** A tunnel or request with no traffic either way for this long is closed. */
const IDLE_MS = 10 * 60 * 1000;
/** Connections at once; the holder itself takes at most 64. */
const MAX_CONNECTIONS = 256;

/** The proxy's bounds in time; tests shorten them. */
export interface ProxyTimes {
  /** For a request's head to arrive whole. */
  headMs?: number;
  /** With no traffic either way, a tunnel or request is closed. */
  idleMs?: number;
}

export class FilteringProxy {
  readonly #policy: ProxyPolicy;
  readonly #sockets = new Set<Socket>();
  readonly #headMs: number;
  readonly #idleMs: number;
  #server?: Server;

  constructor(policy: ProxyPolicy, times: ProxyTimes = {}) {
    this.#policy = policy;
    this.#headMs = times.headMs ?? HEAD_MS;
    this.#idleMs = times.idleMs ?? IDLE_MS;
  }

  /** Listens on a unix socket's path, or on TCP 127.0.0.1 (returns the port). */
  listen(where: { path: string } | { port: 0 }): Promise<number> {
    const server = createServer({ allowHalfOpen: true }, (client) => this.#accept(client));
    this.#server = server;
    return new Promise((resolve, reject) => {
      server.once("error", reject);
      const ready = () => {
        server.off("error", reject);
        const address = server.address();
        resolve(typeof address === "object" && address ? address.port : 0);
      };
      if ("path" in where) server.listen(where.path, ready);
      else server.listen(0, "127.0.0.1", ready);
    });
  }

  /** Stops listening and ends every connection at once. */
  close(): Promise<void> {
    for (const socket of this.#sockets) socket.destroy();
    this.#sockets.clear();
    const server = this.#server;
    if (!server) return Promise.resolve();
    return new Promise((resolve) => server.close(() => resolve()));
  }

  /** Connections open now (each tunnel counts its two ends). */
  get connections(): number {
    return this.#sockets.size;
  }

  #track(socket: Socket): void {
    this.#sockets.add(socket);
    socket.once("close", () => this.#sockets.delete(socket));
    socket.on("error", () => socket.destroy());
  }

  #accept(client: Socket): void {
    this.#track(client);
    // Until a request is under way: a client that never closes is closed.
    client.setTimeout(this.#idleMs, () => client.destroy());
    if (this.#sockets.size > MAX_CONNECTIONS) {
      endWith(
        client,
        answer(
          503,
          "Service Unavailable",
          "toolhost's sandbox proxy: too many connections at once",
        ),
      );
      return;
    }
    let buffer: Buffer = Buffer.alloc(0);
    const timer = setTimeout(() => {
      client.off("data", onData);
      endWith(
        client,
        answer(
          408,
          "Request Timeout",
          `toolhost's sandbox proxy: no request head in ${this.#headMs / 1000} s`,
        ),
      );
    }, this.#headMs);
    const onData = (chunk: Buffer) => {
      buffer = buffer.length === 0 ? chunk : Buffer.concat([buffer, chunk]);
      const end = headEnd(buffer);
      if (end < 0 && buffer.length <= HEAD_BYTES) return;
      clearTimeout(timer);
      client.off("data", onData);
      client.pause();
      if (end < 0 || end > HEAD_BYTES) {
        endWith(
          client,
          answer(
            431,
            "Request Header Fields Too Large",
            "toolhost's sandbox proxy: the request head is over 16 KiB",
          ),
        );
        return;
      }
      const text = buffer.subarray(0, end).toString("latin1");
      this.#handle(client, text, buffer.subarray(end + 4)).catch(() => client.destroy());
    };
    client.on("data", onData);
    client.once("close", () => clearTimeout(timer));
  }

  async #handle(client: Socket, text: string, rest: Buffer): Promise<void> {
    let upstream: Upstream;
    let head: RequestHead;
    let destination: Destination;
    let framing: BodyFraming | undefined;
    try {
      head = parseHead(text);
      const call = this.#policy.call(tokenOf(head));
      if (!call) {
        endWith(
          client,
          answer(
            407,
            "Proxy Authentication Required",
            "toolhost's sandbox proxy: this request carries no token of a running command " +
              "(the proxy variables a command is given hold it)",
            'Proxy-Authenticate: Basic realm="toolhost sandbox"\r\n',
          ),
        );
        return;
      }
      destination = destinationOf(head);
      if (head.method !== "CONNECT") framing = framingOf(head);
      const target = await call.admit(
        destination.host,
        destination.port,
        framing ? "http" : "https",
      );
      if (client.destroyed) return;
      upstream = await connectTarget(target, !framing);
    } catch (error) {
      if (!client.destroyed) endWith(client, failure(error));
      return;
    }
    const up = upstream.socket;
    if (client.destroyed) return void up.destroy();
    this.#track(up);
    const both = () => {
      client.destroy();
      up.destroy();
    };
    client.once("close", () => up.destroy());
    up.once("close", () => client.end());
    client.setTimeout(this.#idleMs, both);
    up.setTimeout(this.#idleMs, both);
    if (!framing) {
      client.write("HTTP/1.1 200 Connection established\r\n\r\n");
      if (rest.length > 0) up.write(rest);
      client.pipe(up);
      up.pipe(client);
      client.resume();
      return;
    }
    up.write(forwardedHead(head, destination, upstream.proxy));
    relayPlain(client, up, rest, framing, head.method);
  }
}

/**
 * Ends a connection with the proxy's own answer. What the client still sends is read and dropped,
 * so its end arrives and the connection closes (the server keeps half-open connections).
 */
function endWith(client: Socket, text: string): void {
  client.end(text);
  client.resume();
}

/** The proxy's own answer for a request it did not pass on. */
function failure(error: unknown): string {
  const message = (error as Error)?.message ?? String(error);
  if (error instanceof Refused) {
    return answer(403, "Forbidden", `toolhost's sandbox refused this: ${message}`);
  }
  if (error instanceof Unreachable) {
    return answer(502, "Bad Gateway", `toolhost's sandbox proxy: ${message}`);
  }
  if (error instanceof BadRequest) {
    return answer(
      error.status,
      error.status === 501 ? "Not Implemented" : "Bad Request",
      `toolhost's sandbox proxy: ${message}`,
    );
  }
  return answer(500, "Internal Server Error", `toolhost's sandbox proxy failed: ${message}`);
}
