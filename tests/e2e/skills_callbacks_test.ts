/**
 * The workflow tools through the binary: skills found in the project, the home directory and
 * TOOLHOST_SKILL_DIRS (project ones winning, broken ones reported and skipped) and served as a
 * tool; callbacks that fire and ride on the next tool result, and reach legacy clients' logs.
 */
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, realpathSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, test } from "node:test";
import { type Message, modern, PRODUCT_BINARY, RawClient } from "../helpers/raw_client.ts";

let client: RawClient | undefined;
afterEach(async () => {
  await client?.close();
  client = undefined;
});

const scratch = (name: string) => realpathSync(mkdtempSync(join(tmpdir(), `toolhost-${name}-`)));

function writeSkill(dir: string, name: string, text: string, files: Record<string, string> = {}) {
  mkdirSync(join(dir, name), { recursive: true });
  writeFileSync(join(dir, name, "SKILL.md"), text);
  for (const [file, content] of Object.entries(files)) {
    writeFileSync(join(dir, name, file), content);
  }
}

const skillMd = (name: string, description: string, body: string) =>
  `---\nname: ${name}\ndescription: ${description}\n---\n${body}`;

/** A project (the root and working directory), a home and a configured directory, with skills. */
function skillsSetup() {
  const project = scratch("skills-project");
  const home = scratch("skills-home");
  const configured = scratch("skills-configured");
  const projectSkills = join(project, ".claude", "skills");
  const projectAgents = join(project, ".agents", "skills");
  const userSkills = join(home, ".claude", "skills");
  writeSkill(
    projectSkills,
    "review",
    skillMd("review", "Review a change", "Review $ARGUMENTS.\n"),
    {
      "checklist.md": "- tests\n",
    },
  );
  writeSkill(userSkills, "review", skillMd("review", "The user's review", "User body\n"));
  writeSkill(join(home, ".agents", "skills"), "deploy", skillMd("deploy", "Ship it", "Deploy.\n"), {
    "deploy.sh": "echo deploy\n",
  });
  writeSkill(configured, "from-config", skillMd("from-config", "Configured one", "C\n"));
  writeSkill(projectAgents, "broken", "---\nname: broken\n---\nNo description.\n");
  writeSkill(projectAgents, "Bad-Name", skillMd("Bad-Name", "x", "x\n"));
  return { project, home, configured, projectSkills, projectAgents, userSkills };
}

const textsOf = (reply: Message) =>
  (reply.result?.content as { type: string; text: string }[]).map((c) => c.text);

async function waitForStderr(c: RawClient, pattern: RegExp): Promise<void> {
  for (let i = 0; i < 100 && !pattern.test(c.stderr); i++) {
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  assert.match(c.stderr, pattern);
}

test("skills: discovered, project ones override user ones, invalid ones skipped on stderr, served as a tool", async () => {
  const s = skillsSetup();
  client = new RawClient(PRODUCT_BINARY, ["--root", s.project], s.project, {
    HOME: s.home,
    TOOLHOST_SKILL_DIRS: s.configured,
  });
  const c = client;
  const listed = await c.request("tools/list", modern());
  const tool = (listed.result!.tools as Record<string, unknown>[]).find((t) => t.name === "skill")!;
  assert.ok(tool, "the skill tool is offered");
  assert.match(
    String(tool.description),
    /\n\nSkills available:\n- deploy \(user\): Ship it\n- from-config \(configured\): Configured one\n- review \(project; overrides a user skill\): Review a change$/,
  );
  const input = tool.inputSchema as { properties: { name: { enum: string[] } } };
  assert.deepEqual(input.properties.name.enum, ["deploy", "from-config", "review"]);
  await waitForStderr(
    c,
    /toolhost warning: skill: skipped the skill in \S+\/\.agents\/skills\/broken: its front matter has no `description`/,
  );
  assert.match(c.stderr, /skipped the skill in \S+\/Bad-Name: its name "Bad-Name" is not 1–64/);
  assert.match(c.stderr, /the project skill review \(\S+\) overrides the user one in /);

  const review = await c.request(
    "tools/call",
    modern({ name: "skill", arguments: { name: "review", arguments: "PR #7" } }),
  );
  assert.equal(review.result?.isError, undefined, textsOf(review)[0]);
  assert.equal(
    textsOf(review)[0],
    `Skill review (project) from ${join(s.projectSkills, "review", "SKILL.md")}:\n\n` +
      "Review PR #7.\n\n" +
      `Files bundled with the skill (in ${join(s.projectSkills, "review")}):\n` +
      "- .claude/skills/review/checklist.md\n" +
      "Read them with read_file when the skill's text calls for them.",
  );
  const checklist = await c.request(
    "tools/call",
    modern({ name: "read_file", arguments: { path: ".claude/skills/review/checklist.md" } }),
  );
  assert.match(textsOf(checklist)[0], /- tests/);

  const deploy = await c.request(
    "tools/call",
    modern({ name: "skill", arguments: { name: "deploy" } }),
  );
  const deployText = textsOf(deploy)[0];
  assert.ok(deployText.includes(`- ${join(s.home, ".agents", "skills", "deploy", "deploy.sh")}\n`));
  assert.match(deployText, /outside the allowed roots, so read_file refuses these files/);

  const broken = await c.request(
    "tools/call",
    modern({ name: "skill", arguments: { name: "broken" } }),
  );
  assert.equal(broken.result?.isError, true);
  assert.match(textsOf(broken)[0], /name must be one of "deploy", "from-config", "review"/);
});

const call = (name: string, args: Record<string, unknown>) => modern({ name, arguments: args });

test("a callback fires and its reminder comes with the next tool result, once", async () => {
  const root = scratch("callbacks");
  client = new RawClient(PRODUCT_BINARY, ["--root", root], root);
  const c = client;
  const tools = (name: string, args: Record<string, unknown>) =>
    c.request("tools/call", call(name, args));
  const set = await tools("set_callback", {
    action: "set",
    message: "check the build",
    delay_seconds: 1,
  });
  assert.match(textsOf(set)[0], /^Set cb1: it fires in 1 s/);
  await new Promise((resolve) => setTimeout(resolve, 1300));
  const next = await tools("list_roots", {});
  assert.equal(textsOf(next).length, 2);
  assert.match(
    textsOf(next)[1],
    /^⏰ Reminder from set_callback cb1 \(set [12] s ago(?:; fired \d s ago)?\): check the build$/,
  );
  const after = await tools("list_roots", {});
  assert.equal(textsOf(after).length, 1, "the reminder came once");
  assert.ok(
    !c.messages.some((m) => m.method === "notifications/message"),
    "a 2026-07-28 client asked for no log messages",
  );
});

test("callbacks: list shows the pending ones, cancel removes one", async () => {
  const root = scratch("callbacks-list");
  client = new RawClient(PRODUCT_BINARY, ["--root", root], root);
  const c = client;
  const tools = (args: Record<string, unknown>) =>
    c.request("tools/call", call("set_callback", args));
  await tools({ action: "set", message: "in an hour", delay_seconds: 3600 });
  await tools({ action: "set", message: "in ten minutes", delay_seconds: 600, repeat_count: 3 });
  const listed = await tools({ action: "list" });
  assert.match(
    textsOf(listed)[0],
    /^2 pending:\n- cb2: fires in 10 min \(at \S+\), fired 0 of 3 times, every 10 min: in ten minutes\n- cb1: fires in 1 h \(at \S+\): in an hour$/,
  );
  const cancelled = await tools({ action: "cancel", callback_id: "cb2" });
  assert.equal(textsOf(cancelled)[0], "Cancelled cb2 (it had fired 0 of 3 times): in ten minutes");
  const after = await tools({ action: "list" });
  assert.deepEqual(
    (after.result?.structuredContent as { callbacks: { id: string }[] }).callbacks.map((cb) =>
      cb.id
    ),
    ["cb1"],
  );
  const again = await tools({ action: "cancel", callback_id: "cb2" });
  assert.equal(again.result?.isError, true);
  assert.match(textsOf(again)[0], /no pending callback is called "cb2".*pending: cb1/);
  // A pending callback does not hold the server up when its client goes.
  const started = Date.now();
  assert.deepEqual(await c.close(), { code: 0, signal: null });
  assert.ok(Date.now() - started < 2500, `exit took ${Date.now() - started} ms`);
  client = undefined;
});

test("a legacy client that set a log level gets the firing as notifications/message", async () => {
  const root = scratch("callbacks-legacy");
  client = new RawClient(PRODUCT_BINARY, ["--root", root], root);
  const c = client;
  await c.initialize("2025-11-25");
  await c.request("logging/setLevel", { level: "info" });
  await c.request("tools/call", {
    name: "set_callback",
    arguments: { action: "set", message: "stretch", delay_seconds: 1, repeat_count: 2 },
  });
  const first = await c.waitFor((m) => m.method === "notifications/message", 5000);
  assert.deepEqual(first.params, {
    level: "notice",
    logger: "set_callback",
    data: "⏰ cb1 (1 of 2): stretch",
  });
  await c.waitFor(
    (m) => m.method === "notifications/message" && String(m.params?.data).includes("2 of 2"),
    5000,
  );
  const next = await c.request("tools/call", { name: "list_roots", arguments: {} });
  assert.match(
    textsOf(next)[1],
    /^⏰ Reminder from set_callback cb1 \(set [23] s ago; fired 2 times since the last reminder; (?:last fired \d s ago; )?2 of 2 so far\): stretch$/,
  );
});

test("with --root, the root's skills are listed even when started elsewhere", async () => {
  const s = skillsSetup();
  const elsewhere = scratch("skills-cwd");
  client = new RawClient(PRODUCT_BINARY, ["--root", s.project], elsewhere, { HOME: s.home });
  const list = await client.request("tools/list", modern());
  const skill = (list.result?.tools as {
    name: string;
    inputSchema: { properties: { name: { enum?: string[] } } };
  }[])
    .find((t) => t.name === "skill")!;
  assert.ok(skill.inputSchema.properties.name.enum?.includes("review"));
  assert.ok(skill.inputSchema.properties.name.enum?.includes("deploy"));
});
