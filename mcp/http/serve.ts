/**
 * The one place that touches a runtime's own API: serving a web-standard
 * `Request → Response` handler over HTTP with Bun.serve (the compiled binary) or Deno.serve
 * (`deno task start`). Everything above it is runtime-neutral.
 */

export type FetchHandler = (request: Request) => Promise<Response>;

export interface Listening {
  /** The port bound (useful when 0 was asked for). */
  port: number;
  /** Stops accepting connections and drops the ones open. */
  close(): Promise<void>;
}

interface BunServer {
  port: number;
  stop(closeActiveConnections?: boolean): Promise<void> | void;
}
interface BunRuntime {
  serve(options: {
    hostname: string;
    port: number;
    idleTimeout: number;
    maxRequestBodySize: number;
    fetch(request: Request): Promise<Response>;
    error(error: Error): Response;
  }): BunServer;
}

const internalError = () => new Response("internal error\n", { status: 500 });

export function serve(
  hostname: string,
  port: number,
  handler: FetchHandler,
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
      fetch: handler,
      error: internalError,
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
      const server = Deno.serve({
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
      }, handler);
    } catch (error) {
      reject(error);
    }
  });
}
