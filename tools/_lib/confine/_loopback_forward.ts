/**
 * A loopback service of the machine that `sandbox.allow_network` names with its port
 * (`localhost:5432`), brought into the commands' network namespace, where 127.0.0.1 is their own:
 * the session's holder listens on 127.0.0.1:PORT inside and hands each connection to a unix socket
 * here, which connects it to the service on the machine's loopback. Any protocol, not only those
 * that speak an HTTP proxy (psql, redis-cli, a test suite's database driver).
 */
import { createConnection, createServer, type Socket } from "node:net";

/** At most this many ports are brought in (the holder's own limit). */
export const MAX_FORWARDS = 16;

export interface LoopbackForward {
  port: number;
  /** The unix socket the holder connects to. */
  socket: string;
  /** Stops listening and closes the connections open through it. */
  close(): Promise<void>;
}

/**
 * Listens on `socket` and connects each connection to `host` (`127.0.0.1`, or `localhost`: then
 * 127.0.0.1 and, when nothing listens there, ::1) on `port`.
 *
 * @example
 * ```ts
 * const forward = await forwardLoopback("/tmp/toolhost-1000/123-net-x/p5432.sock", "localhost", 5432);
 * // toolhost-confine hold …/proxy.sock 5432=…/p5432.sock
 * await forward.close();
 * ```
 */
export async function forwardLoopback(
  socket: string,
  host: string,
  port: number,
): Promise<LoopbackForward> {
  const open = new Set<Socket>();
  const track = (each: Socket) => {
    open.add(each);
    each.once("close", () => open.delete(each));
  };
  const addresses = host === "localhost" ? ["127.0.0.1", "::1"] : [host];
  const server = createServer({ allowHalfOpen: true }, (inside) => {
    track(inside);
    inside.on("error", () => inside.destroy());
    inside.pause();
    connectFirst(addresses, port, (service) => {
      if (!service) return inside.destroy();
      track(service);
      service.on("error", () => inside.destroy());
      inside.on("error", () => service.destroy());
      inside.once("close", () => service.destroy());
      service.once("close", () => inside.destroy());
      inside.pipe(service);
      service.pipe(inside);
      inside.resume();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(socket, () => {
      server.off("error", reject);
      resolve();
    });
  });
  return {
    port,
    socket,
    close: () =>
      new Promise<void>((resolve) => {
        for (const each of open) each.destroy();
        server.close(() => resolve());
      }),
  };
}

/** Connects to the first of `addresses` that takes the connection; undefined when none does. */
function connectFirst(
  addresses: string[],
  port: number,
  done: (service: Socket | undefined) => void,
): void {
  const [first, ...rest] = addresses;
  if (first === undefined) return done(undefined);
  const service = createConnection({ host: first, port, allowHalfOpen: true });
  const failed = () => {
    service.destroy();
    connectFirst(rest, port, done);
  };
  service.once("error", failed);
  service.once("connect", () => {
    service.off("error", failed);
    done(service);
  });
}
