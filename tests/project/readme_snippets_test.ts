/**
 * The setup snippets in the README and docs/: each client snippet parses and names a command, the
 * HTTP one names the endpoint, and the sample configuration is one the loader accepts.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { parseJsonc } from "../../config/jsonc.ts";
import { checkConfig } from "../../config/validate.ts";
import { sortContributions } from "../../mcp/features/mod.ts";
import { toolModules } from "../../tools/mod.ts";
import { ROOT } from "../helpers/raw_client.ts";
import { appOnly } from "../../mcp/tool/mod.ts";

/** The text of a markdown file from `heading` up to the next heading of the same level. */
function section(file: string, heading: string): string {
  const text = "\n" + readFileSync(`${ROOT}${file}`, "utf8");
  const start = text.indexOf(`\n${heading}\n`);
  assert.ok(start >= 0, `${file} has no "${heading}" section`);
  const level = heading.split(" ")[0];
  const end = text.indexOf(`\n${level} `, start + heading.length + 2);
  return text.slice(start, end < 0 ? undefined : end);
}

function blocks(text: string, language: string): string[] {
  return [...text.matchAll(new RegExp("```" + language + "\\n([\\s\\S]*?)```", "g"))].map((m) =>
    m[1]
  );
}

const clients = section("README.md", "## Use it from your client");

test("every JSON client snippet in the README parses and starts toolhost by absolute path", () => {
  const json = blocks(clients, "json");
  assert.ok(json.length >= 4, `${json.length} JSON snippets`);
  for (const block of json) {
    const entry = JSON.parse(block).mcpServers.toolhost;
    assert.match(entry.command, /^\/absolute\/path\/to\/toolhost$/);
    assert.ok(Array.isArray(entry.args ?? []));
  }
});

test("the Codex snippet in the README is a TOML table with command and args", () => {
  const toml = blocks(clients, "toml")[0] ?? "";
  assert.match(toml, /^\[mcp_servers\.toolhost\]$/m);
  assert.match(toml, /^command = "\/absolute\/path\/to\/toolhost"$/m);
  assert.match(toml, /^args = \[("[^"]*"(, )?)*\]$/m);
});

test("the HTTP client snippet in docs/http.md names the /mcp endpoint", () => {
  const [block] = blocks(section("docs/http.md", "# Streamable HTTP, SSE and WebSocket"), "json");
  assert.ok(block, "docs/http.md has a JSON snippet");
  const entry = JSON.parse(block).mcpServers.toolhost;
  assert.equal(entry.type, "http");
  assert.match(entry.url, /^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
});

test("the sample configuration in docs/configuration.md is valid JSONC the schema accepts", () => {
  const [sample] = blocks(section("docs/configuration.md", "## Every key"), "jsonc");
  assert.ok(sample, "docs/configuration.md has a JSONC sample");
  const { document, problem } = parseJsonc(sample);
  assert.equal(problem, undefined);
  assert.deepEqual(checkConfig(document!.value), []);
  const value = document!.value as Record<string, unknown>;
  for (const key of ["roots", "limits", "search", "custom_tools"]) {
    assert.ok(key in value, `the sample shows ${key}`);
  }
});

test(".mcp.json.example is valid JSON with a command", () => {
  const example = JSON.parse(readFileSync(`${ROOT}.mcp.json.example`, "utf8"));
  assert.equal(typeof example.mcpServers.toolhost.command, "string");
});

test("docs/tools.md's count, the README's tool table and the profile table match the tools offered", () => {
  const { tools } = sortContributions(toolModules);
  // A tool for an app alone (MCP Apps) is no tool of the model's: docs name it apart.
  const names = tools.filter((tool) => !appOnly(tool.ui)).map((tool) => tool.name).sort();
  const docs = readFileSync(`${ROOT}docs/tools.md`, "utf8");
  for (const tool of tools.filter((tool) => appOnly(tool.ui))) {
    assert.ok(docs.includes(`\`${tool.name}\``), `docs/tools.md does not name ${tool.name}`);
  }
  const stated = Number(docs.match(/toolhost offers (\d+) built-in tools/)?.[1]);
  assert.equal(
    stated,
    names.length,
    `docs/tools.md says ${stated} tools; there are ${names.length}`,
  );
  const table = section("README.md", "## Tools");
  const listed = [...table.matchAll(/^\| `([a-z_]+)` +\|/gm)].map((m) => m[1]).sort();
  assert.deepEqual(listed, names, "the README's tool table lists every tool, and only those");
  const full = clients.match(/^\| `full` \(default\) +\| +(\d+) \|/m)?.[1];
  assert.equal(Number(full), names.length, "the profile table's count for full");
});

test("the README's Troubleshooting names what Claude Code and Gemini CLI show, and where their logs are", () => {
  const trouble = section("README.md", "### Troubleshooting");
  for (
    const words of [
      "Pending approval",
      "Disabled: this folder is untrusted",
      "mcp-logs-toolhost",
      "gemini --debug",
      "--print-config",
    ]
  ) assert.ok(trouble.includes(words), `Troubleshooting does not say ${words}`);
});
