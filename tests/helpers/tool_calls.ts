/**
 * Calling a tool and reading what it answered, the one way the tests do it: through the binary
 * (a RawClient) or a connection in this process (a Harness), as a 2026-07-28 request unless told
 * (`legacy`). A JSON-RPC error fails the test at once, naming the tool; what a tool answers, error
 * or not, comes back as a ToolReply.
 *
 * @example
 * ```ts
 * const { root, client } = e2e.start();
 * await callOk(client, "write_file", { path: "a.txt", content: "hi\n" }); // must succeed
 * const read = await callTool(client, "read_file", { path: "a.txt" });
 * assert.equal(read.isError, false, read.text);
 * assert.match(await okText(client, "history", {}), /write_file/);
 * ```
 */
import assert from "node:assert/strict";
import type { Harness } from "./in_process.ts";
import { type Message, modern, RawClient } from "./raw_client.ts";

/** A tools/call result as it arrives. */
export interface ToolResult {
  content: { type: string; text?: string; data?: string; mimeType?: string }[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

/** What a tool answered, read the ways tests read it. */
export interface ToolReply {
  /** The result as it arrived. */
  result: ToolResult;
  /** The text blocks, joined by newlines (an image or a resource adds nothing). */
  text: string;
  isError: boolean;
  /** structuredContent, or {} when the result has none. */
  data: Record<string, unknown>;
}

export interface CallOptions {
  /** How long the reply may take (60 s unless told). */
  timeoutMs?: number;
  /** Added to the request's `_meta` (a progress token, trace context, capabilities). */
  meta?: Record<string, unknown>;
  /**
   * A request of the legacy session that `initialize` opened (the test ran it): no version in
   * `_meta`, which then holds only `meta`.
   */
  legacy?: boolean;
}

/** Where a call goes: the binary, or a connection in this process. */
export type ToolClient = RawClient | Harness;

let nextId = 1;

/** Calls tool `name` with `args`; fails the test on a JSON-RPC error, not on an isError result. */
export async function callTool(
  client: ToolClient,
  name: string,
  args: Record<string, unknown>,
  options: CallOptions = {},
): Promise<ToolReply> {
  const params = options.legacy
    ? { name, arguments: args, ...(options.meta ? { _meta: options.meta } : {}) }
    : modern({ name, arguments: args }, options.meta);
  // An id of its own kind, so it never meets the ids a test gives its own requests.
  const id = `tool-call-${nextId++}`;
  const reply = client instanceof RawClient
    ? await client.responseTo(client.start("tools/call", params, id), options.timeoutMs ?? 60_000)
    : await client.request(id, "tools/call", params);
  return toolReply(reply, name);
}

/** Calls tool `name`, which must succeed (an isError result fails the test, showing its text). */
export async function callOk(
  client: ToolClient,
  name: string,
  args: Record<string, unknown>,
  options: CallOptions = {},
): Promise<ToolReply> {
  const reply = await callTool(client, name, args, options);
  assert.equal(reply.isError, false, `${name}: ${reply.text}`);
  return reply;
}

/** The text of a call that must succeed. */
export async function okText(
  client: ToolClient,
  name: string,
  args: Record<string, unknown>,
  options: CallOptions = {},
): Promise<string> {
  return (await callOk(client, name, args, options)).text;
}

/** Reads a tools/call response; a JSON-RPC error fails the test. */
export function toolReply(reply: Message, name = "the tool"): ToolReply {
  assert.ok(reply.result, `tools/call ${name} failed: ${JSON.stringify(reply.error)}`);
  const result = reply.result as unknown as ToolResult;
  return {
    result,
    text: result.content.filter((block) => block.type === "text").map((block) => block.text)
      .join("\n"),
    isError: result.isError === true,
    data: result.structuredContent ?? {},
  };
}
