/**
 * What a client sends comes back in errors and goes to stderr bounded: a few hundred characters
 * and its length, never the whole value (config/quote.ts).
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { e2eFixture } from "../helpers/e2e.ts";
import { type Message, modern } from "../helpers/raw_client.ts";

const e2e = e2eFixture();

const MB = 1_000_000;
const huge = (n: number, fill = "x") => fill.repeat(n);

/** The error message, or the tool result's text, of a reply. */
function said(reply: Message): string {
  const error = reply.error as { message?: string } | undefined;
  if (error) return error.message ?? "";
  const content = (reply.result?.content ?? []) as { text?: string }[];
  return content.map((c) => c.text ?? "").join("\n");
}

test("an 8 MB method name, tool name, prompt name or URI comes back cut, with its length", async () => {
  const c = e2e.server();
  const long = huge(8 * MB);
  const cases: [string, Record<string, unknown>][] = [
    [long, modern()],
    ["tools/call", modern({ name: long, arguments: {} })],
    ["prompts/get", modern({ name: long })],
    ["resources/read", modern({ uri: `file:///${long}` })],
    ["tools/call", modern({ name: "read_file", arguments: { path: long } })],
    ["tools/call", modern({ name: "grep", arguments: { pattern: "x", path: long } })],
    ["tools/call", modern({ name: "read_file", arguments: { [long]: 1, path: "x" } })],
  ];
  for (const [method, params] of cases) {
    const reply = await c.request(method, params, 30_000);
    const text = said(reply);
    assert.ok(text.length > 0, JSON.stringify(reply).slice(0, 300));
    assert.ok(text.length < 2_500, `${method}: ${text.length} characters: ${text.slice(0, 300)}`);
    assert.match(
      text,
      /(8,000,0\d\d characters|characters in all)/,
      `${method}: ${text.slice(0, 300)}`,
    );
  }
  // The request's id is echoed whole, as JSON-RPC requires, but not in messages about it.
  const id = huge(MB, "i");
  c.sendLine(
    JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: modern({ name: long }) }),
  );
  const reply = await c.responseTo(id, 30_000);
  assert.ok(said(reply).length < 2_500);
  assert.ok(c.stderr.length < 100_000, `stderr grew to ${c.stderr.length} characters`);
});

test("a 20 MB bash description is logged as a bounded line", async () => {
  const c = e2e.server({ args: ["--log-level", "debug"] });
  const description = huge(20 * MB, "d");
  const reply = await c.request(
    "tools/call",
    modern({ name: "bash", arguments: { command: "echo hi", description } }),
    60_000,
  );
  assert.match(said(reply), /hi/);
  assert.match(c.stderr, /running: d{100,}… \(20,000,000 characters in all\)/);
  assert.ok(c.stderr.length < 100_000, `stderr grew to ${c.stderr.length} characters`);
});
