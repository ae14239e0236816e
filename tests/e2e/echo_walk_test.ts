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

/** A plain value of each JSON Schema type, for the arguments not under test. */
function plain(schema: Record<string, unknown> | undefined): unknown {
  const type = Array.isArray(schema?.type) ? schema.type[0] : schema?.type;
  if (Array.isArray(schema?.enum)) return schema.enum[0];
  switch (type) {
    case "string":
      return "x";
    case "integer":
    case "number":
      return 1;
    case "boolean":
      return false;
    case "array":
      return [];
    default:
      return {};
  }
}

interface Tool {
  name: string;
  inputSchema: {
    properties?: Record<string, Record<string, unknown>>;
    required?: string[];
  };
}

/** Each argument set that puts the huge string in one string (or string array) argument. */
function oversizedCalls(tool: Tool): { label: string; args: Record<string, unknown> }[] {
  const properties = tool.inputSchema.properties ?? {};
  const base: Record<string, unknown> = {};
  for (const name of tool.inputSchema.required ?? []) base[name] = plain(properties[name]);
  const calls: { label: string; args: Record<string, unknown> }[] = [];
  for (const [name, schema] of Object.entries(properties)) {
    const items = schema.items as Record<string, unknown> | undefined;
    const takes = (s: Record<string, unknown> | undefined) =>
      s?.type === "string" || (Array.isArray(s?.type) && s.type.includes("string"));
    if (takes(schema) && !Array.isArray(schema.enum)) {
      calls.push({ label: `${tool.name}.${name}`, args: { ...base, [name]: huge } });
    } else if (schema.type === "array" && takes(items)) {
      calls.push({ label: `${tool.name}.${name}[]`, args: { ...base, [name]: [huge] } });
    }
  }
  // An argument the schema does not know, by name.
  calls.push({ label: `${tool.name}.<unknown name>`, args: { ...base, [huge]: "x" } });
  return calls;
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
    const tools = (listed.result as { tools: Tool[] }).tools;
    assert.ok(tools.length >= 20, `${tools.length} tools`);
    let calls = 0;
    const found: string[] = [];
    for (const tool of tools) {
      for (const { label, args } of oversizedCalls(tool)) {
        const seen = client.stderr.length;
        const reply = await client.request(
          "tools/call",
          modern({ name: tool.name, arguments: args }),
          60_000,
        );
        found.push(...overBound(label, reply, client, seen));
        calls++;
      }
    }
    assert.deepEqual(found, []);
    assert.ok(calls > tools.length * 2, `${calls} calls`);
  } finally {
    await client.close();
  }
});

test("every method, with a 4 MiB string in each string parameter, echoes at most a bounded part of it", async () => {
  const client = new RawClient(PRODUCT_BINARY, ["--root", root, "--log-level", "debug"], root);
  const ref = (type: string) => ({ type, uri: huge, name: huge });
  const cases: [string, Record<string, unknown>][] = [
    [huge, {}],
    ["ping", { [huge]: 1 }],
    ["tools/list", { cursor: huge }],
    ["tools/call", { name: huge, arguments: {} }],
    ["resources/list", { cursor: huge }],
    ["resources/templates/list", { cursor: huge }],
    ["resources/read", { uri: huge }],
    ["resources/read", { uri: `file://${root}/${huge}` }],
    ["resources/read", { uri: `toolhost://${huge}` }],
    ["resources/read", { uri: `file://${root}/../${huge}` }],
    // A directory: refused as not a file, by a URI that holds the huge string.
    ["resources/read", { uri: `file://${root}/${MARK.repeat(4 << 20)}/..` }],
    ["resources/subscribe", { uri: huge }],
    ["resources/unsubscribe", { uri: huge }],
    ["prompts/list", { cursor: huge }],
    ["prompts/get", { name: huge, arguments: { [huge]: huge } }],
    ["completion/complete", { ref: ref("ref/prompt"), argument: { name: huge, value: huge } }],
    ["completion/complete", { ref: ref("ref/resource"), argument: { name: huge, value: huge } }],
    ["logging/setLevel", { level: huge }],
    ["tasks/get", { taskId: huge }],
    ["tasks/result", { taskId: huge }],
    ["tasks/cancel", { taskId: huge }],
    ["tasks/list", { cursor: huge }],
  ];
  try {
    // Every resource template, each of its variables filled with the huge string.
    const listed = await client.request("resources/templates/list", modern(), 30_000);
    const templates = (listed.result as { resourceTemplates: { uriTemplate: string }[] })
      .resourceTemplates;
    assert.ok(templates.length > 0);
    for (const { uriTemplate } of templates) {
      const uri = uriTemplate.replace(/\{[^}]*\}/g, huge);
      cases.push(["resources/read", { uri }], ["resources/subscribe", { uri }]);
      cases.push(["resources/read", { uri: uriTemplate.replace(/\{[^}]*\}/g, `..%2F${huge}`) }]);
    }
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
