/**
 * A throwaway HTTP server on 127.0.0.1 for tests that download: it records every path asked
 * for, and answers from a route function (404 when the route returns undefined).
 */
import type { Buffer } from "node:buffer";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

export interface LocalServer {
  url: string;
  /** Request paths in the order they came. */
  requests: string[];
  close(): Promise<void>;
}

/** The body for a path (`base` is the server's own URL, for links), or undefined for 404. */
export type Route = (path: string, base: string) => Buffer | string | undefined;

export async function serve(route: Route): Promise<LocalServer> {
  const requests: string[] = [];
  let base = "";
  const server = createServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url ?? "/", "http://x").pathname);
    requests.push(path);
    const body = req.method === "GET" ? route(path, base) : undefined;
    if (body === undefined) {
      res.writeHead(404, { "content-type": "application/json" });
      res.end('{"error":"not found"}');
      return;
    }
    res.writeHead(200, { "content-length": String(body.length) });
    res.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const closed = (): Promise<void> =>
    new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return { url: base, requests, close: closed };
}
