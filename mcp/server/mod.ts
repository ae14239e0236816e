/**
 * The server: what every connection of one server shares (`McpService`: the catalogs, the
 * method table, the capabilities), one client's connection (dispatch, both eras, cancellation,
 * subscriptions, requests to the client), and the seam a transport plugs into (`Transport` in,
 * `connect()` out). Outside mcp/, import from here.
 *
 * @example One connection per client over a channel of text messages
 * ```ts
 * import { connect, type McpService } from "./mod.ts";
 *
 * declare const service: McpService;
 * declare const channel: { write(text: string): boolean };
 *
 * const conn = connect(service, {
 *   send(message) {
 *     return channel.write(JSON.stringify(message));
 *   },
 * });
 * await conn.shutdown(1000);
 * ```
 * @module
 */
export { McpService, type ServerInfo, type ServiceOptions } from "./service.ts";
export { connect } from "./connect.ts";
export type { Outgoing, Transport, TransportConnection } from "./transport.ts";
