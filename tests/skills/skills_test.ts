/** Agent Skills in-process: SKILL.md rules, where skills come from, which one wins, the tool. */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { delimiter, join } from "node:path";
import process from "node:process";
import { after, test } from "node:test";
import skillTool from "../../tools/skills/skill.ts";
import { skillToolDescription } from "../../tools/skills/_lib/skill_description.ts";
import { InvalidSkill, parseSkill } from "../../tools/skills/_lib/skill_file.ts";
import { bundledFiles } from "../../tools/skills/_lib/skill_files.ts";
import {
  configuredSkillDirs,
  type SkillSource,
  skillSources,
} from "../../tools/skills/_lib/skill_sources.ts";
import { discoverSkills, findSkill } from "../../tools/skills/_lib/skills.ts";
import { fillArguments } from "../../tools/skills/_lib/skill_text.ts";
import { callTool, scratchDir, type ToolResult } from "../helpers/file_tools.ts";
import { harness } from "../helpers/in_process.ts";
import { modern } from "../helpers/raw_client.ts";
import { posixOnly } from "../helpers/posix_only.ts";

const skillMd = (name: string, description: string, body = "Do the thing.\n") =>
  `---\nname: ${name}\ndescription: ${description}\n---\n${body}`;

/** Writes `<skillsDir>/<dir>/SKILL.md` (and any other files) and returns the skill's directory. */
function writeSkill(
  skillsDir: string,
  dir: string,
  text: string,
  files: Record<string, string> = {},
): string {
  const at = join(skillsDir, dir);
  mkdirSync(at, { recursive: true });
  writeFileSync(join(at, "SKILL.md"), text);
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(join(at, path, ".."), { recursive: true });
    writeFileSync(join(at, path), content);
  }
  return at;
}

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

/** A project and a home directory, each with its skills directories. */
function places() {
  const project = scratchDir("toolhost-skills-project-");
  const home = scratchDir("toolhost-skills-home-");
  const sources: SkillSource[] = skillSources({ projects: [project], configured: [], home });
  return {
    project,
    home,
    sources,
    projectSkills: join(project, ".claude", "skills"),
    projectAgents: join(project, ".agents", "skills"),
    userSkills: join(home, ".claude", "skills"),
    userAgents: join(home, ".agents", "skills"),
  };
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
const saved = {
  home: process.env.HOME,
  dirs: process.env.TOOLHOST_SKILL_DIRS,
  cwd: process.cwd(),
};
after(() => {
  process.env.HOME = saved.home;
  if (saved.dirs === undefined) delete process.env.TOOLHOST_SKILL_DIRS;
  else process.env.TOOLHOST_SKILL_DIRS = saved.dirs;
  process.chdir(saved.cwd);
});

function scratchPlaces() {
  const p = places();
  process.env.HOME = p.home;
  process.env.TOOLHOST_SKILL_DIRS = "";
  process.chdir(p.project);
  return p;
}

test("the tool returns the body with $ARGUMENTS replaced, and the bundled files read_file can open", async () => {
  const p = scratchPlaces();
  writeSkill(
    p.projectSkills,
    "fix-issue",
    skillMd("fix-issue", "Fix an issue", "Fix issue $ARGUMENTS.\nThen close $ARGUMENTS.\n"),
    { "checklist.md": "- [ ] test\n" },
  );
  const { result, text, data } = await callTool(skillTool, [p.project], {
    name: "fix-issue",
    arguments: "#42",
  });
  assert.equal(result.isError, undefined, text);
  assert.equal(
    text,
    `Skill fix-issue (project) from ${join(p.projectSkills, "fix-issue", "SKILL.md")}:\n\n` +
      "Fix issue #42.\nThen close #42.\n\n" +
      `Files bundled with the skill (in ${join(p.projectSkills, "fix-issue")}):\n` +
      "- .claude/skills/fix-issue/checklist.md\n" +
      "Read them with read_file when the skill's text calls for them.",
  );
  assert.deepEqual(data, {
    name: "fix-issue",
    scope: "project",
    file: join(p.projectSkills, "fix-issue", "SKILL.md"),
    directory: join(p.projectSkills, "fix-issue"),
    insideRoots: true,
    files: ["checklist.md"],
    moreFiles: 0,
    truncated: false,
  });
});

test("a skill outside the roots gives absolute paths and says read_file cannot open them", async () => {
  const p = scratchPlaces();
  writeSkill(p.userSkills, "notes", skillMd("notes", "Take notes", "Take notes.\n"), {
    "template.md": "# Notes\n",
  });
  const { text, data } = await callTool(skillTool, [p.project], {
    name: "notes",
    arguments: "on the meeting",
  });
  assert.match(text, /\n\nTake notes\.\n\nARGUMENTS: on the meeting\n\n/);
  assert.ok(text.includes(`- ${join(p.userSkills, "notes", "template.md")}\n`), text);
  assert.match(text, /outside the allowed roots, so read_file refuses these files/);
  assert.equal(data.insideRoots, false);
});

test("a long skill is cut at a line end, the result within 30,000 characters, with where to read on", async () => {
  const p = scratchPlaces();
  const line = "x".repeat(99);
  writeSkill(p.projectSkills, "huge", skillMd("huge", "Huge", `${line}\n`.repeat(2000)));
  const { text, data } = await callTool(skillTool, [p.project], { name: "huge" });
  assert.ok(text.length <= 30_000, `${text.length} characters`);
  const shown = text.split("\n").filter((l) => l === line).length;
  assert.ok(shown > 250, `${shown} lines shown`);
  // The body starts on line 5, so the first line not shown is 5 + shown.
  assert.ok(
    text.includes(
      `\n\n[the skill's text was cut before line ${5 + shown} of SKILL.md to keep this result ` +
        `under 30,000 characters: read on with read_file (path ".claude/skills/huge/SKILL.md", ` +
        `offset ${5 + shown})]\n\n`,
    ),
    text.slice(-600),
  );
  assert.equal(data.truncated, true);
  assert.equal(data.continueAtLine, 5 + shown);
});

test("$ARGUMENTS is replaced before the cut: 9,000 of them and a 10,000-character argument stay bounded", async () => {
  const p = scratchPlaces();
  writeSkill(p.projectSkills, "many", skillMd("many", "Many", "Use $ARGUMENTS.\n".repeat(9000)));
  writeSkill(p.projectSkills, "one-line", skillMd("one-line", "One", "$ARGUMENTS".repeat(9000)));
  const given = "a".repeat(10_000);
  const many = await callTool(skillTool, [p.project], { name: "many", arguments: given });
  assert.ok(many.text.length <= 30_000, `${many.text.length} characters`);
  // Lines 5 and 6 fit whole; the 30,000 characters leave no room for a third.
  assert.equal(many.text.split("\n").filter((l) => l === `Use ${given}.`).length, 2);
  assert.match(
    many.text,
    /\[the skill's text was cut before line 7 of SKILL\.md .*offset 7\); \$ARGUMENTS is not replaced there\]/,
  );
  const oneLine = await callTool(skillTool, [p.project], { name: "one-line", arguments: given });
  assert.ok(oneLine.text.length <= 30_000, `${oneLine.text.length} characters`);
  assert.ok(oneLine.text.includes(given.repeat(2)), "a single long line is shown in part");
  assert.match(oneLine.text, /cut partway through line 5 of SKILL\.md .*offset 5\)/);
  assert.equal(oneLine.data.continueAtLine, 5);
});

test("a skill without $ARGUMENTS keeps the arguments whole after its cut text", async () => {
  const p = scratchPlaces();
  writeSkill(
    p.userSkills,
    "plain",
    skillMd("plain", "Plain", "y".repeat(99).concat("\n").repeat(900)),
  );
  const given = "b".repeat(10_000);
  const { text, data } = await callTool(skillTool, [p.project], {
    name: "plain",
    arguments: given,
  });
  assert.ok(text.length <= 30_000, `${text.length} characters`);
  assert.ok(text.includes(`\n\nARGUMENTS: ${given}\n\n`), "the arguments are not cut");
  assert.match(
    text,
    /cut before line \d+ of SKILL\.md to keep this result under 30,000 characters: read on with bash, e\.g\. tail -n \+\d+ '\/\S+\/SKILL\.md' \(read_file cannot open it: it lies outside the allowed roots\)\]/,
  );
  assert.equal(data.insideRoots, false);
});

test("filling $ARGUMENTS: line ends preferred, a long line cut partway, a part-read body never shown whole", () => {
  assert.deepEqual(fillArguments("a $ARGUMENTS\nb\n\n", "X", 100), {
    text: "a X\nb",
    partway: false,
  });
  assert.deepEqual(fillArguments("12345\n67890\n", "", 8), {
    text: "12345",
    stoppedAt: 1,
    partway: false,
  });
  assert.deepEqual(fillArguments("1\n$ARGUMENTS$ARGUMENTS", "abcdef", 10), {
    text: "1\nabcdefab",
    stoppedAt: 1,
    partway: true,
  });
  // Read in part: the last line may be cut, so it is left for read_file.
  assert.deepEqual(fillArguments("one\ntwo\nthr", "", 100, false), {
    text: "one\ntwo",
    stoppedAt: 2,
    partway: false,
  });
  // Bounded however many placeholders there are (this would be 90 million characters whole).
  const big = fillArguments("$ARGUMENTS".repeat(9000), "z".repeat(10_000), 30_000);
  assert.equal(big.text.length, 30_000);
});

test("a skill broken since the server started is an error result saying why", async () => {
  const p = scratchPlaces();
  writeSkill(p.projectSkills, "gone-bad", skillMd("gone-bad", "ok"));
  const h = harness([skillTool], undefined, { fixed: [p.project], fallback: [p.project] });
  const call = (id: number) =>
    h.request(id, "tools/call", modern({ name: "skill", arguments: { name: "gone-bad" } }));
  assert.equal((await call(1)).result?.isError, undefined);
  writeFileSync(join(p.projectSkills, "gone-bad", "SKILL.md"), "---\nname: gone-bad\n---\n");
  const broken = (await call(2)).result as unknown as ToolResult;
  assert.equal(broken.isError, true);
  assert.match(
    broken.content[0].text!,
    /no usable skill is named gone-bad: .*has no `description`/,
  );
});

test("with no skills at start any name is accepted, so one added since can be loaded", async () => {
  const p = scratchPlaces();
  const h = harness([skillTool], undefined, { fixed: [p.project], fallback: [p.project] });
  const listed = await h.request(1, "tools/list", modern());
  const tool = (listed.result!.tools as Record<string, Record<string, unknown>>[])[0];
  assert.match(String(tool.description), /No skills were found when the server started/);
  assert.deepEqual(tool.inputSchema.properties, {
    name: { type: "string", minLength: 1, description: "The skill to load." },
    arguments: (tool.inputSchema.properties as Record<string, unknown>).arguments,
  });
  writeSkill(p.projectAgents, "late", skillMd("late", "Added late", "Late body\n"));
  const reply = await h.request(
    2,
    "tools/call",
    modern({ name: "skill", arguments: { name: "late" } }),
  );
  assert.match((reply.result as unknown as ToolResult).content[0].text!, /\n\nLate body\n/);
});
