/**
 * The web tests' stand-in sites: a handler served on 127.0.0.1 at a free port, and the options
 * that let a download reach one.
 */
import { createServer, type RequestListener } from "node:http";
import type { AddressInfo } from "node:net";
import type { HttpGetOptions } from "../../tools/web/_lib/http/http_get.ts";

/**
 * httpGet's options for a stand-in site: the private network closed, as by default, but the
 * first URL's origin exempt, as a configured endpoint is.
 */
export const LOCAL_GET = {
  timeoutMs: 3000,
  maxBytes: 1024 * 1024,
  allowPrivateNetwork: false,
  allowPrivate: true,
} satisfies HttpGetOptions;

export interface LocalServer {
  port: number;
  /** `http://127.0.0.1:<port>`. */
  base: string;
  /** Drops open connections and resolves once the server has closed. */
  close(): Promise<void>;
}

export async function serveLocally(handler?: RequestListener): Promise<LocalServer> {
  const server = handler ? createServer(handler) : createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    port,
    base: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
