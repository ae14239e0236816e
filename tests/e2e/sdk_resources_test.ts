/**
 * Resources, prompts and completion through the official clients and dist/toolhost-test: the
 * legacy SDK (@modelcontextprotocol/sdk, 2025-11-25) and the 2026-07-28 client
 * (@modelcontextprotocol/client). Both validate every result against their own schemas.
 */
import assert from "node:assert/strict";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { Client as ModernClient } from "@modelcontextprotocol/client";
import { StdioClientTransport as ModernTransport } from "@modelcontextprotocol/client/stdio";
import { Client as LegacyClient } from "@modelcontextprotocol/sdk/client";
// The SDK's "./*" export maps types to "*.js.d.ts", which does not exist; name the types here.
// @ts-types="@modelcontextprotocol/sdk/client/stdio"
import { StdioClientTransport as LegacyTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { e2eFixture } from "../helpers/e2e.ts";
import { binary, isolatedEnv, TEST_BINARY } from "../helpers/raw_client.ts";
import { posixOnly } from "../helpers/posix_only.ts";

const e2e = e2eFixture();

/** A root with a text file, an image, a skill, and a symlink leading out of it. */
function project() {
  const root = e2e.scratch("sdk-res");
  const outside = e2e.scratch("sdk-out");
  writeFileSync(join(outside, "secret.txt"), "top secret");
  symlinkSync(join(outside, "secret.txt"), join(root, "escape.txt"));
  writeFileSync(join(root, "readme.md"), "# Readme\n");
  writeFileSync(
    join(root, "dot.png"),
    Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 13, 10, 26, 10, 0]),
  );
  const skill = join(root, ".claude", "skills", "explain");
  mkdirSync(skill, { recursive: true });
  writeFileSync(
    join(skill, "SKILL.md"),
    "---\nname: explain\ndescription: Explains code.\n---\nExplain $ARGUMENTS simply.\n",
  );
  return { root, spawn: { command: binary(TEST_BINARY), args: ["--root", root], cwd: root } };
}

const codeOf = (error: unknown) => (error as { code?: number }).code;

/** The same checks through either client: they share these method names and result shapes. */
interface Common {
  listResources(): Promise<{ resources: { uri: string }[] }>;
  listResourceTemplates(): Promise<{ resourceTemplates: { uriTemplate: string }[] }>;
  readResource(p: { uri: string }): Promise<{ contents: Record<string, unknown>[] }>;
  listPrompts(): Promise<{ prompts: { name: string }[] }>;
  getPrompt(p: { name: string; arguments?: Record<string, string> }): Promise<{
    messages: { role: string; content: unknown }[];
  }>;
  complete(p: Record<string, unknown>): Promise<{ completion: { values: string[] } }>;
}

async function exercise(client: Common, root: string, missingCode: number) {
  const { resources } = await client.listResources();
  assert.deepEqual(resources.map((r) => r.uri), [
    "toolhost://history",
    "toolhost://plan",
    "toolhost://processes",
    "toolhost://tasks",
    "skill://explain/SKILL.md",
    "toolhost://skills/explain",
  ]);
  const { resourceTemplates } = await client.listResourceTemplates();
  assert.equal(resourceTemplates.length, 4);
  const readme = await client.readResource({ uri: `file://${root}/readme.md` });
  assert.deepEqual(readme.contents, [
    { uri: `file://${root}/readme.md`, mimeType: "text/markdown", text: "# Readme\n" },
  ]);
  const image = await client.readResource({ uri: `file://${root}/dot.png` });
  assert.equal(image.contents[0].mimeType, "image/png");
  assert.equal(typeof image.contents[0].blob, "string");
  for (const uri of ["file:///etc/passwd", `file://${root}/escape.txt`]) {
    await assert.rejects(client.readResource({ uri }), (error: unknown) => {
      assert.equal(codeOf(error), -32602, uri);
      assert.match(String((error as Error).message), /outside the allowed roots/);
      return true;
    });
  }
  await assert.rejects(
    client.readResource({ uri: `file://${root}/missing.txt` }),
    (error: unknown) => codeOf(error) === missingCode,
  );

  const { prompts } = await client.listPrompts();
  assert.deepEqual(prompts.map((p) => p.name), ["explain", "fixture-greet"]);
  const prompt = await client.getPrompt({ name: "explain", arguments: { arguments: "closures" } });
  assert.deepEqual(prompt.messages, [
    { role: "user", content: { type: "text", text: "Explain closures simply." } },
  ]);
  await assert.rejects(
    client.getPrompt({ name: "fixture-greet", arguments: {} }),
    (error: unknown) => codeOf(error) === -32602,
  );
  const language = await client.complete({
    ref: { type: "ref/prompt", name: "fixture-greet" },
    argument: { name: "language", value: "Fr" },
  });
  assert.deepEqual(language.completion.values, ["French"]);
  const skill = await client.complete({
    ref: { type: "ref/resource", uri: "toolhost://skills/{name}" },
    argument: { name: "name", value: "ex" },
  });
  assert.deepEqual(skill.completion.values, ["explain"]);
  const path = await client.complete({
    ref: { type: "ref/resource", uri: "file:///{+path}" },
    argument: { name: "path", value: `${root.slice(1)}/re` },
  });
  assert.deepEqual(path.completion.values, [`${root.slice(1)}/readme.md`]);
}

test(
  "the legacy SDK client lists, reads, gets prompts and completes; file:/// escapes are refused",
  posixOnly("file:///etc/passwd and file:// URIs of POSIX paths"),
  async () => {
    const { root, spawn } = project();
    const client = new LegacyClient({ name: "sdk-resources", version: "1.0.0" });
    await client.connect(new LegacyTransport({ ...spawn, env: isolatedEnv(), stderr: "pipe" }));
    try {
      const capabilities = client.getServerCapabilities();
      assert.deepEqual(capabilities?.resources, { subscribe: true, listChanged: true });
      assert.deepEqual(capabilities?.prompts, { listChanged: true });
      assert.deepEqual(capabilities?.completions, {});
      await exercise(client as unknown as Common, root, -32002);
    } finally {
      await client.close();
    }
  },
);

test("the 2026-07-28 client does the same statelessly; a missing file is -32602", async () => {
  const { root, spawn } = project();
  const client = new ModernClient(
    { name: "sdk-resources-modern", version: "1.0.0" },
    { versionNegotiation: { mode: { pin: "2026-07-28" } } },
  );
  await client.connect(new ModernTransport({ ...spawn, env: isolatedEnv(), stderr: "pipe" }));
  try {
    assert.equal(client.getProtocolEra(), "modern");
    const capabilities = client.getServerCapabilities();
    assert.deepEqual(capabilities?.resources, { subscribe: true, listChanged: true });
    assert.deepEqual(capabilities?.completions, {});
    await exercise(client as unknown as Common, root, -32602);
  } finally {
    await client.close();
  }
});
