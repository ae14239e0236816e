/** The skill tool in-process: its description, the body it returns, $ARGUMENTS, and its limits. */
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import process from "node:process";
import { after, test } from "node:test";
import skillTool from "../../tools/skills/skill.ts";
import { fillArguments } from "../../tools/skills/_lib/skill_text.ts";
import { callInRoots } from "../helpers/file_tools.ts";
import type { ToolResult } from "../helpers/tool_calls.ts";
import { harness } from "../helpers/in_process.ts";
import { modern } from "../helpers/raw_client.ts";
import { places, skillMd, writeSkill } from "../helpers/skills.ts";

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
  const { result, text, data } = await callInRoots(skillTool, [p.project], {
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
  const { text, data } = await callInRoots(skillTool, [p.project], {
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
  const { text, data } = await callInRoots(skillTool, [p.project], { name: "huge" });
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
  const many = await callInRoots(skillTool, [p.project], { name: "many", arguments: given });
  assert.ok(many.text.length <= 30_000, `${many.text.length} characters`);
  // Lines 5 and 6 fit whole; the 30,000 characters leave no room for a third.
  assert.equal(many.text.split("\n").filter((l) => l === `Use ${given}.`).length, 2);
  assert.match(
    many.text,
    /\[the skill's text was cut before line 7 of SKILL\.md .*offset 7\); \$ARGUMENTS is not replaced there\]/,
  );
  const oneLine = await callInRoots(skillTool, [p.project], { name: "one-line", arguments: given });
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
  const { text, data } = await callInRoots(skillTool, [p.project], {
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
    name: { type: "string", minLength: 1 },
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
