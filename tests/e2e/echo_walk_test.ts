/**
 * One rule for every echo of client text (docs/security.md, "Echoes are bounded"), checked by
 * walking the binary's whole surface: every tool from tools/list with a 4 MiB string in each string
 * argument of its input schema in turn, and every method with one in each string parameter. No
 * reply, error, error data or stderr line may carry more than ECHO_BOUND characters of it.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import {
  type ListedTool,
  oversizedMethodCalls,
  oversizedTemplateCalls,
  oversizedToolCalls,
} from "../helpers/hostile_requests.ts";
import { type Message, modern, PRODUCT_BINARY, RawClient } from "../helpers/raw_client.ts";

/** A client's text may be quoted in part: a few hundred characters, far below this. */
const ECHO_BOUND = 2_000;
/** The oversized value: a comment to a shell, a pattern that matches nothing, no path that exists. */
const MARK = "Q";
const huge = `#(${MARK.repeat(4 << 20)}`;

const root = mkdtempSync(join(tmpdir(), "toolhost-echo-walk-"));
after(() => rmSync(root, { recursive: true, force: true }));

/** The longest run of MARK in `text`. */
function longestRun(text: string): number {
  let longest = 0;
  for (const match of text.matchAll(/Q+/g)) longest = Math.max(longest, match[0].length);
  return longest;
}

/**
 * What the reply, and what came to stderr or as a notification since `seen` characters of
 * stderr, repeat of the huge value beyond the bound.
 */
function overBound(label: string, reply: Message, client: RawClient, seen: number): string[] {
  const found: string[] = [];
  const check = (where: string, text: string) => {
    const run = longestRun(text);
    if (run > ECHO_BOUND) found.push(`${label}: ${where} repeats ${run} characters of it`);
  };
  check("the reply", JSON.stringify(reply));
  for (const line of client.stderr.slice(seen).split("\n")) check("a stderr line", line);
  for (const message of client.messages.splice(0)) {
    if (message.id === undefined) {
      check(`a ${message.method} notification`, JSON.stringify(message));
    }
  }
  return found;
}

test("every tool, with a 4 MiB string in each string argument, echoes at most a bounded part of it", async () => {
  const client = new RawClient(PRODUCT_BINARY, ["--root", root, "--log-level", "debug"], root);
  try {
    const listed = await client.request("tools/list", modern(), 30_000);
    const tools = (listed.result as { tools: ListedTool[] }).tools;
    assert.ok(tools.length >= 20, `${tools.length} tools`);
    let calls = 0;
    const found: string[] = [];
    for (const { label, name, args } of oversizedToolCalls(tools, huge)) {
      const seen = client.stderr.length;
      const reply = await client.request("tools/call", modern({ name, arguments: args }), 60_000);
      found.push(...overBound(label, reply, client, seen));
      calls++;
    }
    assert.deepEqual(found, []);
    assert.ok(calls > tools.length * 2, `${calls} calls`);
  } finally {
    await client.close();
  }
});

test("every method, with a 4 MiB string in each string parameter, echoes at most a bounded part of it", async () => {
  const client = new RawClient(PRODUCT_BINARY, ["--root", root, "--log-level", "debug"], root);
  const cases = oversizedMethodCalls(huge, root, MARK);
  try {
    // Every resource template, each of its variables filled with the huge string.
    const listed = await client.request("resources/templates/list", modern(), 30_000);
    const templates = (listed.result as { resourceTemplates: { uriTemplate: string }[] })
      .resourceTemplates;
    assert.ok(templates.length > 0);
    cases.push(...oversizedTemplateCalls(templates.map((t) => t.uriTemplate), huge));
    const found: string[] = [];
    for (const [method, params] of cases) {
      const seen = client.stderr.length;
      const reply = await client.request(method, modern(params), 60_000);
      const label = `${method.slice(0, 40)} ${Object.keys(params).join(",").slice(0, 40)}`;
      found.push(...overBound(label, reply, client, seen));
    }
    assert.deepEqual(found, []);
  } finally {
    await client.close();
  }
});
