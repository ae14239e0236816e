/** An McpConnection in this process, with every message it sends recorded: for dispatch tests. */
import process from "node:process";
import { type ConnectionOptions, McpConnection } from "../../mcp/server/connection.ts";
import type { Logger, LogLevel } from "../../mcp/wire/mod.ts";
import { receiveLine } from "../../mcp/stdio/stdio.ts";
import type { Tool } from "../../mcp/tool/mod.ts";
import type { Message } from "./raw_client.ts";

/** How long a test waits for a reply before it fails saying what was sent instead. */
const RESPONSE_TIMEOUT_MS = 10_000;

export interface Harness {
  server: McpConnection;
  sent: (Message | Message[])[];
  logs: { level: LogLevel; message: string }[];
  line(value: unknown): void;
  /** Sends a request line and waits for its response. */
  request(id: string | number, method: string, params?: Record<string, unknown>): Promise<Message>;
  responseTo(id: string | number | null): Promise<Message>;
  /** Messages (not batches) that are notifications of `method`. */
  notifications(method: string): Message[];
}

export function harness(
  tools: Tool[],
  pageSize?: number,
  roots = { fixed: [] as string[], fallback: [process.cwd()] },
  extra: Pick<
    ConnectionOptions,
    "hooks" | "timeouts" | "resources" | "templates" | "prompts" | "session"
  > = {},
): Harness {
  const sent: (Message | Message[])[] = [];
  const logs: { level: LogLevel; message: string }[] = [];
  const logger: Logger = { log: (level, message) => logs.push({ level, message }) };
  /** Who waits for a message: woken as it is sent, not by polling. */
  let waiters: { match: (m: Message) => boolean; wake: (m: Message) => void }[] = [];
  const server = new McpConnection({
    info: { name: "toolhost", version: "9.9.9" },
    instructions: "test instructions",
    tools,
    logger,
    send: (message) => {
      // Like the stdio writer: what JSON cannot encode is refused; the rest is kept as it
      // would arrive on the wire.
      let text: string;
      try {
        text = JSON.stringify(message);
      } catch {
        return false;
      }
      const received = JSON.parse(text);
      sent.push(received);
      if (!Array.isArray(received) && waiters.length > 0) {
        waiters = waiters.filter((w) => {
          if (!w.match(received)) return true;
          w.wake(received);
          return false;
        });
      }
      return true;
    },
    pageSize,
    roots,
    ...extra,
  });
  // As stdin's lines reach it: decoded on the stdio side, blank ones skipped.
  const line = (value: unknown) =>
    receiveLine(server, typeof value === "string" ? value : JSON.stringify(value));
  const responseTo = (id: string | number | null): Promise<Message> => {
    const match = (m: Message) => m.id === id && ("result" in m || "error" in m);
    const found = sent.find((m): m is Message => !Array.isArray(m) && match(m));
    if (found) return Promise.resolve(found);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        waiters = waiters.filter((w) => w.wake !== wake);
        reject(new Error(`no response to ${JSON.stringify(id)}; sent: ${JSON.stringify(sent)}`));
      }, RESPONSE_TIMEOUT_MS);
      const wake = (m: Message) => {
        clearTimeout(timer);
        resolve(m);
      };
      waiters.push({ match, wake });
    });
  };
  return {
    server,
    sent,
    logs,
    line,
    responseTo,
    request(id, method, params) {
      line({ jsonrpc: "2.0", id, method, ...(params ? { params } : {}) });
      return responseTo(id);
    },
    notifications: (method) =>
      sent.filter((m): m is Message => !Array.isArray(m) && m.method === method),
  };
}

export function initializeParams(version: string) {
  return { protocolVersion: version, capabilities: {}, clientInfo: { name: "t", version: "1" } };
}

/** Lets pending promise callbacks and timers run. */
export const tick = (ms = 20) => new Promise((resolve) => setTimeout(resolve, ms));
