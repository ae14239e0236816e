/** Makes a connection over a transport: the one way every transport gets one (transport.ts). */
import { McpConnection } from "./connection.ts";
import type { McpService } from "./service.ts";
import type { Transport } from "./transport.ts";

/**
 * A new connection of `service` (one client's conversation) whose every outgoing message goes
 * to `transport.send`. The transport hands it what it decodes (`receive`) and stops it
 * (`shutdown`); see `TransportConnection` for the rest.
 *
 * @example One connection per client over stdio
 * ```ts
 * const writer = new StdoutWriter(process.stdout, () => stop());
 * const conn = connect(service, writer);
 * await serveStdio(conn, writer, process.stdin, maxLineLength);
 * await conn.shutdown(1000);
 * ```
 */
export function connect(service: McpService, transport: Transport): McpConnection {
  return new McpConnection({
    ...service.options,
    service,
    send: (message, related) => transport.send(message, related),
  });
}
