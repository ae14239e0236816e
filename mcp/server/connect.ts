/** Makes a connection over a transport: the one way every transport gets one (transport.ts). */
import { McpConnection } from "./connection.ts";
import type { McpService } from "./service.ts";
import type { SessionOf, Transport } from "./transport.ts";

/**
 * A new connection of `service` (one client's conversation) whose every outgoing message goes
 * to `transport.send`. The transport hands it what it decodes (`receive`) and stops it
 * (`shutdown`); see `TransportConnection` for the rest. `session` says whose session it is: a
 * new one of `subject` (the default: the machine's user), or one the transport keeps beyond the
 * connection (2026-07-28 requests share their subject's).
 *
 * @example One connection per client over stdio
 * ```ts
 * const writer = new StdoutWriter(process.stdout, () => stop());
 * const conn = connect(service, writer);
 * await serveStdio(conn, writer, process.stdin, maxLineLength);
 * await conn.shutdown(1000);
 * ```
 */
export function connect(
  service: McpService,
  transport: Transport,
  session: SessionOf = {},
): McpConnection {
  return new McpConnection({
    ...service.options,
    ...session,
    service,
    send: (message, related) => transport.send(message, related),
  });
}
