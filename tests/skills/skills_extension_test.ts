/**
 * The skills extension in process: skills/list pages by the server's page size (an entry never
 * split), a stale cursor is refused, and a skill over the extension's limits is left out and
 * refused by skills/get with the reason.
 */
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { defaultSettings } from "../../config/settings.ts";
import { McpConnection } from "../../mcp/server/connection.ts";
import { McpService } from "../../mcp/server/mod.ts";
import { receiveLine } from "../../mcp/stdio/stdio.ts";
import { assemble } from "../../tools/_catalog/assemble.ts";
import { scratchDir } from "../helpers/file_tools.ts";
import { type Message, modern } from "../helpers/raw_client.ts";
import { places, skillMd, writeSkill } from "../helpers/skills.ts";

async function serve(root: string, pageSize: number) {
  const settings = { ...defaultSettings(), skillDirs: [] };
  const { tools, warnings: _, removed: __, ...contributions } = await assemble(settings);
  const sent: Message[] = [];
  const logs: string[] = [];
  const service = new McpService({
    info: { name: "toolhost", version: "0" },
    tools,
    ...contributions,
    logger: { log: (_level, message) => logs.push(message) },
    roots: { fixed: [root], fallback: [] },
    config: settings,
    state: { dir: scratchDir("toolhost-skx-state-") },
    pageSize,
  });
  const server = new McpConnection({
    ...service.options,
    service,
    send: (m) => (sent.push(JSON.parse(JSON.stringify(m))), true),
  });
  let id = 0;
  const request = async (method: string, params: Record<string, unknown>) => {
    const mine = ++id;
    receiveLine(
      server,
      JSON.stringify({ jsonrpc: "2.0", id: mine, method, params: modern(params) }),
    );
    for (let i = 0; i < 5000; i++) {
      const reply = sent.find((m) => m.id === mine);
      if (reply) return reply;
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
    throw new Error(`no reply to ${method}`);
  };
  return { request, logs };
}

test("skills/list pages by the page size and refuses a cursor it did not make", async () => {
  const { project, projectSkills } = places();
  for (const name of ["one", "two", "three"]) {
    writeSkill(projectSkills, name, skillMd(name, `Skill ${name}.`), { "notes/a.md": name });
  }
  const { request } = await serve(project, 2);
  const first = (await request("skills/list", {})).result!;
  const uris = (page: Record<string, unknown>) =>
    (page.skills as { uri: string; resources: unknown[] }[]).map((s) => s.uri);
  assert.deepEqual(uris(first), ["skill://one/SKILL.md", "skill://three/SKILL.md"]);
  assert.equal(typeof first.nextCursor, "string");
  const second = (await request("skills/list", { cursor: first.nextCursor })).result!;
  assert.deepEqual(uris(second), ["skill://two/SKILL.md"]);
  assert.equal(second.nextCursor, undefined);
  for (const skill of second.skills as { resources: unknown[] }[]) {
    assert.equal(skill.resources.length, 2, "an entry is whole on its page");
  }
  const toolsCursor = (await request("skills/list", { cursor: "dG9vbHM6MQ==" })).error;
  assert.equal(toolsCursor?.code, -32602);
});

test("a skill over the extension's file limit is left out and refused by skills/get", async () => {
  const { project, projectSkills } = places();
  const dir = writeSkill(projectSkills, "big", skillMd("big", "Too many files."));
  for (let i = 0; i < 512; i++) writeFileSync(join(dir, `f${i}.txt`), "x");
  writeSkill(projectSkills, "small", skillMd("small", "Fine."));
  const { request, logs } = await serve(project, 100);
  const listed = (await request("skills/list", {})).result!;
  assert.deepEqual((listed.skills as { uri: string }[]).map((s) => s.uri), [
    "skill://small/SKILL.md",
  ]);
  assert.ok(logs.some((line) => /leaves out big: .*over 512 files/.test(line)), logs.join("\n"));
  const refused = await request("skills/get", { uri: "skill://big/SKILL.md" });
  assert.equal(refused.error?.code, -32602);
  assert.match(refused.error!.message, /over 512 files/);
});
