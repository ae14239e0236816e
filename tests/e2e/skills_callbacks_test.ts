/**
 * The workflow tools through the binary: skills found in the project, the home directory and
 * TOOLHOST_SKILL_DIRS (project ones winning, broken ones reported and skipped) and served as a
 * tool; callbacks that fire and ride on the next tool result, and reach legacy clients' logs.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { e2eFixture } from "../helpers/e2e.ts";
import { type Message, modern, RawClient } from "../helpers/raw_client.ts";
import { posixOnly } from "../helpers/posix_only.ts";

const e2e = e2eFixture();

const scratch = (name: string) => e2e.scratch(name);

/** The server's environment: this home, and no skills directories from the developer's own. */
const isolated = (home = scratch("home"), skillDirs = "") => ({
  HOME: home,
  TOOLHOST_SKILL_DIRS: skillDirs,
});

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

test("skills: discovered, project ones override user ones, invalid ones skipped on stderr, served as a tool", async () => {
  const s = skillsSetup();
  const c = e2e.server({
    args: ["--root", s.project],
    cwd: s.project,
    env: isolated(s.home, s.configured),
  });
  const listed = await c.request("tools/list", modern());
  const tool = (listed.result!.tools as Record<string, unknown>[]).find((t) => t.name === "skill")!;
  assert.ok(tool, "the skill tool is offered");
  assert.match(
    String(tool.description),
    /\n\nSkills available:\n- deploy \(user\): Ship it\n- from-config \(configured\): Configured one\n- review \(project; overrides a user skill\): Review a change$/,
  );
  const input = tool.inputSchema as { properties: { name: { enum: string[] } } };
  assert.deepEqual(input.properties.name.enum, ["deploy", "from-config", "review"]);
  await c.waitForStderr(
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

test("a skill's result stays within 30,000 characters and says where read_file reads on", async () => {
  const project = scratch("skills-big");
  const skills = join(project, ".claude", "skills");
  writeSkill(skills, "big", skillMd("big", "Big", "Step: $ARGUMENTS\n".repeat(300)));
  const client = e2e.server({ args: ["--root", project], cwd: project, env: isolated() });
  const given = "g".repeat(10_000);
  const reply = await client.request(
    "tools/call",
    modern({ name: "skill", arguments: { name: "big", arguments: given } }),
  );
  const text = textsOf(reply)[0];
  assert.ok(text.length <= 30_000, `${text.length} characters`);
  assert.equal(text.split("\n").filter((line) => line === `Step: ${given}`).length, 2);
  const at =
    /read on with read_file \(path "(\S+)", offset (\d+)\); \$ARGUMENTS is not replaced there\]/
      .exec(text);
  assert.ok(at, text.slice(-1000));
  assert.deepEqual(reply.result?.structuredContent, {
    name: "big",
    scope: "project",
    file: join(skills, "big", "SKILL.md"),
    directory: join(skills, "big"),
    insideRoots: true,
    files: [],
    moreFiles: 0,
    truncated: true,
    continueAtLine: 7,
  });
  const rest = await client.request(
    "tools/call",
    modern({ name: "read_file", arguments: { path: at[1], offset: Number(at[2]), limit: 1 } }),
  );
  assert.match(textsOf(rest)[0], /^\s*7\tStep: \$ARGUMENTS\n/);
});

test(
  "a FIFO named SKILL.md is skipped with a warning; tools/list and calls still answer",
  posixOnly("makes a FIFO"),
  async () => {
    const project = scratch("skills-fifo");
    const skills = join(project, ".claude", "skills");
    writeSkill(skills, "fine", skillMd("fine", "Fine", "Fine.\n"));
    mkdirSync(join(skills, "piped"));
    const made = spawnSync("mkfifo", [join(skills, "piped", "SKILL.md")]);
    assert.equal(made.status, 0, String(made.stderr));
    const client = e2e.server({ args: ["--root", project], cwd: project, env: isolated() });
    const listed = await client.request("tools/list", modern(), 5000);
    const tool = (listed.result!.tools as Record<string, unknown>[]).find((t) =>
      t.name === "skill"
    )!;
    assert.deepEqual(
      (tool.inputSchema as { properties: { name: { enum: string[] } } }).properties.name.enum,
      ["fine"],
    );
    await client.waitForStderr(
      /skipped the skill in \S+\/piped: its SKILL\.md is a FIFO \(named pipe\), not a regular file/,
    );
    const fine = await client.request("tools/call", call("skill", { name: "fine" }), 5000);
    assert.match(textsOf(fine)[0], /\n\nFine\.\n/);
  },
);

test("a huge skill name or callback_id is echoed cut, not whole", async () => {
  const root = scratch("echo");
  const client = e2e.server({ args: ["--root", root], cwd: root, env: isolated() });
  const huge = "x".repeat(1_000_000);
  const skill = await client.request("tools/call", call("skill", { name: huge }));
  assert.equal(skill.result?.isError, true);
  assert.equal(
    textsOf(skill)[0],
    `"${"x".repeat(100)}…" (1,000,000 characters) is not a skill name`,
  );
  const cancel = await client.request(
    "tools/call",
    call("set_callback", { action: "cancel", callback_id: huge }),
  );
  assert.equal(cancel.result?.isError, true);
  assert.ok(textsOf(cancel)[0].length < 300, `${textsOf(cancel)[0].length} characters`);
  assert.equal(
    textsOf(cancel)[0],
    `no pending callback is called "${"x".repeat(100)}…" (1,000,000 characters) (it may have ` +
      "fired for the last time already); none is pending",
  );
});

const call = (name: string, args: Record<string, unknown>) => modern({ name, arguments: args });

/** A server on a scratch root, with a scratch home. */
function callbacksClient(name: string): RawClient {
  const root = scratch(name);
  return e2e.server({ args: ["--root", root], cwd: root, env: isolated() });
}

// The one test that waits for a real timer; the rest of the timing is tested in-process.
test("a callback fires: logged to the legacy client that asked, reminded once on each client's next result", async () => {
  const legacy = callbacksClient("callbacks-legacy");
  const modernClient = callbacksClient("callbacks-modern");
  try {
    await legacy.initialize("2025-11-25");
    await legacy.request("logging/setLevel", { level: "info" });
    const set = (c: RawClient, message: string, params = call) =>
      c.request("tools/call", params("set_callback", { action: "set", message, delay_seconds: 1 }));
    assert.match(
      textsOf(await set(modernClient, "check the build"))[0],
      /^Set cb1: it fires in 1 s/,
    );
    const modernSetAt = Date.now();
    await set(legacy, "stretch", (name, args) => ({ name, arguments: args }));
    const logged = await legacy.waitFor((m) => m.method === "notifications/message", 5000);
    assert.deepEqual(logged.params, {
      level: "notice",
      logger: "set_callback",
      data: "⏰ cb1: stretch",
    });
    const legacyNext = await legacy.request("tools/call", { name: "list_roots", arguments: {} });
    assert.match(
      textsOf(legacyNext)[1],
      /^⏰ Reminder from set_callback cb1 \(set [12] s ago(?:; fired \d s ago)?\): stretch$/,
    );
    // Past the modern client's fire time (it was set first), with a margin for its timer.
    await new Promise((resolve) => setTimeout(resolve, modernSetAt + 1300 - Date.now()));
    const next = await modernClient.request("tools/call", call("list_roots", {}));
    assert.equal(textsOf(next).length, 2);
    assert.match(
      textsOf(next)[1],
      /^⏰ Reminder from set_callback cb1 \(set [12] s ago(?:; fired \d s ago)?\): check the build$/,
    );
    const after = await modernClient.request("tools/call", call("list_roots", {}));
    assert.equal(textsOf(after).length, 1, "the reminder came once");
    assert.ok(
      !modernClient.messages.some((m) => m.method === "notifications/message"),
      "a 2026-07-28 client asked for no log messages",
    );
  } finally {
    await legacy.close();
    await modernClient.close();
  }
});

test("callbacks: list shows the pending ones, cancel removes one", async () => {
  const c = callbacksClient("callbacks-list");
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
  // Budget 1.8 s; far below what waiting for the callback would take, whatever the load.
  assert.ok(Date.now() - started < 30_000, `exit took ${Date.now() - started} ms`);
});

test("with --root, the root's skills are listed even when started elsewhere", async () => {
  const s = skillsSetup();
  const elsewhere = scratch("skills-cwd");
  const client = e2e.server({ args: ["--root", s.project], cwd: elsewhere, env: isolated(s.home) });
  const list = await client.request("tools/list", modern());
  const skill = (list.result?.tools as {
    name: string;
    inputSchema: { properties: { name: { enum?: string[] } } };
  }[])
    .find((t) => t.name === "skill")!;
  assert.ok(skill.inputSchema.properties.name.enum?.includes("review"));
  assert.ok(skill.inputSchema.properties.name.enum?.includes("deploy"));
});
