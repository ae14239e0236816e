/**
 * Resources, prompts and completion through dist/toolhost-test with raw JSON lines, in both
 * eras: what each lists, reads and completes, and the sandbox holding for file:/// URIs.
 */
import assert from "node:assert/strict";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { e2eFixture } from "../helpers/e2e.ts";
import { type Message, modern, RawClient, TEST_BINARY } from "../helpers/raw_client.ts";
import { posixOnly } from "../helpers/posix_only.ts";

const e2e = e2eFixture();

const scratch = (name: string) => e2e.scratch(name);

/** A project root with a file, a skill, and links that lead out of it. */
function project() {
  const root = scratch("res-root");
  const outside = scratch("res-outside");
  writeFileSync(join(outside, "secret.txt"), "top secret");
  writeFileSync(join(root, "hello.txt"), "hello\n");
  symlinkSync(join(outside, "secret.txt"), join(root, "escape.txt"));
  const skill = join(root, ".claude", "skills", "release-notes");
  mkdirSync(skill, { recursive: true });
  writeFileSync(
    join(skill, "SKILL.md"),
    "---\nname: release-notes\ndescription: Writes release notes.\n---\nNotes for $ARGUMENTS.\n",
  );
  return { root, outside };
}

function start(root: string, args: string[] = []): RawClient {
  return e2e.server({ binary: TEST_BINARY, args: ["--root", root, ...args], cwd: root });
}

const contents = (reply: Message) => reply.result?.contents as Record<string, unknown>[];

test(
  "legacy (2025-11-25): capabilities, lists, reads, prompts, completion and refusals",
  posixOnly("file:///etc/passwd and file:// URIs of POSIX paths"),
  async () => {
    const { root } = project();
    const c = start(root);
    const init = await c.initialize("2025-11-25");
    assert.deepEqual(init.result?.capabilities, {
      tools: { listChanged: false },
      logging: {},
      resources: { subscribe: true, listChanged: true },
      prompts: { listChanged: true },
      completions: {},
      experimental: { "resources/search": { maxQueryLength: 200, maxResults: 500 } },
      tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } },
      extensions: {
        "io.modelcontextprotocol/skills": { directoryRead: true },
        "io.modelcontextprotocol/ui": { mimeTypes: ["text/html;profile=mcp-app"] },
      },
    });
    const listed = await c.request("resources/list");
    const uris = (listed.result?.resources as { uri: string }[]).map((r) => r.uri);
    assert.deepEqual(uris, [
      "toolhost://history",
      "toolhost://plan",
      "toolhost://tasks",
      "skill://release-notes/SKILL.md",
      "toolhost://skills/release-notes",
    ]);
    const templates = await c.request("resources/templates/list");
    assert.deepEqual(
      (templates.result?.resourceTemplates as { uriTemplate: string }[]).map((t) => t.uriTemplate),
      [
        "file:///{+path}",
        "skill://{name}/{+path}",
        "toolhost://processes/{id}/output",
        "toolhost://skills/{name}",
      ],
    );

    const file = await c.request("resources/read", { uri: `file://${root}/hello.txt` });
    assert.deepEqual(contents(file), [
      { uri: `file://${root}/hello.txt`, mimeType: "text/plain", text: "hello\n" },
    ]);
    for (const uri of ["file:///etc/passwd", `file://${root}/escape.txt`]) {
      const refused = await c.request("resources/read", { uri });
      assert.equal(refused.error?.code, -32602, uri);
      assert.match(refused.error!.message, /outside the allowed roots/);
      assert.doesNotMatch(JSON.stringify(refused), /top secret|root:x:0/);
    }
    const missing = await c.request("resources/read", { uri: `file://${root}/nope.txt` });
    assert.equal(missing.error?.code, -32002);
    const unknown = await c.request("resources/read", { uri: "toolhost://nothing" });
    assert.equal(unknown.error?.code, -32002);
    assert.deepEqual(unknown.error?.data, { uri: "toolhost://nothing" });

    const prompts = await c.request("prompts/list");
    assert.deepEqual(
      (prompts.result?.prompts as { name: string }[]).map((p) => p.name),
      ["fixture-greet", "release-notes"],
    );
    const got = await c.request("prompts/get", {
      name: "release-notes",
      arguments: { arguments: "v2.0" },
    });
    assert.deepEqual(got.result, {
      messages: [{ role: "user", content: { type: "text", text: "Notes for v2.0." } }],
      description: "Writes release notes.",
    });
    const needs = await c.request("prompts/get", { name: "fixture-greet" });
    assert.equal(needs.error?.code, -32602);
    assert.match(needs.error!.message, /needs the argument who/);

    const language = await c.request("completion/complete", {
      ref: { type: "ref/prompt", name: "fixture-greet" },
      argument: { name: "language", value: "E" },
    });
    assert.deepEqual(language.result?.completion, {
      values: ["English", "Esperanto"],
      total: 2,
      hasMore: false,
    });
    const path = await c.request("completion/complete", {
      ref: { type: "ref/resource", uri: "file:///{+path}" },
      argument: { name: "path", value: `${root.slice(1)}/he` },
    });
    assert.deepEqual((path.result?.completion as { values: string[] }).values, [
      `${root.slice(1)}/hello.txt`,
    ]);
    assert.deepEqual(c.strayLines, []);
  },
);

test("modern (2026-07-28): results are complete and cacheable; unknown resources are -32602", async () => {
  const { root } = project();
  const c = start(root);
  const discover = await c.request("server/discover", modern());
  assert.deepEqual(
    Object.keys(discover.result?.capabilities as object).sort(),
    ["completions", "experimental", "extensions", "logging", "prompts", "resources", "tools"],
  );
  for (const method of ["resources/list", "resources/templates/list", "prompts/list"]) {
    const reply = await c.request(method, modern());
    assert.equal(reply.result?.resultType, "complete", method);
    assert.equal(typeof reply.result?.ttlMs, "number", method);
    assert.ok(["public", "private"].includes(reply.result?.cacheScope as string), method);
  }
  const read = await c.request(
    "resources/read",
    modern({ uri: "toolhost://skills/release-notes" }),
  );
  assert.equal(read.result?.resultType, "complete");
  assert.equal(read.result?.ttlMs, 0);
  assert.equal(read.result?.cacheScope, "private");
  assert.match(contents(read)[0].text as string, /^---\nname: release-notes/);
  const missing = await c.request("resources/read", modern({ uri: `file://${root}/nope.txt` }));
  assert.equal(missing.error?.code, -32602);
  assert.match(missing.error!.message, /^Resource not found/);
  const escape = await c.request("resources/read", modern({ uri: `file://${root}/escape.txt` }));
  assert.equal(escape.error?.code, -32602);
  assert.match(escape.error!.message, /outside the allowed roots \(it resolves to /);

  // A background process's output, found through the id completion.
  const started = await c.request(
    "tools/call",
    modern({ name: "bash_background", arguments: { command: "echo from-the-background" } }),
  );
  assert.equal(started.result?.isError, undefined, JSON.stringify(started));
  const ids = await c.request(
    "completion/complete",
    modern({
      ref: { type: "ref/resource", uri: "toolhost://processes/{id}/output" },
      argument: { name: "id", value: "" },
    }),
  );
  const [id] = (ids.result?.completion as { values: string[] }).values;
  assert.equal(id, "p1");
  let text = "";
  for (let i = 0; i < 50 && !text.includes("from-the-background"); i++) {
    const output = await c.request(
      "resources/read",
      modern({ uri: `toolhost://processes/${id}/output` }),
    );
    text = contents(output)[0].text as string;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  assert.equal(text, "from-the-background\n");
  const skill = await c.request(
    "completion/complete",
    modern({
      ref: { type: "ref/resource", uri: "toolhost://skills/{name}" },
      argument: { name: "name", value: "rel" },
    }),
  );
  assert.deepEqual((skill.result?.completion as { values: string[] }).values, ["release-notes"]);
});

test("resources go with their tools: read-only mode drops the plan, tasks and processes", async () => {
  const { root } = project();
  const c = start(root, ["--read-only"]);
  await c.initialize("2025-06-18");
  const listed = await c.request("resources/list");
  // history is read-only, so its resource stays.
  assert.deepEqual(
    (listed.result?.resources as { uri: string }[]).map((r) => r.uri),
    ["toolhost://history", "skill://release-notes/SKILL.md", "toolhost://skills/release-notes"],
  );
  const templates = await c.request("resources/templates/list");
  assert.deepEqual(
    (templates.result?.resourceTemplates as { uriTemplate: string }[]).map((t) => t.uriTemplate),
    ["file:///{+path}", "skill://{name}/{+path}", "toolhost://skills/{name}"],
  );
  const plan = await c.request("resources/read", { uri: "toolhost://plan" });
  assert.equal(plan.error?.code, -32002);
});
