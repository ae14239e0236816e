/** Where a connection's parts send messages and log: the connection's own way out. */
import type { Logger } from "../wire/log.ts";
import type { Transport } from "./transport.ts";

/** The transport's `send` (every outgoing message, in order), with the server's stderr logger. */
export interface Outbox extends Transport {
  /** Diagnostics; goes to stderr, never to the client's stdout. */
  logger: Logger;
}
