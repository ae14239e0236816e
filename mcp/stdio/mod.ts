/**
 * The stdio transport: stdin read into lines and decoded messages for one connection, never
 * further ahead of the answers than it allows, and one ordered writer to stdout. Outside mcp/,
 * import it from here.
 *
 * @example
 * ```ts
 * import process from "node:process";
 * import { connect, type McpService } from "../server/mod.ts";
 * import { serveStdio, StdoutWriter } from "./mod.ts";
 *
 * declare const service: McpService;
 * const writer = new StdoutWriter(process.stdout, () => {});
 * const conn = connect(service, writer);
 * await serveStdio(conn, writer, process.stdin, 16 * 1024 * 1024);
 * await conn.shutdown(1000);
 * ```
 * @module
 */
export { serveStdio, StdoutWriter } from "./stdio.ts";
