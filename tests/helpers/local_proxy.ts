/**
 * A small HTTP proxy for tests, on 127.0.0.1: CONNECT tunnels (for https) and absolute-form
 * requests (for http), like a real forward proxy, except that it resolves names from a table the
 * test gives (`secure.test` -> a port on 127.0.0.1), so no traffic ever leaves this machine. It
 * records what it was asked and can demand credentials. Also a TLS site with the test
 * certificate (tests/fixtures/web/tls, valid for secure.test and 127.0.0.1) that records the
 * server name each handshake asked for.
 */
import { readFileSync } from "node:fs";
import { createServer, type IncomingMessage, request, type ServerResponse } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import { type AddressInfo, connect, type Socket } from "node:net";
import type { TLSSocket } from "node:tls";

const TLS_DIR = new URL("../fixtures/web/tls/", import.meta.url);
export const TEST_CA = readFileSync(new URL("cert.pem", TLS_DIR), "utf8");
const TEST_KEY = readFileSync(new URL("key.pem", TLS_DIR), "utf8");
/** The certificate's file, for NODE_EXTRA_CA_CERTS. */
export const TEST_CA_FILE = new URL("cert.pem", TLS_DIR).pathname;

export interface ProxyRecord {
  /** "CONNECT secure.test:443" or "GET http://site.test/page". */
  line: string;
  authorization?: string;
}

export interface LocalProxy {
  port: number;
  url: string;
  seen: ProxyRecord[];
  close(): Promise<void>;
}

/**
 * `hosts` maps "name:port" (as the request names it) to a port on 127.0.0.1; anything else gets
 * 502. With `credentials` ("user:password"), requests without them get 407.
 */
export async function startProxy(
  hosts: Record<string, number>,
  credentials?: string,
): Promise<LocalProxy> {
  const seen: ProxyRecord[] = [];
  const sockets = new Set<Socket>();
  const expected = credentials ? `Basic ${btoa(credentials)}` : undefined;
  const target = (authority: string) => hosts[authority.toLowerCase()];
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    seen.push({
      line: `${req.method} ${req.url}`,
      authorization: req.headers["proxy-authorization"],
    });
    if (expected && req.headers["proxy-authorization"] !== expected) {
      res.writeHead(407, { "proxy-authenticate": 'Basic realm="test"' });
      return res.end();
    }
    let url: URL;
    try {
      url = new URL(req.url ?? "");
    } catch {
      res.writeHead(400);
      return res.end("not absolute-form");
    }
    const port = target(`${url.hostname}:${url.port || 80}`);
    if (!port) {
      res.writeHead(502);
      return res.end("unknown host");
    }
    const headers = { ...req.headers };
    delete headers["proxy-authorization"];
    const upstream = request(
      { host: "127.0.0.1", port, path: url.pathname + url.search, headers, method: req.method },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on("error", () => res.destroy());
    upstream.end();
  });
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  server.on("connect", (req: IncomingMessage, client: Socket, head: Buffer) => {
    seen.push({ line: `CONNECT ${req.url}`, authorization: req.headers["proxy-authorization"] });
    if (expected && req.headers["proxy-authorization"] !== expected) {
      return client.end("HTTP/1.1 407 Proxy Authentication Required\r\n\r\n");
    }
    const port = target(req.url ?? "");
    if (!port) return client.end("HTTP/1.1 502 Bad Gateway\r\n\r\n");
    const upstream = connect(port, "127.0.0.1", () => {
      client.write("HTTP/1.1 200 Connection Established\r\n\r\n");
      if (head.length) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    sockets.add(upstream);
    upstream.on("close", () => sockets.delete(upstream));
    upstream.on("error", () => client.destroy());
    client.on("error", () => upstream.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    port,
    url: `http://127.0.0.1:${port}`,
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

export interface TlsSite {
  port: number;
  /** The server name (SNI) of each handshake, "" when none was sent. */
  servernames: string[];
  close(): Promise<void>;
}

/** An https site with the test certificate; `body` answers every path. */
export async function startTlsSite(
  handler: (req: IncomingMessage, res: ServerResponse) => void,
): Promise<TlsSite> {
  const servernames: string[] = [];
  const server = createHttpsServer({ key: TEST_KEY, cert: TEST_CA }, handler);
  server.on("secureConnection", (socket: TLSSocket) => {
    servernames.push((socket as TLSSocket & { servername?: string | false }).servername || "");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    port,
    servernames,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
