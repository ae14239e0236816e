/** Agent Skills in-process: SKILL.md rules, where skills come from, which one wins, the tool. */
import assert from "node:assert/strict";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { delimiter, join } from "node:path";
import process from "node:process";
import { after, test } from "node:test";
import skillTool from "../tools/skill.ts";
import { skillToolDescription } from "../tools/_lib/skill_description.ts";
import { InvalidSkill, parseSkill } from "../tools/_lib/skill_file.ts";
import { bundledFiles } from "../tools/_lib/skill_files.ts";
import {
  configuredSkillDirs,
  type SkillSource,
  skillSources,
} from "../tools/_lib/skill_sources.ts";
import { discoverSkills, findSkill } from "../tools/_lib/skills.ts";
import { callTool, scratchDir, type ToolResult } from "./helpers/file_tools.ts";
import { harness } from "./helpers/in_process.ts";
import { modern } from "./helpers/raw_client.ts";

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

test("sources: the project's directories, then configured ones, then the user's, each once", () => {
  assert.deepEqual(
    skillSources({ projects: ["/p", "/q", "/p"], configured: ["/c"], home: "/h" }),
    [
      { dir: "/p/.claude/skills", scope: "project" },
      { dir: "/p/.agents/skills", scope: "project" },
      { dir: "/q/.claude/skills", scope: "project" },
      { dir: "/q/.agents/skills", scope: "project" },
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
});

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
// directory and HOME (which Deno's homedir reads on every call), so each test points both at
// scratch directories of its own.
const saved = { home: process.env.HOME, cwd: process.cwd() };
after(() => {
  process.env.HOME = saved.home;
  process.chdir(saved.cwd);
});

function scratchPlaces() {
  const p = places();
  process.env.HOME = p.home;
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

test("a long skill is cut at a line end with the line of SKILL.md to read on from", async () => {
  const p = scratchPlaces();
  const line = "x".repeat(99) + "\n";
  writeSkill(p.projectSkills, "huge", skillMd("huge", "Huge", line.repeat(2000)));
  const { text, data } = await callTool(skillTool, [p.project], { name: "huge" });
  assert.equal(data.truncated, true);
  // 1,000 lines of 100 characters fit in 100,000; the body starts on line 5.
  assert.equal(text.split("\n").filter((l) => l === line.trimEnd()).length, 1000);
  assert.match(text, /cut at 100,000 characters: read the rest with read_file from line 1005 of /);
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
