/** The client setup snippets in the README: each JSON one parses and names a command. */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { ROOT } from "../helpers/raw_client.ts";

const readme = readFileSync(`${ROOT}README.md`, "utf8");
const section = readme.slice(
  readme.indexOf("## Use it from your client"),
  readme.indexOf("## Configuration"),
);

test("every JSON client snippet parses and starts toolhost by absolute path", () => {
  const blocks = [...section.matchAll(/```json\n([\s\S]*?)```/g)].map((m) => m[1]);
  assert.ok(blocks.length >= 4, `${blocks.length} JSON snippets`);
  for (const block of blocks) {
    const entry = JSON.parse(block).mcpServers.toolhost;
    assert.match(entry.command, /^\/absolute\/path\/to\/toolhost$/);
    assert.ok(Array.isArray(entry.args ?? []));
  }
});

test("the Codex snippet is a TOML table with command and args", () => {
  const toml = section.match(/```toml\n([\s\S]*?)```/)?.[1] ?? "";
  assert.match(toml, /^\[mcp_servers\.toolhost\]$/m);
  assert.match(toml, /^command = "\/absolute\/path\/to\/toolhost"$/m);
  assert.match(toml, /^args = \[("[^"]*"(, )?)*\]$/m);
});

test(".mcp.json.example is valid JSON with a command", () => {
  const example = JSON.parse(readFileSync(`${ROOT}.mcp.json.example`, "utf8"));
  assert.equal(typeof example.mcpServers.toolhost.command, "string");
});
