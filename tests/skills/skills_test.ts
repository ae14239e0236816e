/**
 * Agent Skills in-process: SKILL.md rules, where skills come from, which one wins, links (the tool
 * itself: skill_tool_test.ts).
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { delimiter, join } from "node:path";
import process from "node:process";
import { test } from "node:test";
import { skillToolDescription } from "../../tools/skills/_lib/skill_description.ts";
import { InvalidSkill, parseSkill } from "../../tools/skills/_lib/skill_file.ts";
import { bundledFiles } from "../../tools/skills/_lib/skill_files.ts";
import { configuredSkillDirs, skillSources } from "../../tools/skills/_lib/skill_sources.ts";
import { discoverSkills, findSkill } from "../../tools/skills/_lib/skills.ts";
import { posixOnly } from "../helpers/posix_only.ts";
import { places, skillMd, writeSkill } from "../helpers/skills.ts";

async function problemOf(text: string, dirName = "demo"): Promise<string> {
  try {
    await parseSkill(text, dirName);
  } catch (error) {
    assert.ok(error instanceof InvalidSkill, String(error));
    return error.message;
  }
  throw new Error("the SKILL.md was accepted");
}

test("a SKILL.md gives its name, description, body and where the body starts", async () => {
  const skill = await parseSkill(
    "\uFEFF---\r\nname: demo\r\ndescription: >\r\n  Folded\r\n  text.\r\nlicense: MIT\r\n---\r\n# Title\r\nBody\r\n",
    "demo",
  );
  assert.deepEqual(skill, {
    name: "demo",
    description: "Folded text.",
    body: "# Title\nBody\n",
    bodyLine: 8,
    // As written, for the skills extension: every field, the description untrimmed.
    frontMatter: { name: "demo", description: "Folded text.\n", license: "MIT" },
  });
});

test("a SKILL.md that breaks the format's rules is refused with what to fix", async () => {
  assert.match(await problemOf("# no front matter\n"), /does not start with YAML front matter/);
  assert.match(await problemOf("---\nname: demo\n"), /not closed by a `---` line/);
  assert.match(await problemOf("---\nname: [demo\n---\n"), /not valid YAML/);
  assert.match(await problemOf("---\n- a\n---\n"), /not a YAML mapping/);
  assert.match(await problemOf("---\n---\n"), /not a YAML mapping/);
  assert.match(await problemOf("---\ndescription: x\n---\n"), /has no `name`/);
  for (const name of ["Demo", "de--mo", "-demo", "demo-", "de mo", "a".repeat(65)]) {
    assert.match(await problemOf(skillMd(name, "x"), name), /lowercase letters, digits/, name);
  }
  assert.match(
    await problemOf(skillMd("demo", "x"), "other"),
    /name "demo" differs from its directory's name "other"/,
  );
  assert.match(await problemOf("---\nname: demo\n---\n"), /has no `description`/);
  assert.match(await problemOf("---\nname: demo\ndescription: '  '\n---\n"), /has no `desc/);
  assert.match(await problemOf("---\nname: demo\ndescription: 42\n---\n"), /has no `desc/);
  assert.match(await problemOf(skillMd("demo", "d".repeat(1025))), /1025 characters, over/);
  assert.equal((await parseSkill(skillMd("a".repeat(64), "x"), "a".repeat(64))).name.length, 64);
});

test(
  "sources: the project's directories, then configured ones, then the user's, each once",
  posixOnly("makes a FIFO"),
  () => {
    assert.deepEqual(
      skillSources({ projects: ["/p", "/q", "/p"], configured: ["/c"], home: "/h" }),
      [
        { dir: "/p/.claude/skills", scope: "project", project: "/p" },
        { dir: "/p/.agents/skills", scope: "project", project: "/p" },
        { dir: "/q/.claude/skills", scope: "project", project: "/q" },
        { dir: "/q/.agents/skills", scope: "project", project: "/q" },
        { dir: "/c", scope: "configured" },
        { dir: "/h/.claude/skills", scope: "user" },
        { dir: "/h/.agents/skills", scope: "user" },
      ],
    );
    assert.deepEqual(
      skillSources({ projects: ["/h"], configured: [], home: "/h" }).map((s) => s.scope),
      ["user", "user"],
      "started in the home directory, the user's skills stay the user's",
    );
    const home = process.env.HOME;
    assert.deepEqual(configuredSkillDirs(["/a", "", " ", "~/s", "rel"].join(delimiter)), [
      "/a",
      `${home}/s`,
      join(process.cwd(), "rel"),
    ]);
  },
);

function mkfifo(path: string): void {
  const made = spawnSync("mkfifo", [path]);
  assert.equal(made.status, 0, String(made.stderr));
}

test("discovery: project skills win over user ones, invalid ones are reported and skipped", async () => {
  const p = places();
  writeSkill(p.projectSkills, "review", skillMd("review", "Project review"));
  writeSkill(p.userSkills, "review", skillMd("review", "User review"));
  writeSkill(p.userAgents, "deploy", skillMd("deploy", "User deploy"));
  writeSkill(p.projectAgents, "broken", "no front matter\n");
  writeSkill(p.projectAgents, "mismatch", skillMd("other-name", "x"));
  mkdirSync(join(p.projectSkills, "no-skill-here"));
  mkdirSync(join(p.projectSkills, ".hidden"));
  writeFileSync(join(p.projectSkills, "README.md"), "not a skill\n");
  // A skill linked in from elsewhere counts; the same directory reached twice counts once.
  writeSkill(join(p.home, "library"), "linked", skillMd("linked", "Linked in"));
  symlinkSync(join(p.home, "library", "linked"), join(p.userAgents, "linked"));
  const found = await discoverSkills([...p.sources, { dir: p.userSkills, scope: "configured" }]);
  assert.deepEqual(
    found.skills.map((s) => [s.name, s.scope, s.description]),
    [
      ["deploy", "user", "User deploy"],
      ["linked", "user", "Linked in"],
      ["review", "project", "Project review"],
    ],
  );
  assert.equal(found.skills[2].file, join(p.projectSkills, "review", "SKILL.md"));
  assert.deepEqual(found.overrides.map((o) => [o.winner.dir, o.hidden.dir]), [
    [join(p.projectSkills, "review"), join(p.userSkills, "review")],
  ]);
  assert.deepEqual(found.problems, [
    `skipped the skill in ${join(p.projectSkills, "no-skill-here")}: it has no SKILL.md`,
    `skipped the skill in ${
      join(p.projectAgents, "broken")
    }: it does not start with YAML front matter (a \`---\` line)`,
    `skipped the skill in ${join(p.projectAgents, "mismatch")}: its name "other-name" differs ` +
    `from its directory's name "mismatch"; rename one so they match`,
  ]);
});

test("a call finds the winning skill whole, passing over an invalid one, or says why not", async () => {
  const p = places();
  writeSkill(p.projectSkills, "review", "---\nname: review\n---\n");
  writeSkill(p.userSkills, "review", skillMd("review", "User review", "Line 1\nLine 2\n"));
  const skill = await findSkill("review", p.sources, 1024 * 1024);
  assert.equal(skill.scope, "user");
  assert.equal(skill.body, "Line 1\nLine 2\n");
  await assert.rejects(findSkill("absent", p.sources, 1024), /no skill is named absent; looked in/);
  await assert.rejects(findSkill("../etc", p.sources, 1024), /"..\/etc" is not a skill name/);
  writeFileSync(join(p.userSkills, "review", "SKILL.md"), "broken\n");
  await assert.rejects(
    findSkill("review", p.sources, 1024),
    /no usable skill is named review: .*has no `description`.*; .*does not start with YAML/,
  );
});

test("a project's skill that leads out of the project is skipped; within it, or a user's, links count", async () => {
  const p = places();
  // A repository's link to a file elsewhere that reads as a skill: its text must not be served.
  const elsewhere = writeSkill(join(p.home, "private"), "leak", skillMd("leak", "Secret text"));
  mkdirSync(join(p.projectSkills, "leak"), { recursive: true });
  symlinkSync(join(elsewhere, "SKILL.md"), join(p.projectSkills, "leak", "SKILL.md"));
  mkdirSync(p.projectAgents, { recursive: true });
  symlinkSync(elsewhere, join(p.projectAgents, "whole-dir"));
  // Inside the project, a link is just another name.
  const shared = writeSkill(join(p.project, "shared"), "inner", skillMd("inner", "Inner"));
  symlinkSync(shared, join(p.projectAgents, "inner"));
  const found = await discoverSkills(p.sources);
  assert.deepEqual(found.skills.map((s) => [s.name, s.scope]), [["inner", "project"]]);
  const out = `it (name other skill directories in TOOLHOST_SKILL_DIRS)`;
  assert.deepEqual(found.problems, [
    `skipped the skill in ${join(p.projectSkills, "leak")}: its SKILL.md leads out of the ` +
    `project (to ${join(elsewhere, "SKILL.md")}); a project's skills must lie inside ${out}`,
    `skipped the skill in ${join(p.projectAgents, "whole-dir")}: its SKILL.md leads out of the ` +
    `project (to ${join(elsewhere, "SKILL.md")}); a project's skills must lie inside ${out}`,
  ]);
  await assert.rejects(findSkill("leak", p.sources, 1024), /leads out of the project/);
  // The same link among the user's skills is theirs to make.
  mkdirSync(p.userSkills, { recursive: true });
  symlinkSync(elsewhere, join(p.userSkills, "leak"));
  assert.equal((await findSkill("leak", p.sources, 1024)).description, "Secret text");
});

test("bundled files: nested ones listed, SKILL.md and .git left out, links out of the skill not followed", async () => {
  const p = places();
  const dir = writeSkill(p.projectSkills, "tools", skillMd("tools", "x"), {
    "scripts/run.sh": "echo\n",
    "reference.md": "# ref\n",
    ".git/config": "",
  });
  writeFileSync(join(p.home, "secret.txt"), "secret\n");
  symlinkSync(join(p.home, "secret.txt"), join(dir, "escape.txt"));
  symlinkSync(join(dir, "reference.md"), join(dir, "alias.md"));
  symlinkSync(join(dir, "missing"), join(dir, "dangling"));
  assert.deepEqual(await bundledFiles(dir), {
    files: ["alias.md", "reference.md", "scripts/run.sh"],
    more: 0,
    linksOut: 2,
    incomplete: false,
  });
  for (let i = 0; i < 105; i++) writeFileSync(join(dir, `f${String(i).padStart(3, "0")}`), "");
  const many = await bundledFiles(dir);
  assert.equal(many.files.length, 100);
  assert.equal(many.more, 8);
});

test(
  "a FIFO or a device named SKILL.md is skipped, never opened in a way that waits",
  posixOnly("makes a FIFO, links /dev/null"),
  async () => {
    const p = places();
    writeSkill(p.userSkills, "fine", skillMd("fine", "Fine"));
    mkdirSync(join(p.projectSkills, "piped"), { recursive: true });
    mkfifo(join(p.projectSkills, "piped", "SKILL.md"));
    // A user's skill may link anywhere (a project's may not leave the project).
    mkdirSync(join(p.userAgents, "device"), { recursive: true });
    symlinkSync("/dev/zero", join(p.userAgents, "device", "SKILL.md"));
    const found = await discoverSkills(p.sources);
    assert.deepEqual(found.skills.map((s) => s.name), ["fine"]);
    assert.deepEqual(found.problems, [
      `skipped the skill in ${
        join(p.projectSkills, "piped")
      }: its SKILL.md is a FIFO (named pipe), not a regular file`,
      `skipped the skill in ${
        join(p.userAgents, "device")
      }: its SKILL.md is a character device, not a regular file`,
    ]);
    await assert.rejects(
      findSkill("piped", p.sources, 1024),
      /no usable skill is named piped: .*piped was skipped: its SKILL.md is a FIFO \(named pipe\)/,
    );
  },
);

test("discovery reads front matter only, which must close within 16 KB", async () => {
  const p = places();
  const comment = `# ${"c".repeat(98)}\n`;
  writeSkill(p.userSkills, "short", skillMd("short", "Short", "x\n".repeat(100_000)));
  writeSkill(
    p.userSkills,
    "wordy",
    `---\nname: wordy\ndescription: Wordy\n${comment.repeat(160)}---\nBody\n`,
  );
  writeSkill(
    p.userSkills,
    "too-wordy",
    `---\nname: too-wordy\ndescription: Too wordy\n${comment.repeat(170)}---\nBody\n`,
  );
  const found = await discoverSkills(p.sources);
  assert.deepEqual(found.skills.map((s) => s.name), ["short", "wordy"]);
  assert.deepEqual(found.problems, [
    `skipped the skill in ${
      join(p.userSkills, "too-wordy")
    }: its front matter is not closed by a \`---\` line within its first 16 KB`,
  ]);
});

test("once 200 skills are found the rest are counted by name, not read", async () => {
  const p = places();
  for (let i = 0; i < 200; i++) {
    const name = `s${String(i).padStart(3, "0")}`;
    writeSkill(p.projectSkills, name, skillMd(name, "A skill"));
  }
  // Past the limit: not read, so neither their problems nor their overrides are reported.
  mkdirSync(join(p.projectSkills, "t-no-skill-md"));
  writeSkill(p.userSkills, "t-later", skillMd("t-later", "Later"));
  writeSkill(p.userSkills, "s000", "broken\n");
  writeFileSync(join(p.userSkills, "u-file"), "");
  mkdirSync(join(p.userSkills, "Not-A-Name"));
  const found = await discoverSkills(p.sources);
  assert.equal(found.skills.length, 200);
  assert.equal(found.unread, 2);
  assert.deepEqual(found.problems, [
    "2 more skill directories were not read: only 200 skills are offered (t-no-skill-md, t-later)",
  ]);
  assert.deepEqual(found.overrides.map((o) => o.hidden.dir), [join(p.userSkills, "s000")]);
  assert.match(
    skillToolDescription(found, p.sources),
    /\n- …and 100 more \(their names are in the `name` enum\)\n\(2 more skill directories were not read: only 200 skills are offered\)$/,
  );
});

test("a name that is no skill name is echoed cut, however long", async () => {
  const p = places();
  const error = await findSkill("Q".repeat(5_000_000), p.sources, 1024).catch((e) => e);
  assert.ok(error.message.length < 300, `${error.message.length} characters`);
  assert.equal(error.message, `"${"Q".repeat(100)}…" (5,000,000 characters) is not a skill name`);
  assert.match(
    await problemOf(`---\nname: ${"N".repeat(10_000)}\ndescription: x\n---\n`),
    /^its name "N{100}…" \(10,000 characters\) is not 1–64 lowercase letters/,
  );
});

test("the description lists each skill with its scope, bounded; without skills it says where to put them", async () => {
  const p = places();
  writeSkill(p.projectSkills, "review", skillMd("review", "Project\n  review"));
  writeSkill(p.userSkills, "review", skillMd("review", "User review"));
  writeSkill(p.userSkills, "long", skillMd("long", "y".repeat(1000)));
  const text = skillToolDescription(await discoverSkills(p.sources), p.sources);
  assert.match(text, /^Loads an Agent Skill/);
  assert.match(text, /\n- long \(user\): y{299}…\n/);
  assert.match(text, /\n- review \(project; overrides a user skill\): Project review$/);
  const none = skillToolDescription(await discoverSkills([]), p.sources);
  assert.match(none, /No skills were found when the server started/);
  assert.ok(none.includes(p.userAgents), none);
});

test("more skills than the description shows are named by count", async () => {
  const p = places();
  for (let i = 0; i < 120; i++) writeSkill(p.userSkills, `s${i}`, skillMd(`s${i}`, "z".repeat(40)));
  const found = await discoverSkills(p.sources);
  const text = skillToolDescription(found, p.sources);
  assert.equal(text.split("\n- s").length - 1, 100);
  assert.match(text, /\n- …and 20 more \(their names are in the `name` enum\)$/);
});

// The tool itself, through an in-process server. Its description is made from the working
// directory, HOME (which Deno's homedir reads on every call) and TOOLHOST_SKILL_DIRS, so each
// test points them at scratch directories of its own.
