/**
 * toolhost's own resources and prompts in-process: files through the sandbox, background
 * process output, the plan, the task list, and skills as resources and prompts.
 */
import assert from "node:assert/strict";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { sortContributions } from "../../mcp/features/mod.ts";
import { processesOf } from "../../tools/shell/_lib/background.ts";
import { SessionMemory } from "../../mcp/tool/mod.ts";
import { planMode } from "../../tools/workflow/plan_mode.ts";
import files, { MAX_BYTES } from "../../tools/files/file_resources.ts";
import tasks from "../../tools/workflow/tasks.ts";
import { toolModules } from "../../tools/mod.ts";
import { callInRoots, scratchDir } from "../helpers/file_tools.ts";
import { type Harness, harness, initializeParams } from "../helpers/in_process.ts";
import { type Message, modern } from "../helpers/raw_client.ts";
import { scratchStateDir } from "../helpers/state_dir.ts";
import { posixOnly } from "../helpers/posix_only.ts";

/** The registry is what is tested here; the sandbox, through the binary (tests/e2e). */
const UNCONFINED = { confinement: { unconfined: "a unit test of the output resources" } };

scratchStateDir();

const { tools: _, ...offered } = sortContributions(toolModules);

/** A server offering every built-in resource and prompt, working in `root` (in `session`). */
function server(root: string, session = new SessionMemory()): Harness {
  return harness([], undefined, { fixed: [root], fallback: [root] }, { ...offered, session });
}

let nextId = 1;
const read = (h: Harness, uri: string) => h.request(nextId++, "resources/read", modern({ uri }));
const textOf = (reply: Message) =>
  ((reply.result?.contents as { text: string }[] | undefined)?.[0])?.text;
const complete = async (h: Harness, uri: string, name: string, value: string) => {
  const reply = await h.request(
    nextId++,
    "completion/complete",
    modern({ ref: { type: "ref/resource", uri }, argument: { name, value } }),
  );
  assert.ok(reply.result, JSON.stringify(reply.error));
  return (reply.result.completion as { values: string[] }).values;
};

test("file:/// reads text as text and other bytes as a base64 blob", async () => {
  const root = scratchDir();
  writeFileSync(join(root, "notes.md"), "# Hi\n");
  writeFileSync(join(root, "a b%.txt"), "spaced");
  const png = Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]);
  writeFileSync(join(root, "pixel.png"), png);
  writeFileSync(join(root, "data.bin"), Uint8Array.from([1, 0, 2, 0, 3]));
  const h = server(root);
  const md = await read(h, `file://${root}/notes.md`);
  assert.deepEqual(md.result?.contents, [
    { uri: `file://${root}/notes.md`, mimeType: "text/markdown", text: "# Hi\n" },
  ]);
  assert.equal(textOf(await read(h, `file://${root}/a%20b%25.txt`)), "spaced");
  const image = await read(h, `file://${root}/pixel.png`);
  assert.deepEqual(image.result?.contents, [
    {
      uri: `file://${root}/pixel.png`,
      mimeType: "image/png",
      blob: btoa(String.fromCharCode(...png)),
    },
  ]);
  const bin = await read(h, `file://${root}/data.bin`);
  const [blob] = bin.result?.contents as { blob: string; mimeType: string }[];
  assert.equal(blob.mimeType, "application/octet-stream");
  assert.equal(atob(blob.blob), "\x01\x00\x02\x00\x03");
});

test(
  "file:/// refuses what lies outside the roots, through .. and symlinks too",
  posixOnly("refuses /etc through .. and symlinks, POSIX paths in file:/// URIs"),
  async () => {
    const root = scratchDir();
    const outside = scratchDir("toolhost-outside-");
    writeFileSync(join(outside, "secret.txt"), "secret");
    symlinkSync(join(outside, "secret.txt"), join(root, "link.txt"));
    symlinkSync(outside, join(root, "linkdir"));
    mkdirSync(join(root, "sub"));
    const h = server(root);
    for (
      const uri of [
        "file:///etc/passwd",
        `file://${root}/link.txt`,
        `file://${root}/linkdir/secret.txt`,
        `file://${root}/../${outside.split("/").pop()}/secret.txt`,
        `file://${root}/%2E%2E/%2E%2E/etc/passwd`,
      ]
    ) {
      const reply = await read(h, uri);
      assert.equal(reply.error?.code, -32602, uri);
      assert.match(reply.error!.message, /is outside the allowed roots/, uri);
      assert.doesNotMatch(JSON.stringify(reply), /secret"|root:x:0/);
    }
    const dir = await read(h, `file://${root}/sub`);
    assert.equal(dir.error?.code, -32602);
    assert.match(dir.error!.message, /is a directory, not a regular file/);
    const missing = await read(h, `file://${root}/nope.txt`);
    assert.equal(missing.error?.code, -32602);
    assert.match(missing.error!.message, /^Resource not found: .* \(nope\.txt does not exist\)$/);
    const legacy = server(root);
    await legacy.request(0, "initialize", initializeParams("2025-11-25"));
    const legacyMissing = await legacy.request(1, "resources/read", { uri: `file://${root}/nope` });
    assert.equal(legacyMissing.error?.code, -32002);
    writeFileSync(join(root, "big.txt"), new Uint8Array(MAX_BYTES + 1).fill(97));
    const big = await read(h, `file://${root}/big.txt`);
    assert.equal(big.error?.code, -32602);
    assert.match(big.error!.message, /over the 5\.0 MB a resource may be; read it in parts/);
  },
);

test("file:/// completes paths: down to a root, then inside it only", async () => {
  const root = scratchDir();
  mkdirSync(join(root, "src"));
  writeFileSync(join(root, "src", "main.ts"), "");
  writeFileSync(join(root, "src", "mod.ts"), "");
  writeFileSync(join(root, "src", ".hidden"), "");
  writeFileSync(join(root, "readme.md"), "");
  const h = server(root);
  const uri = files.uriTemplate;
  const rel = root.slice(1);
  assert.deepEqual(await complete(h, uri, "path", ""), [`${rel}/`]);
  assert.deepEqual(await complete(h, uri, "path", rel.slice(0, 6)), [`${rel}/`]);
  assert.deepEqual(await complete(h, uri, "path", `${rel}/`), [`${rel}/readme.md`, `${rel}/src/`]);
  assert.deepEqual(await complete(h, uri, "path", `${rel}/src/m`), [
    `${rel}/src/main.ts`,
    `${rel}/src/mod.ts`,
  ]);
  assert.deepEqual(await complete(h, uri, "path", `${rel}/src/.`), [`${rel}/src/.hidden`]);
  assert.deepEqual(await complete(h, uri, "path", "etc/pa"), []);
  assert.deepEqual(await complete(h, uri, "path", `${rel}/../`), []);
});

test("path completion finds a name late in a big directory and skips names a URI cannot carry", async () => {
  const root = scratchDir();
  mkdirSync(join(root, "big"));
  for (let i = 0; i < 6000; i++) writeFileSync(join(root, "big", `f${i}`), "");
  writeFileSync(join(root, "big", "zzz_last"), "");
  writeFileSync(join(root, "big", "zzz?query"), "");
  writeFileSync(join(root, "big", "zzz#frag"), "");
  const h = server(root);
  const rel = root.slice(1);
  assert.deepEqual(await complete(h, files.uriTemplate, "path", `${rel}/big/zzz`), [
    `${rel}/big/zzz_last`,
  ]);
  assert.equal((await complete(h, files.uriTemplate, "path", `${rel}/big/f`)).length, 100);
});

test(
  "toolhost://processes/{id}/output shows a background process's output, listed and completed",
  posixOnly("runs printf with the default shell (PowerShell on Windows)"),
  async () => {
    const root = scratchDir();
    const session = new SessionMemory();
    const proc = processesOf({ session }).start(
      "printf 'line one\\nline two\\n'",
      root,
      UNCONFINED,
    );
    await proc.waitForEnd(5000, new AbortController().signal);
    const h = server(root, session);
    const uri = `toolhost://processes/${proc.id}/output`;
    const reply = await read(h, uri);
    assert.deepEqual(reply.result?.contents, [
      { uri, mimeType: "text/plain", text: "line one\nline two\n" },
    ]);
    assert.equal(proc.readCursor, 0, "reading the resource leaves bash_output's mark alone");
    const list = await h.request(nextId++, "resources/list", modern());
    const listed = (list.result?.resources as { uri: string; description: string }[])
      .find((r) => r.uri === uri);
    assert.match(listed?.description ?? "", /exited with code 0/);
    assert.ok((await complete(h, "toolhost://processes/{id}/output", "id", "p")).includes(proc.id));
    const unknown = await read(h, "toolhost://processes/p999999/output");
    assert.equal(unknown.error?.code, -32602);
    assert.match(unknown.error!.message, /no background process has the id p999999/);
  },
);

test(
  "toolhost://processes is bash_list's answer as JSON, a finished process with its exit code",
  posixOnly("runs printf with the default shell (PowerShell on Windows)"),
  async () => {
    const root = scratchDir();
    const session = new SessionMemory();
    const proc = processesOf({ session }).start("printf 'done\\n'", root, UNCONFINED);
    await proc.waitForEnd(5000, new AbortController().signal);
    const h = server(root, session);
    const reply = await read(h, "toolhost://processes");
    const content = (reply.result?.contents as { mimeType: string; text: string }[])[0];
    assert.equal(content.mimeType, "application/json");
    const { processes } = JSON.parse(content.text) as {
      processes: { id: string; status: string; exitCode: number; outputBytes: number }[];
    };
    const row = processes.find((p) => p.id === proc.id);
    assert.equal(row?.status, "exited");
    assert.equal(row?.exitCode, 0);
    assert.equal(row?.outputBytes, 5);
  },
);

test("toolhost://plan is the plan in progress, and says when plan mode is off", async () => {
  const root = scratchDir();
  const h = server(root);
  assert.match(textOf(await read(h, "toolhost://plan")) ?? "", /Plan mode is off/);
  await callInRoots(planMode, [root], { action: "enter", goal: "Ship it" });
  await callInRoots(planMode, [root], { action: "write", text: "# Plan\n\n1. Build\n2. Ship\n" });
  const plan = await read(h, "toolhost://plan");
  assert.deepEqual(plan.result?.contents, [
    { uri: "toolhost://plan", mimeType: "text/markdown", text: "# Plan\n\n1. Build\n2. Ship\n" },
  ]);
  await callInRoots(planMode, [root], { action: "reset" });
});

test("toolhost://tasks is the task list as a markdown checklist", async () => {
  const root = scratchDir();
  const h = server(root);
  assert.equal(
    textOf(await read(h, "toolhost://tasks")),
    '# Tasks\n\nNo tasks. Add one with action "create" and `text`.\n',
  );
  await callInRoots(tasks, [root], { action: "create", text: "Set up CI" });
  await callInRoots(tasks, [root], { action: "add", text: "Write the workflow" });
  await callInRoots(tasks, [root], { action: "start", step_id: "t1.1" });
  assert.equal(
    textOf(await read(h, "toolhost://tasks")),
    "# Tasks\n\n1 task: 0 done, 1 in progress, 0 pending; current: t1 Set up CI.\n\n" +
      "- [~] t1 Set up CI (current, 0/1 steps done)\n  - [~] t1.1 Write the workflow\n",
  );
});

test("skills are resources (toolhost://skills/{name}) and prompts that fill $ARGUMENTS", async () => {
  const root = scratchDir();
  const dir = join(root, ".claude", "skills", "deploy-app");
  mkdirSync(dir, { recursive: true });
  const skillMd = "---\nname: deploy-app\ndescription: Deploys the app.\n---\n" +
    "Deploy to $ARGUMENTS now.\n";
  writeFileSync(join(dir, "SKILL.md"), skillMd);
  const plain = join(root, ".claude", "skills", "tidy");
  mkdirSync(plain);
  writeFileSync(join(plain, "SKILL.md"), "---\nname: tidy\ndescription: Tidies up.\n---\nTidy.\n");
  const h = server(root);
  const resource = await read(h, "toolhost://skills/deploy-app");
  assert.deepEqual(resource.result?.contents, [
    { uri: "toolhost://skills/deploy-app", mimeType: "text/markdown", text: skillMd },
  ]);
  const missing = await read(h, "toolhost://skills/nope");
  assert.equal(missing.error?.code, -32602);
  assert.match(missing.error!.message, /Resource not found: toolhost:\/\/skills\/nope \(no skill/);
  assert.deepEqual(await complete(h, "toolhost://skills/{name}", "name", "de"), ["deploy-app"]);

  const prompts = await h.request(nextId++, "prompts/list", modern());
  const names = (prompts.result?.prompts as { name: string }[]).map((p) => p.name);
  assert.deepEqual(names, ["deploy-app", "tidy"]);
  const got = await h.request(
    nextId++,
    "prompts/get",
    modern({
      name: "deploy-app",
      arguments: { arguments: "staging" },
    }),
  );
  assert.deepEqual(got.result?.messages, [
    { role: "user", content: { type: "text", text: "Deploy to staging now." } },
  ]);
  assert.equal(got.result?.description, "Deploys the app.");
  const appended = await h.request(
    nextId++,
    "prompts/get",
    modern({
      name: "tidy",
      arguments: { arguments: "the docs" },
    }),
  );
  assert.equal(
    (appended.result?.messages as { content: { text: string } }[])[0].content.text,
    "Tidy.\n\nARGUMENTS: the docs",
  );
});
